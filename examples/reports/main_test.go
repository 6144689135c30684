package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestReportsExampleRuns(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	dir := t.TempDir()
	path, err := run(context.Background(), &out, dir)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	// New patients per ISO week in New York: 1, 2 or 3 a day over October 2026 (60 in all).
	// 90 visits: 57 completed, 15 no-shows (15/72 = 0.2083), 15 cancelled (15/90 = 0.1667),
	// 3 scheduled; the first 20 patients take turns, so all 20 are active over the month. Each
	// completed visit is invoiced and paid by card (57), some partly in cash a week later.
	for _, want := range []string{
		`Patients by week`, `2026-W40 +7 +8 +0`, `2026-W41 +14 `, `2026-W42 +15 `, `2026-W43 +13 `, `2026-W44 +11 `,
		`total +60 +20 +0`, `cancelled +15 +0 +1`, `completed +57 +0 +0`, `no_show +15 +1 +0`, `scheduled +3 +0 +0`,
		`total +90 +0.2083 +0.1667`, `Custom: payments by method`, `card +succeeded +57 +\$`, `cash +succeeded +[0-9]+ +\$`,
		`Revenue by week`, `total +\$[0-9.]+ +[0-9]+ +\$[0-9.]+ +57`,
		`Appointments by status`, `revenue by day written to ` + regexp.QuoteMeta(path),
	} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if filepath.Dir(path) != dir {
		t.Errorf("CSV at %s, want in %s", path, dir)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "key,collected,payments,invoiced,invoices,refunded,net\n") {
		t.Errorf("CSV %q", b)
	}
}
