package httpapi

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/medspa/medspa-go/reports"
)

func TestCSVCellNeutralizesFormulas(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"=SUM(A1:A9)": "'=SUM(A1:A9)", "+1": "'+1", "-2": "'-2", "@cmd": "'@cmd", "\tx": "'\tx", "\rx": "'\rx",
		"botox": "botox", "": "", "a=b": "a=b", "'quoted": "'quoted",
	} {
		if got := cell(in); got != want {
			t.Errorf("cell(%q) = %q, want %q", in, got, want)
		}
	}
	r := &reports.CustomReport{
		Columns: []string{"providerId", "count", "avg:delta", "min:delta"},
		Rows:    [][]any{{"=HYPERLINK(\"x\",\"y\")", int64(2), -1.5, int64(-3)}, {"a,b", int64(0), nil, nil}},
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.WriteAll(customTable(r))
	want := "providerId,count,avg:delta,min:delta\n\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\",2,-1.5,-3\n\"a,b\",0,,\n"
	if buf.String() != want {
		t.Errorf("CSV\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestWantsCSV(t *testing.T) {
	t.Parallel()
	for accept, want := range map[string]bool{
		"":                                 false,
		"application/json":                 false,
		"text/csv":                         true,
		"text/csv; charset=utf-8":          true,
		"*/*":                              false,
		"application/json, text/csv":       true, // equal preference: CSV was asked for by name
		"text/csv;q=0.5, application/json": false,
		"text/csv, application/json;q=0.9": true,
		"text/csv;q=0":                     false,
		"garbage;;":                        false,
	} {
		if got := wantsCSV(accept); got != want {
			t.Errorf("wantsCSV(%q) = %t, want %t", accept, got, want)
		}
	}
}
