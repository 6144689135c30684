package mockserver_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// fakeT stands in for a test's *testing.T where a failure is the expected outcome (or, in an
// example, where there is no test): it records Fatalf and runs cleanups on demand.
type fakeT struct {
	testing.TB // nil: only the methods below are called
	mu         sync.Mutex
	fatal      []string
	cleanups   []func()
}

func (f *fakeT) Helper() {}
func (f *fakeT) Cleanup(fn func()) {
	f.mu.Lock()
	f.cleanups = append(f.cleanups, fn)
	f.mu.Unlock()
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.fatal = append(f.fatal, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}
func (f *fakeT) cleanup() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

// payInvoice creates a patient and an invoice, and pays it in full.
func payInvoice(t testing.TB, c *medspa.Client) *billing.Invoice {
	t.Helper()
	ctx := context.Background()
	p, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	if err != nil {
		t.Fatalf("patient: %v", err)
	}
	inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: p.ID, LineItems: []billing.LineItemParams{{Description: "Peel", Quantity: 1, UnitAmount: medspa.Ptr[int64](9900)}},
	})
	if err != nil {
		t.Fatalf("invoice: %v", err)
	}
	if _, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{
		InvoiceID: inv.ID, Amount: inv.AmountDue, Method: billing.MethodCard, CardToken: billing.TokenVisa,
	}); err != nil {
		t.Fatalf("payment: %v", err)
	}
	return inv
}

// The receiver registers an endpoint of the test's account, verifies deliveries on the
// account's clock (here frozen years back) and hands out each event once.
func TestWebhookReceiver(t *testing.T) {
	t.Parallel()
	ts := mockserver.NewTest(t, mockserver.WithStartTime(time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)))
	rcv := ts.WebhookReceiver(t, webhooks.EventInvoicePaid, webhooks.EventPaymentSucceeded)
	if !strings.HasPrefix(rcv.Secret, webhooks.SecretPrefix) || !strings.HasPrefix(rcv.URL, "http://127.0.0.1:") || rcv.Endpoint.Secret != rcv.Secret {
		t.Fatalf("receiver %+v", rcv)
	}
	ep, _, err := ts.Client.Webhooks.Get(context.Background(), rcv.Endpoint.ID)
	if err != nil || ep.URL != rcv.URL || len(ep.Events) != 2 {
		t.Fatalf("the registered endpoint: %+v %v", ep, err)
	}
	inv := payInvoice(t, ts.Client)

	ev := rcv.Next(t, webhooks.EventInvoicePaid, 10*time.Second)
	if d, ok := ev.Invoice(); !ok || d.ID != inv.ID || d.AmountDue != 0 {
		t.Errorf("invoice.paid: %+v", ev)
	}
	ev = rcv.Next(t, webhooks.EventAll, 10*time.Second) // the other one, whichever came first
	if ev.Type != webhooks.EventPaymentSucceeded {
		t.Errorf("next event %s, want payment.succeeded", ev.Type)
	}
	if n := len(rcv.Events()); n != 2 {
		t.Errorf("%d events, want 2 (invoice.created is not subscribed)", n)
	}

	// A delivery of the same event again (a retry) is kept once; a forged one not at all.
	body := []byte(`{"id":"` + ev.ID + `","type":"payment.succeeded","createdAt":"2021-03-04T05:06:07Z","data":` + string(ev.Raw) + `}`)
	h, err := webhooks.SignHeaders(rcv.Secret, ev.ID, ts.Now(), body)
	if err != nil {
		t.Fatal(err)
	}
	if status := post(t, rcv.URL, h, body); status != http.StatusNoContent {
		t.Errorf("a redelivery: %d", status)
	}
	h.Set(webhooks.HeaderID, "evt_forged")
	if status := post(t, rcv.URL, h, body); status != http.StatusBadRequest {
		t.Errorf("a forged delivery: %d", status)
	}
	if n := len(rcv.Events()); n != 2 {
		t.Errorf("%d events after a redelivery and a forgery, want 2", n)
	}
}

// post sends body with header h to url and returns the status.
func post(t *testing.T, url string, h http.Header, body []byte) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Next fails the test when no event of the type arrives in time, saying what did arrive and
// what the server tried.
func TestWebhookReceiverNextTimesOut(t *testing.T) {
	t.Parallel()
	ts := mockserver.NewTest(t)
	rcv := ts.WebhookReceiver(t)
	payInvoice(t, ts.Client)
	paid := rcv.Next(t, webhooks.EventInvoicePaid, 10*time.Second)
	// The delivery log records an attempt once its answer is in, after the receiver got it.
	for deadline := time.Now().Add(10 * time.Second); !slices.ContainsFunc(ts.Deliveries(), func(d mockserver.Delivery) bool {
		return d.EventID == paid.ID && d.Delivered
	}); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no delivered attempt of %s in the log: %+v", paid.ID, ts.Deliveries())
		}
	}

	f := &fakeT{}
	ev := rcv.Next(f, webhooks.EventRefundCreated, 50*time.Millisecond)
	if ev.ID != "" || len(f.fatal) != 1 {
		t.Fatalf("Next without the event: %+v, failures %q", ev, f.fatal)
	}
	msg := f.fatal[0]
	for _, want := range []string{"no verified refund.created event at " + rcv.Endpoint.ID + " within 50ms",
		"arrived: [", "invoice.paid evt_", "delivery attempts: [", "invoice.paid evt_", "attempt 1: delivered (status 204)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "Ada") || strings.Contains(msg, "Lovelace") {
		t.Errorf("failure %q shows PHI", msg)
	}
}

// A test that waits for a webhook: one call registers a verified receiver for the test's
// account; Next waits for the event (in a test, pass its *testing.T where this passes t).
func ExampleTestServer_WebhookReceiver() {
	t := &fakeT{} // in a test: the test's *testing.T
	defer t.cleanup()
	ts := mockserver.NewTest(t)
	rcv := ts.WebhookReceiver(t, webhooks.EventInvoicePaid)

	inv := payInvoice(t, ts.Client)

	ev := rcv.Next(t, webhooks.EventInvoicePaid, 5*time.Second) // verified with rcv.Secret
	d, _ := ev.Invoice()
	fmt.Println(ev.Type, d.ID == inv.ID, d.Status, d.AmountDue)
	// Output: invoice.paid true paid 0
}
