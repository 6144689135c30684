package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"received 6 of lot C3401: on hand 6",
		"received 4 of lot C2988: on hand 10",
		"used 5 (first-expiring-first-out): on hand 5",
		"    lot C3401 expires 2027-09-30: 5\n",
		"damaged 2 of lot C3401: on hand 3, low stock true",
		"BTX-100 @ main: on hand 3 (reorder at 3, low=true)",
		"records with a lot expiring before 2028: 1",
		"using 10 refused: insufficient stock, 3 available",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "lot C2988 expires") && strings.Index(out.String(), "lot C2988 expires") > strings.Index(out.String(), "used 5") {
		t.Errorf("the first-expiring lot should be used up:\n%s", out.String())
	}
}
