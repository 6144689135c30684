package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// ruleCode is the protocol code of a RuleError, "" for nil, or "validation_error".
func ruleCode(t *testing.T, err error) string {
	t.Helper()
	var re *RuleError
	var ve *ValidationError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &re):
		return re.Code
	case errors.As(err, &ve):
		return "validation_error"
	case errors.Is(err, ErrNotFound):
		return "not_found"
	}
	t.Fatalf("unexpected error %v", err)
	return ""
}

func number(n string) Field[json.Number] { return Given(json.Number(n)) }

// paidInvoice makes an invoice of total and one cash payment of amount.
func paidInvoice(t *testing.T, a *Account, total, amount int64) (billing.Invoice, billing.Payment) {
	t.Helper()
	p, err := a.createPatient(patients.Patient{FirstName: "R", LastName: "F", Email: "r@example.com"}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := a.createInvoice(billing.InvoiceCreateParams{PatientID: p.ID, Currency: "usd",
		LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: &total}}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	pay, err := a.createPayment(billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: amount, Method: billing.MethodCash}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return inv, pay
}

func TestCheckRefund(t *testing.T) {
	t.Parallel()
	id := Given("pay_0193a1b2c3d4e5f60718293a4b5c6d7e")
	for _, tc := range []struct {
		in   RefundInput
		want billing.RefundCreateParams
		errs []string
	}{
		{RefundInput{PaymentID: id}, billing.RefundCreateParams{PaymentID: id.Value, Reason: billing.RefundRequestedByCustomer}, nil},
		{RefundInput{PaymentID: id, Amount: number("5"), Reason: Given("fraudulent"), Notes: Given("  x  ")},
			billing.RefundCreateParams{PaymentID: id.Value, Amount: client.Ptr[int64](5), Reason: billing.RefundFraudulent, Notes: "x"}, nil},
		{RefundInput{}, billing.RefundCreateParams{}, []string{"/paymentId required is required"}},
		{RefundInput{PaymentID: Given("inv_0193a1b2c3d4e5f60718293a4b5c6d7e"), Amount: number("0"), Reason: Given("chargeback")}, billing.RefundCreateParams{},
			[]string{"/paymentId invalid_format must be a pay_ id", "/amount out_of_range must be between 1 and 9223372036854775807",
				"/reason invalid_value must be one of requested_by_customer, duplicate, fraudulent, other"}},
		{RefundInput{PaymentID: id, Amount: number("-1")}, billing.RefundCreateParams{}, []string{"/amount out_of_range must be between 1 and 9223372036854775807"}},
	} {
		got, err := checkRefund(tc.in)
		if diff := cmp.Diff(tc.errs, fields(t, err)); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tc.in, diff)
		}
		if err == nil && !cmp.Equal(got, tc.want) {
			t.Errorf("%+v = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestRefundRules(t *testing.T) {
	t.Parallel()
	a := New(Options{}).Account("acct_r")
	inv, pay := paidInvoice(t, a, 1000, 600)
	refund := func(pay string, amount string) (billing.Refund, error) {
		in := RefundInput{PaymentID: Given(pay)}
		if amount != "" {
			in.Amount = number(amount)
		}
		return a.CreateRefund(in, time.Time{})
	}
	for _, step := range []struct {
		payment, amount, code string
		refunded              int64 // the payment's amountRefunded after the step
	}{
		{pay.ID, "601", "amount_exceeds_refundable", 0},
		{pay.ID, "100", "", 100},
		{pay.ID, "501", "amount_exceeds_refundable", 100},
		{pay.ID, "", "", 600}, // what is left: 500
		{pay.ID, "", "payment_not_refundable", 600},
		{pay.ID, "1", "payment_not_refundable", 600},
		{"pay_00000000000000000000000000000000", "1", "validation_error", 600},
	} {
		_, err := refund(step.payment, step.amount)
		if got := ruleCode(t, err); got != step.code {
			t.Fatalf("refund %s of %s: %q, want %q", step.amount, step.payment, got, step.code)
		}
		if p, _ := a.GetPayment(pay.ID); p.AmountRefunded != step.refunded {
			t.Fatalf("after refund %s: refunded %d, want %d", step.amount, p.AmountRefunded, step.refunded)
		}
	}
	got, _ := a.GetInvoice(inv.ID)
	if got.AmountRefunded != 600 || got.AmountPaid != 600 || got.Status != billing.InvoicePartiallyPaid || got.AmountDue != 400 {
		t.Fatalf("invoice %+v", got)
	}
	// A failed payment cannot be refunded.
	failed, err := a.createPayment(billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 10, Method: billing.MethodCard, CardToken: billing.TokenDecline}, time.Time{})
	if ruleCode(t, err) != "card_declined" {
		t.Fatalf("declined payment: %v", err)
	}
	if _, err := refund(failed.ID, ""); ruleCode(t, err) != "payment_not_refundable" {
		t.Fatalf("refund of a failed payment: %v", err)
	}
	// The notes are sealed at rest and opened for the API.
	r, err := a.CreateRefund(RefundInput{PaymentID: Given(pay.ID)}, time.Time{})
	if ruleCode(t, err) != "payment_not_refundable" || r.ID != "" {
		t.Fatalf("refund of a refunded payment: %+v %v", r, err)
	}
	_, p2 := paidInvoice(t, a, 50, 50)
	r, err = a.CreateRefund(RefundInput{PaymentID: Given(p2.ID), Notes: Given("Ada's chargeback")}, time.Time{})
	if err != nil || r.Notes != "Ada's chargeback" || r.Amount != 50 {
		t.Fatalf("refund with notes: %+v %v", r, err)
	}
	b, _ := json.Marshal(a.data)
	if bytes.Contains(b, []byte("chargeback")) {
		t.Fatal("the refund's notes are stored in the clear")
	}
	if got, _ := a.GetRefund(r.ID); got.Notes != "Ada's chargeback" {
		t.Fatalf("GET notes %q", got.Notes)
	}
}

// TestPlanLotsDrawn: a removal says what it took from each lot, first-expiring-first-out or
// from the lot named.
func TestPlanLotsDrawn(t *testing.T) {
	t.Parallel()
	d := func(s string) client.Date { v, _ := client.ParseDate(s); return v }
	lots := []inventory.Lot{{LotNumber: "A", ExpiresOn: d("2031-01-01"), Quantity: 2}, {LotNumber: "B", ExpiresOn: d("2031-02-01"), Quantity: 5}}
	after, drawn, err := planLots(lots, "", client.Date{}, -4)
	if err != nil || !cmp.Equal(after, []inventory.Lot{{LotNumber: "B", ExpiresOn: d("2031-02-01"), Quantity: 3}}) ||
		!cmp.Equal(drawn, []inventory.Lot{{LotNumber: "A", ExpiresOn: d("2031-01-01"), Quantity: 2}, {LotNumber: "B", ExpiresOn: d("2031-02-01"), Quantity: 2}}) {
		t.Fatalf("FEFO: %v %v %v", after, drawn, err)
	}
	_, drawn, err = planLots(lots, "B", client.Date{}, -5)
	if err != nil || !cmp.Equal(drawn, []inventory.Lot{{LotNumber: "B", ExpiresOn: d("2031-02-01"), Quantity: 5}}) {
		t.Fatalf("named lot: %v %v", drawn, err)
	}
	if _, drawn, _ := planLots(lots, "C", d("2032-01-01"), 3); drawn != nil {
		t.Fatalf("a receipt draws nothing: %v", drawn)
	}
	if lots[0].Quantity != 2 || lots[1].Quantity != 5 {
		t.Fatal("planLots modified its input")
	}
}

func TestWebhookPatchRules(t *testing.T) {
	t.Parallel()
	a := New(Options{}).Account("acct_p")
	e := newWebhook(t, a, true, webhooks.EventAll)
	for _, tc := range []struct {
		in   WebhookInput
		errs []string
		want webhooks.Endpoint // URL, Events, Description, Enabled after the patch
	}{
		{WebhookInput{Description: Given("desk")}, nil, webhooks.Endpoint{URL: e.URL, Events: e.Events, Description: "desk", Enabled: true}},
		{WebhookInput{Enabled: Given(false), Events: Given([]string{"refund.created"})}, nil,
			webhooks.Endpoint{URL: e.URL, Events: []webhooks.EventType{"refund.created"}, Description: "desk"}},
		{WebhookInput{Description: Field[string]{State: Null}, Enabled: Field[bool]{State: Null}}, nil,
			webhooks.Endpoint{URL: e.URL, Events: []webhooks.EventType{"refund.created"}, Enabled: true}},
		{WebhookInput{URL: Field[string]{State: Null}, Events: Field[[]string]{State: Null}},
			[]string{"/url required is required and cannot be null", "/events required is required and cannot be null"}, webhooks.Endpoint{}},
		{WebhookInput{Events: Given([]string{"*", "patient.created"})}, []string{"/events/0 invalid_value \"*\" must be the only entry"}, webhooks.Endpoint{}},
		{WebhookInput{}, nil, webhooks.Endpoint{URL: e.URL, Events: []webhooks.EventType{"refund.created"}, Enabled: true}},
	} {
		got, err := a.UpdateWebhook(context.Background(), e.ID, tc.in)
		if diff := cmp.Diff(tc.errs, fields(t, err)); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tc.in, diff)
			continue
		}
		if err != nil {
			continue
		}
		got.ID, got.CreatedAt = "", time.Time{}
		if !cmp.Equal(got, tc.want) {
			t.Errorf("%+v = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	if _, err := a.UpdateWebhook(context.Background(), "whk_00000000000000000000000000000000", WebhookInput{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown endpoint: %v", err)
	}
}

// TestReenabledWebhookMissesWhatHappened: an endpoint enabled again is handed only the events
// that happen from then on, even when those of the time it was disabled are not fanned out yet.
func TestReenabledWebhookMissesWhatHappened(t *testing.T) {
	t.Parallel()
	a := New(Options{}).Account("acct_e")
	e := newWebhook(t, a, true, webhooks.EventPatientCreated)
	mk := func() Event {
		if _, err := a.createPatient(patients.Patient{FirstName: "A", LastName: "B", Email: "a@example.com"}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		evs := a.Events()
		return evs[len(evs)-1]
	}
	patch := func(enabled bool) {
		if _, err := a.UpdateWebhook(context.Background(), e.ID, WebhookInput{Enabled: Given(enabled)}); err != nil {
			t.Fatal(err)
		}
	}
	before := mk()
	if got := a.WebhookSubscribers(before); !slices.Equal(got, []string{e.ID}) {
		t.Fatalf("subscribers while enabled: %v", got)
	}
	patch(false)
	missed := mk()
	if got := a.WebhookSubscribers(missed); len(got) != 0 {
		t.Fatalf("subscribers while disabled: %v", got)
	}
	patch(true)
	after := mk()
	if got := a.WebhookSubscribers(missed); len(got) != 0 {
		t.Fatalf("an event of the disabled time reaches the endpoint enabled again: %v", got)
	}
	if got := a.WebhookSubscribers(after); !slices.Equal(got, []string{e.ID}) {
		t.Fatalf("subscribers once enabled again: %v", got)
	}
	patch(true) // enabled already: nothing changes, later events still reach it
	if got := a.WebhookSubscribers(after); !slices.Equal(got, []string{e.ID}) {
		t.Fatalf("a no-op patch cut the endpoint off: %v", got)
	}
}

// TestWebhookSecretRotationRules: the previous secret signs until its expiry; 0 keeps none; a
// second rotation replaces the older one; the expiry is bounded.
func TestWebhookSecretRotationRules(t *testing.T) {
	t.Parallel()
	a := New(Options{}).Account("acct_s")
	e := newWebhook(t, a, true, webhooks.EventAll)
	rot, err := a.RotateWebhookSecret(e.ID, SecretRotateInput{ExpiresInSeconds: number("60")})
	if err != nil || rot.Secret == e.Secret || rot.PreviousSecretExpiresAt == nil {
		t.Fatalf("rotate: %+v %v", rot, err)
	}
	until := *rot.PreviousSecretExpiresAt
	tg, _ := a.WebhookTarget(e.ID)
	if got := tg.Secrets(until.Add(-time.Second)); !slices.Equal(got, []string{rot.Secret, e.Secret}) {
		t.Fatalf("secrets in the overlap: %v", got)
	}
	if got := tg.Secrets(until); !slices.Equal(got, []string{rot.Secret}) {
		t.Fatalf("secrets at the expiry: %v", got)
	}
	rot2, _ := a.RotateWebhookSecret(e.ID, SecretRotateInput{}) // default 86,400 s
	tg, _ = a.WebhookTarget(e.ID)
	if got := tg.Secrets(until.Add(-time.Second)); !slices.Equal(got, []string{rot2.Secret, rot.Secret}) || !rot2.PreviousSecretExpiresAt.Equal(until.Add(-60*time.Second).Add(24*time.Hour)) {
		t.Fatalf("second rotation: %v, %v", got, rot2.PreviousSecretExpiresAt)
	}
	rot3, _ := a.RotateWebhookSecret(e.ID, SecretRotateInput{ExpiresInSeconds: number("0")})
	tg, _ = a.WebhookTarget(e.ID)
	if got := tg.Secrets(until.Add(-time.Second)); rot3.PreviousSecretExpiresAt != nil || !slices.Equal(got, []string{rot3.Secret}) {
		t.Fatalf("rotation with 0: %+v %v", rot3, got)
	}
	for _, bad := range []string{"-1", "604801", "1.5"} {
		if _, err := a.RotateWebhookSecret(e.ID, SecretRotateInput{ExpiresInSeconds: number(bad)}); ruleCode(t, err) != "validation_error" {
			t.Errorf("expiresInSeconds %s: %v", bad, err)
		}
	}
	tg2, _ := a.WebhookTarget(e.ID)
	if tg2.Secret != rot3.Secret {
		t.Fatal("a refused rotation changed the secret")
	}
}

// TestExtensionsSurviveExport: refunds, void invoices and a rotation's previous secret are part
// of the account's state (snapshots, -data files), secrets and notes still sealed.
func TestExtensionsSurviveExport(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{6}, 32)
	a := New(Options{Sealer: NewSealer(key)}).Account("acct_x")
	inv, pay := paidInvoice(t, a, 300, 300)
	ref, err := a.CreateRefund(RefundInput{PaymentID: Given(pay.ID), Notes: Given("Zora's refund")}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	hundred := int64(100)
	toVoid, err := a.createInvoice(billing.InvoiceCreateParams{PatientID: inv.PatientID, Currency: "usd",
		LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: &hundred}}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	voided, err := a.VoidInvoice(toVoid.ID, InvoiceVoidInput{Reason: Given("raised in error")})
	if err != nil {
		t.Fatal(err)
	}
	e := newWebhook(t, a, true, webhooks.EventAll)
	rot, err := a.RotateWebhookSecret(e.ID, SecretRotateInput{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := a.Export()
	if err != nil {
		t.Fatal(err)
	}
	for _, clear := range []string{"Zora", e.Secret[len("whsec_"):], rot.Secret[len("whsec_"):]} {
		if bytes.Contains(b, []byte(clear)) {
			t.Fatalf("the export holds %q in the clear", clear)
		}
	}
	// Into the same account of another server with the same key (sealed values open only in
	// the account they were sealed for).
	c := New(Options{Sealer: NewSealer(key)}).Account("acct_x")
	if err := c.Import(b); err != nil {
		t.Fatal(err)
	}
	if got, err := c.GetRefund(ref.ID); err != nil || got != ref {
		t.Fatalf("refund after import: %+v %v", got, err)
	}
	if got, _ := c.GetInvoice(inv.ID); got.AmountRefunded != 300 {
		t.Fatalf("invoice after import: %+v", got)
	}
	if got, _ := c.GetInvoice(toVoid.ID); !cmp.Equal(got, voided) {
		t.Fatalf("void invoice after import: %+v, want %+v", got, voided)
	}
	tg, _ := c.WebhookTarget(e.ID)
	if got := tg.Secrets(c.Now()); !slices.Equal(got, []string{rot.Secret, e.Secret}) {
		t.Fatalf("secrets after import: %v", got)
	}
}

func TestMergeAddress(t *testing.T) {
	t.Parallel()
	a := New(Options{}).Account("acct_m")
	p, err := a.CreatePatient(PatientInput{FirstName: Given("A"), LastName: Given("B"), Email: Given("a@example.com"),
		Address: Given(AddressInput{Line1: Given("1 Main St"), Line2: Given("Apt 2"), City: Given("Salem"), Country: Given("US")})}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		patch AddressInput
		null  bool
		want  *patients.Address
		errs  []string
	}{
		{AddressInput{City: Given("Boston")}, false, &patients.Address{Line1: "1 Main St", Line2: "Apt 2", City: "Boston", Country: "US"}, nil},
		{AddressInput{Line2: Field[string]{State: Null}, PostalCode: Given("02108")}, false,
			&patients.Address{Line1: "1 Main St", City: "Boston", PostalCode: "02108", Country: "US"}, nil},
		{AddressInput{Country: Given("usa"), City: Given("Quincy")}, false, nil, []string{"/address/country too_long must be at most 2 characters"}},
		{AddressInput{}, false, &patients.Address{Line1: "1 Main St", City: "Boston", PostalCode: "02108", Country: "US"}, nil},
		{AddressInput{}, true, nil, nil},
		{AddressInput{State: Given("MA")}, false, &patients.Address{State: "MA"}, nil},
		{AddressInput{State: Field[string]{State: Null}}, false, nil, nil}, // nothing left: no address
	} {
		in := PatientInput{Address: Given(tc.patch)}
		if tc.null {
			in.Address = Field[AddressInput]{State: Null}
		}
		got, err := a.UpdatePatient(p.ID, in)
		if diff := cmp.Diff(tc.errs, fields(t, err)); diff != "" {
			t.Fatalf("%+v (-want +got):\n%s", tc.patch, diff)
		}
		if err != nil {
			if now, _ := a.GetPatient(p.ID); now.Address == nil || now.Address.City != "Boston" {
				t.Fatalf("a refused patch changed the address: %+v", now.Address)
			}
			continue
		}
		if !cmp.Equal(got.Address, tc.want) {
			t.Fatalf("%+v (null %t): address %+v, want %+v", tc.patch, tc.null, got.Address, tc.want)
		}
	}
}
