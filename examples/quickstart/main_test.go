package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestQuickstartRuns(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"created patient pat_", "fetched pat_", "phone cleared=true, notes set=true", `search "ho": 1 of 1 match`,
		"1. Alan Turing", "2. Grace Hopper", "3. Ada Lovelace", "/lastName: is required (required)",
		"/email: must be an email address (invalid_format)", "unknown patient: not found",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
