package mockserver

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medspa/medspa-go/webhooks"
)

// WebhookReceiver is a webhook endpoint of a test's account with its receiver: an HTTP server
// on 127.0.0.1 that verifies each delivery with the SDK's webhooks package (the endpoint's
// secret, the account's clock) and keeps the events that pass, once per event id. Get one from
// TestServer.WebhookReceiver; it is closed with the test.
type WebhookReceiver struct {
	// URL is where deliveries go (http://127.0.0.1:port/webhooks).
	URL string
	// Secret (whsec_…) signs the deliveries.
	Secret string
	// Endpoint is the registered endpoint: its ID for Update, Test, RotateSecret and Delete.
	Endpoint webhooks.Endpoint

	ts      *TestServer
	mu      sync.Mutex
	all     []webhooks.Event // verified, in arrival order
	pending []webhooks.Event // verified and not yet returned by Next
	seen    map[string]bool  // event ids received
	arrived chan struct{}    // closed and replaced at each new event
}

// WebhookReceiver registers a webhook endpoint for the test's account, subscribed to events
// (every type when none is given), and serves it on a loopback listener closed with t. The
// endpoint exists before the call returns; wait for its events with Next:
//
//	rcv := ts.WebhookReceiver(t, webhooks.EventInvoicePaid)
//	// … pay an invoice …
//	ev := rcv.Next(t, webhooks.EventInvoicePaid, 5*time.Second)
//
// Deliveries that fail verification are answered 400 and kept out (the server's delivery log,
// ts.Deliveries, shows them).
func (ts *TestServer) WebhookReceiver(t testing.TB, events ...webhooks.EventType) *WebhookReceiver {
	t.Helper()
	if len(events) == 0 {
		events = []webhooks.EventType{webhooks.EventAll}
	}
	r := &WebhookReceiver{ts: ts, seen: map[string]bool{}, arrived: make(chan struct{})}
	var verify atomic.Pointer[http.Handler] // set once the endpoint, and so its secret, exists
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if h := verify.Load(); h != nil {
			(*h).ServeHTTP(w, req)
			return
		}
		http.Error(w, "receiver not ready", http.StatusServiceUnavailable)
	}))
	t.Cleanup(hs.Close)
	r.URL = hs.URL + "/webhooks"
	ep, _, err := ts.Client.Webhooks.Create(context.Background(), &webhooks.CreateParams{URL: r.URL, Events: events})
	if err != nil {
		t.Fatalf("mockserver: registering the webhook receiver: %v", err)
	}
	r.Endpoint, r.Secret = *ep, ep.Secret
	h := ts.Client.Webhooks.NewHandler(ep.Secret, r.receive) // verifies on the account's clock
	verify.Store(&h)
	return r
}

// receive keeps a verified event, once per id.
func (r *WebhookReceiver) receive(_ context.Context, e *webhooks.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[e.ID] {
		return nil // a redelivery
	}
	r.seen[e.ID] = true
	r.all = append(r.all, *e)
	r.pending = append(r.pending, *e)
	close(r.arrived)
	r.arrived = make(chan struct{})
	return nil
}

// Events returns every verified event received so far, once per id, in arrival order.
func (r *WebhookReceiver) Events() []webhooks.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.all)
}

// Next returns the first verified event of type typ that Next has not returned yet, waiting up
// to timeout (real time) for it to arrive; webhooks.EventAll takes the next event of any type.
// When none arrives in time, it fails the test (t.Fatalf, so call it from the test's goroutine)
// with the events that did arrive and the endpoint's delivery attempts.
func (r *WebhookReceiver) Next(t testing.TB, typ webhooks.EventType, timeout time.Duration) webhooks.Event {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		r.mu.Lock()
		i := slices.IndexFunc(r.pending, func(e webhooks.Event) bool { return typ == webhooks.EventAll || e.Type == typ })
		if i >= 0 {
			e := r.pending[i]
			r.pending = slices.Delete(r.pending, i, i+1)
			r.mu.Unlock()
			return e
		}
		arrived := r.arrived
		r.mu.Unlock()
		select {
		case <-arrived:
		case <-deadline.C:
			t.Fatalf("mockserver: no verified %s event at %s within %v; %s", typ, r.Endpoint.ID, timeout, r.report())
			return webhooks.Event{}
		}
	}
}

// report says what arrived and what the server tried, for a failed Next: event types and ids,
// and the outcome of each delivery attempt to the endpoint (no payloads).
func (r *WebhookReceiver) report() string {
	var got []string
	for _, e := range r.Events() {
		got = append(got, string(e.Type)+" "+e.ID)
	}
	var tried []string
	for _, d := range r.ts.Deliveries() {
		if d.EndpointID != r.Endpoint.ID {
			continue
		}
		s := fmt.Sprintf("%s %s attempt %d: %s", d.EventType, d.EventID, d.Attempt, d.Outcome)
		if d.StatusCode != 0 {
			s += fmt.Sprintf(" (status %d)", d.StatusCode)
		}
		if d.Error != "" {
			s += " (" + d.Error + ")"
		}
		tried = append(tried, s)
	}
	return fmt.Sprintf("arrived: [%s]; delivery attempts: [%s]", strings.Join(got, ", "), strings.Join(tried, "; "))
}
