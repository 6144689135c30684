package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestWebhookRotationRuns(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"registered; the receiver holds its secret",
		"before the rotation:            1 signature(s), verified patient.created evt_",
		"rotated at 10:00:00; the previous secret signs until 11:00:00",
		"rotated, receiver not yet told: 2 signature(s), verified patient.created evt_",
		"receiver holding both:          2 signature(s), verified patient.created evt_",
		"clock moved to 11:00:00: the previous secret has expired",
		"receiver still holding both:    1 signature(s), verified patient.created evt_",
		"(with the previous secret alone it is refused: no matching signature)",
		"receiver holding the new one:   1 signature(s), verified patient.created evt_",
		"deliveries: 5 of 5 verified and answered 204 at the first attempt",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, phi := range []string{"Ada", "Lovelace", "ada@example.com", "whsec_"} {
		if strings.Contains(out.String(), phi) {
			t.Errorf("output shows %q", phi)
		}
	}
}
