package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestWebhookReceiverRuns(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"registered whk_", "test delivery: delivered=true status=204",
		"received patient.created evt_", ": patient pat_", "received appointment.created evt_", ": appointment apt_",
		"received appointment.cancelled evt_",
		"received webhook.test evt_", ": webhook whk_", "attempt 1 of patient.created to whk_",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, phi := range []string{"Ada", "Lovelace", "ada@example.com", "5551234567"} {
		if strings.Contains(out.String(), phi) {
			t.Errorf("output shows PHI %q", phi)
		}
	}
}
