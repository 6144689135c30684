package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	s := out.String()
	booked := regexp.MustCompile(`booked (apt_[0-9a-f]{32}): Botox`).FindStringSubmatch(s)
	if booked == nil {
		t.Fatalf("no booking line:\n%s", s)
	}
	for _, want := range []string{
		"double booking refused: conflicts with " + booked[1],
		"rescheduled " + booked[1] + " to 14:00–14:45",
		booked[1] + " is confirmed",
		booked[1] + " is checked_in",
		booked[1] + " is in_progress",
		booked[1] + " is completed",
		"cancel refused: completed → cancelled is not allowed",
		"subtotal $450.00 + tax $37.13 = $487.13 (open)",
		"paid $487.13 with visa 4242: succeeded",
		"is paid, $0.00 due",
		"  09:45–10:15 scheduled prv_9 Chemical peel\n  14:00–14:45 completed prv_9 Botox — forehead\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}
