package httpapi

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The byte scan for valid JSON answers as the token walk does.
func TestCheckValidJSONMatchesTokens(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth)
	tooDeep := strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1)
	for _, in := range []string{
		`{}`, `[]`, `"s"`, `1`, `null`, `{"a":1}`, `{"a":1,"a":2}`, `{"a":"x","b":"a"}`, `{"a":"b","b":1}`,
		`{"a":{"a":1},"b":[{"a":1,"a":2}]}`, `{"a":[1,2,{"x":"y"}],"a":0}`, `{"\u0061":1,"a":2}`, `{"a\"b":1,"a\"b":2}`,
		`{"a\\":1,"b":"\\"}`, `{"x":true,"y":false,"x":null}`, `{"k":[],"l":{},"k":1}`, ` { "a" : 1 , "b" : { } } `,
		`{"a":"}","b":"{"}`, `{"a":",","a":1}`, `[{"a":1},{"a":1}]`, deep, tooDeep, `{"a":` + tooDeep + `}`,
		`{"a":1,"a":` + tooDeep + `}`, `{"a":` + tooDeep + `,"a":1}`,
	} {
		if !json.Valid([]byte(in)) {
			t.Fatalf("test input %s is not valid JSON", in)
		}
		want, got := checkJSONTokens([]byte(in)), checkValidJSON([]byte(in))
		if (want == nil) != (got == nil) || (want != nil && want.Error() != got.Error()) {
			t.Errorf("%.60s: scan says %v, tokens say %v", in, got, want)
		}
	}
}

func FuzzCheckValidJSON(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":[1,{"c":"d","c":0}]}}`, `{"\u0061":1,"a":2}`, `[[[]]]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		want, got := checkJSONTokens([]byte(in)), checkValidJSON([]byte(in))
		if (want == nil) != (got == nil) || (want != nil && want.Error() != got.Error()) {
			t.Errorf("%q: scan says %v, tokens say %v", in, got, want)
		}
	})
}

// TestCheckJSONIsLinear (issue 32, item 1): an object of 60,000 keys is checked in linear time
// (a scan of every key seen so far per key took 12 s on an idle machine), and by both checks a
// duplicate at its end is still found.
func TestCheckJSONIsLinear(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`{"a":{"x":1}`)
	for i := range 60_000 {
		b.WriteString(`,"k` + strconv.Itoa(i) + `":1`)
	}
	unique := b.String() + "}"
	dup := b.String() + `,"k7":2}`
	for _, check := range []struct {
		name string
		fn   func([]byte) error
	}{{"scan", checkValidJSON}, {"tokens", checkJSONTokens}} {
		start := time.Now()
		if err := check.fn([]byte(unique)); err != nil {
			t.Errorf("%s: %v", check.name, err)
		}
		if err := check.fn([]byte(dup)); err == nil || !strings.Contains(err.Error(), "duplicate") {
			t.Errorf("%s: duplicate at the end: %v", check.name, err)
		}
		// The token walk (bodies that are not valid JSON) was linear already, and is slow under
		// -race whatever the keys: only the scan is timed.
		if took := time.Since(start); check.name == "scan" && took > 2*time.Second {
			t.Errorf("%s: %v for 60,000 keys twice", check.name, took)
		}
	}
}
