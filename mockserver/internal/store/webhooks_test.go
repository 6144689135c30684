package store

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

func newWebhook(t *testing.T, a *Account, enabled bool, events ...webhooks.EventType) webhooks.Endpoint {
	t.Helper()
	e, err := a.createWebhook(webhooks.Endpoint{URL: "https://hooks.example.com/x", Events: events, Enabled: enabled}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestWebhookSubscribers(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	a := s.Account("acct_1")
	all := newWebhook(t, a, true, webhooks.EventAll)
	created := newWebhook(t, a, true, webhooks.EventPatientCreated)
	off := newWebhook(t, a, false, webhooks.EventAll)
	updated := newWebhook(t, a, true, webhooks.EventPatientUpdated)
	p, err := a.createPatient(patients.Patient{FirstName: "A", LastName: "B", Email: "a@example.com"}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	late := newWebhook(t, a, true, webhooks.EventAll) // registered after the event
	ev := a.Events()[0]
	if got := a.WebhookSubscribers(ev); !slices.Equal(got, []string{all.ID, created.ID}) {
		t.Fatalf("subscribers of patient.created = %v, want %v (not %s, %s, %s)", got, []string{all.ID, created.ID}, off.ID, updated.ID, late.ID)
	}
	if _, err := a.updatePatient(p.ID, func(p *patients.Patient) { p.Notes = "x" }); err != nil {
		t.Fatal(err)
	}
	if got := a.WebhookSubscribers(a.Events()[1]); !slices.Equal(got, []string{all.ID, updated.ID, late.ID}) {
		t.Fatalf("subscribers of patient.updated = %v", got)
	}
	test := Event{ID: a.NewEventID(), Type: webhooks.EventWebhookTest, Data: &webhooks.TestData{ID: all.ID}}
	if got := a.WebhookSubscribers(test); len(got) != 0 {
		t.Fatalf("webhook.test has subscribers %v", got)
	}
	if !a.DisableWebhook(all.ID) || a.DisableWebhook("whk_gone") {
		t.Fatal("DisableWebhook")
	}
	if got := a.WebhookSubscribers(a.Events()[1]); slices.Contains(got, all.ID) {
		t.Fatalf("disabled endpoint still subscribed: %v", got)
	}
	if err := a.DeleteWebhook(created.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.WebhookTarget(created.ID); ok {
		t.Fatal("deleted endpoint still a target")
	}
	list, total := a.ListWebhooks(Window{Page: 1, PerPage: 10})
	if total != 4 || len(list) != 4 || list[0].ID != all.ID || list[0].Enabled {
		t.Fatalf("list = %d %+v", total, list)
	}
}

// TestWebhookSecretSealed: the secret is shown once, kept sealed, and survives a snapshot.
func TestWebhookSecretSealed(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	a := s.Account("acct_1")
	e := newWebhook(t, a, true, webhooks.EventAll)
	if !strings.HasPrefix(e.Secret, webhooks.SecretPrefix) {
		t.Fatalf("secret %q", e.Secret)
	}
	got, err := a.GetWebhook(e.ID)
	if err != nil || got.Secret != "" {
		t.Fatalf("get = %+v, %v", got, err)
	}
	b, err := json.Marshal(a.data)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(e.Secret)) || bytes.Contains(b, []byte(strings.TrimPrefix(e.Secret, webhooks.SecretPrefix))) {
		t.Fatal("serialized data holds the plaintext secret")
	}
	restored := newData()
	if err := json.Unmarshal(b, restored); err != nil {
		t.Fatal(err)
	}
	a.mu.Lock()
	a.data = restored
	a.mu.Unlock()
	if tg, ok := a.WebhookTarget(e.ID); !ok || tg.Secret != e.Secret || tg.URL != e.URL || !tg.Enabled {
		t.Fatalf("restored target = %+v, %t", tg, ok)
	}
}
