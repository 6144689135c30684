package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// commitLog records every committed change as "kind:what" strings.
type commitLog struct {
	mu  sync.Mutex
	got []string
}

func (l *commitLog) hook(a *Account, c Change) Pending {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.Account != a.ID {
		l.got = append(l.got, "wrong account "+c.Account)
	}
	if c.Replaced {
		l.got = append(l.got, "replaced")
	}
	for _, w := range c.Writes {
		s := "put " + w.Kind
		if w.Deleted {
			s = "delete " + w.Kind
		}
		l.got = append(l.got, s)
	}
	for _, e := range c.Events {
		l.got = append(l.got, "event "+string(e.Type))
	}
	return nil
}

func (l *commitLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.got
	l.got = nil
	return out
}

// Every committed change of an account passes the commit hook once, with what it wrote and the
// events it emitted; a refused request commits nothing.
func TestEveryCommittedChangePassesTheHook(t *testing.T) {
	t.Parallel()
	st := New(Options{})
	var log commitLog
	st.OnCommit(log.hook, false)
	a := st.Account("acct_commit")
	check := func(step string, want ...string) {
		t.Helper()
		if got := log.take(); !slices.Equal(got, want) {
			t.Errorf("%s: commits %q, want %q", step, got, want)
		}
	}
	p, err := a.CreatePatient(PatientInputOf(patients.Patient{FirstName: "A", LastName: "B", Email: "a@b.example"}), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	check("create patient", "put patient", "event patient.created")
	if _, err := a.CreatePatient(PatientInput{}, time.Time{}); err == nil {
		t.Fatal("an empty patient was accepted")
	}
	check("invalid patient")
	if _, err := a.UpdatePatient(p.ID, PatientInput{Notes: Given("n")}); err != nil {
		t.Fatal(err)
	}
	check("update patient", "put patient", "event patient.updated")
	if _, err := a.UpdatePatient(p.ID, PatientInput{Notes: Given("n")}); err != nil {
		t.Fatal(err)
	}
	check("update that changes nothing")
	prod, err := a.CreateProduct(ProductInput{SKU: Given("S"), Name: Given("N"), Category: Given("other"), Price: Given(json.Number("100"))}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	check("create product", "put product", "put stock", "event product.created")
	if _, err := a.Adjust(AdjustmentInput{ProductID: Given(prod.ID), Delta: Given(json.Number("5")), Reason: Given("received")}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	check("adjust", "put stock", "put adjustment", "event inventory.adjusted")
	if _, err := a.Adjust(AdjustmentInput{ProductID: Given(prod.ID), Delta: Given(json.Number("-9")), Reason: Given("used")}, time.Time{}); err == nil {
		t.Fatal("took more than was on hand")
	}
	check("refused adjustment")
	inv, err := a.createInvoice(billing.InvoiceCreateParams{PatientID: p.ID, Currency: "usd",
		LineItems: []billing.LineItemParams{{Description: "d", Quantity: 1, ProductID: prod.ID}}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	check("invoice selling stock", "put invoice", "put stock", "put adjustment", "event invoice.created", "event inventory.adjusted")
	if _, err := a.createPayment(billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 1, Currency: "usd", Method: billing.MethodCard, CardToken: billing.TokenDecline}, time.Time{}); err == nil {
		t.Fatal("a declined card succeeded")
	}
	check("declined payment: committed, and an error", "put payment", "event payment.failed")
	if _, err := a.createPayment(billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: inv.Total, Currency: "usd", Method: billing.MethodCash}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	check("payment", "put payment", "put invoice", "event payment.succeeded", "event invoice.paid")
	w, err := a.CreateWebhook(context.Background(), WebhookInputOf(webhooks.Endpoint{URL: "https://127.0.0.1/h", Events: []webhooks.EventType{webhooks.EventAll}}), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	check("webhook", "put webhook")
	if err := a.DeleteWebhook(w.ID); err != nil {
		t.Fatal(err)
	}
	check("delete webhook", "delete webhook")
	a.FinishIdempotent("k", 201, nil, nil) // not begun: nothing stored
	check("idempotency entry never begun")
	if out, _ := a.BeginIdempotent("k", [32]byte{1}); out != IdempotencyProceed {
		t.Fatal(out)
	}
	a.FinishIdempotent("k", 201, nil, []byte("{}"))
	check("idempotency entry", "put idempotency")
	a.Reset()
	check("reset", "replaced")
	if got := fmt.Sprint(len(a.Events())); got != "0" {
		t.Errorf("events after reset: %s", got)
	}
}
