package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// TestRetryRunsInRealTime: with a running (not frozen) clock, a retry runs when real time
// reaches it, without anyone moving the clock.
func TestRetryRunsInRealTime(t *testing.T) {
	saved := schedule
	schedule = []time.Duration{150 * time.Millisecond}
	defer func() { schedule = saved }()

	var calls atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer ts.Close()
	st := store.New(store.Options{})
	d := New(st, Options{})
	defer d.Close()
	a := st.Account("acct_test")
	e, err := a.CreateWebhook(context.Background(), store.WebhookInputOf(webhooks.Endpoint{URL: ts.URL, Events: []webhooks.EventType{webhooks.EventAll}, Enabled: true}), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := a.CreatePatient(store.PatientInputOf(patients.Patient{FirstName: "A", LastName: "B", Email: "a@example.com"}), time.Time{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(d.Deliveries(a.ID)) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("retry did not run: %+v", d.Deliveries(a.ID))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if took := time.Since(start); took < 150*time.Millisecond {
		t.Fatalf("retry ran after %v, before it was due", took)
	}
	log := d.Deliveries(a.ID)
	if log[0].Delivered || !log[1].Delivered || log[1].Attempt != 2 || log[1].EndpointID != e.ID {
		t.Fatalf("log = %+v", log)
	}
	// The last attempt of the schedule failing would give up: here the schedule has one retry.
	if log[1].NextAttemptAt != nil {
		t.Fatalf("success scheduled a retry: %+v", log[1])
	}
}

// TestNoEndpointsNoWork: events of an account without endpoints are recorded for recorders but
// never queued, and start no goroutines.
func TestNoEndpointsNoWork(t *testing.T) {
	st := store.New(store.Options{})
	d := New(st, Options{})
	defer d.Close()
	a := st.Account("acct_test")
	rec := d.Record(a.ID)
	for range 3 {
		if _, err := a.CreatePatient(store.PatientInputOf(patients.Patient{FirstName: "A", LastName: "B", Email: "a@example.com"}), time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	d.mu.Lock()
	queued := len(d.accounts)
	d.mu.Unlock()
	started := true
	d.start.Do(func() { started = false })
	if queued != 0 || started {
		t.Fatalf("queued %d events, workers started %t", queued, started)
	}
	if n := len(rec.Events()); n != 3 {
		t.Fatalf("recorded %d events, want 3", n)
	}
}
