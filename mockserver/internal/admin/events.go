package admin

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/webhooks"
)

// Trigger is the body of POST /__admin/events: make an event of Type happen in Account through
// the store's own rules, creating the records it needs unless IDs names them.
type Trigger struct {
	Type    webhooks.EventType `json:"type"`
	Account string             `json:"account"`
	IDs     TriggerIDs         `json:"ids"`
}

// TriggerIDs are existing records a trigger uses instead of creating them.
type TriggerIDs struct {
	PatientID     string `json:"patientId,omitempty"`
	AppointmentID string `json:"appointmentId,omitempty"`
	InvoiceID     string `json:"invoiceId,omitempty"`
	PaymentID     string `json:"paymentId,omitempty"`
	ProductID     string `json:"productId,omitempty"`
	WebhookID     string `json:"webhookId,omitempty"`
}

// Triggered is the answer of POST /__admin/events: the records the trigger made or changed, in
// order, and the events they emitted.
type Triggered struct {
	Type    webhooks.EventType `json:"type"`
	Account string             `json:"account"`
	Records []TriggeredRecord  `json:"records"`
	Events  []TriggeredEvent   `json:"events"`
}

// TriggeredRecord is one record a trigger made ("created") or changed ("updated", "paid", …).
type TriggeredRecord struct {
	Kind   string `json:"kind"`
	ID     string `json:"id"`
	Action string `json:"action"`
}

// TriggeredEvent is one event the trigger emitted.
type TriggeredEvent struct {
	ID   string             `json:"id"`
	Type webhooks.EventType `json:"type"`
}

// trigger makes records in one account for one trigger (the store's rules, in the order a
// client of the API would call them), remembering each.
type trigger struct {
	s    *Surface
	acct *store.Account
	ids  TriggerIDs
	out  *Triggered
	tag  string // random, for the SKU and provider of what the trigger creates
}

// TriggerEvent makes t.Type happen (docs/mock-server.md "Event triggers").
func (s *Surface) TriggerEvent(t Trigger) (Triggered, error) {
	var errs store.FieldErrors
	if !slices.Contains(webhooks.AllEventTypes(), t.Type) {
		names := make([]string, 0, 16)
		for _, ty := range webhooks.AllEventTypes() {
			names = append(names, string(ty))
		}
		errs.Add("/type", "invalid_value", "must be one of "+strings.Join(names, ", "))
	}
	for _, c := range []struct{ ptr, v, prefix string }{
		{"/ids/patientId", t.IDs.PatientID, "pat"}, {"/ids/appointmentId", t.IDs.AppointmentID, "apt"},
		{"/ids/invoiceId", t.IDs.InvoiceID, "inv"}, {"/ids/paymentId", t.IDs.PaymentID, "pay"},
		{"/ids/productId", t.IDs.ProductID, "prd"}, {"/ids/webhookId", t.IDs.WebhookID, "whk"},
	} {
		if c.v != "" && !wire.IsID(c.v, c.prefix) {
			errs.Add(c.ptr, "invalid_format", "must be an id of the form "+c.prefix+"_…")
		}
	}
	if t.Account == "" {
		errs.Add("/account", "required", "is required")
	}
	if err := errs.Err(); err != nil {
		return Triggered{}, err
	}
	acct, err := s.account(t.Account)
	if err != nil {
		return Triggered{}, err
	}
	var tag [4]byte
	_, _ = rand.Read(tag[:])
	out := Triggered{Type: t.Type, Account: t.Account, Records: []TriggeredRecord{}, Events: []TriggeredEvent{}}
	tr := &trigger{s: s, acct: acct, ids: t.IDs, out: &out, tag: hex.EncodeToString(tag[:])}
	before := len(acct.Events())
	if err := tr.run(t.Type); err != nil {
		return Triggered{}, err
	}
	made := map[string]bool{}
	for _, r := range out.Records {
		made[r.ID] = true
	}
	events := acct.Events()
	for _, e := range events[min(before, len(events)):] {
		if id, product := eventObject(e); made[id] || e.Type == webhooks.EventInventoryLowStock && made[product] {
			out.Events = append(out.Events, TriggeredEvent{ID: e.ID, Type: e.Type})
		}
	}
	return out, nil
}

// eventObject is the id of the record an event's data describes, and of its product (stock).
func eventObject(e store.Event) (id, productID string) {
	b, _ := json.Marshal(e.Data)
	var d struct {
		ID        string `json:"id"`
		ProductID string `json:"productId"`
	}
	_ = json.Unmarshal(b, &d)
	return d.ID, d.ProductID
}

// run makes the records of one event type, each step needing the ones before.
func (tr *trigger) run(typ webhooks.EventType) error {
	switch typ {
	case webhooks.EventPatientCreated:
		_, err := tr.newPatient()
		return err
	case webhooks.EventPatientUpdated:
		id, err := tr.patient()
		if err != nil {
			return err
		}
		_, err = tr.acct.UpdatePatient(id, store.PatientInput{Tags: store.Given([]string{"triggered", "updated-" + tr.tag})})
		return tr.did("patient", id, "updated", err)
	case webhooks.EventAppointmentCreated:
		_, err := tr.newAppointment()
		return err
	case webhooks.EventAppointmentUpdated:
		id, err := tr.appointment()
		if err != nil {
			return err
		}
		_, err = tr.acct.UpdateAppointment(id, store.AppointmentInput{Status: store.Given("confirmed")})
		return tr.did("appointment", id, "confirmed", err)
	case webhooks.EventAppointmentCancelled:
		id, err := tr.appointment()
		if err != nil {
			return err
		}
		return tr.did("appointment", id, "cancelled", tr.acct.CancelAppointment(id))
	case webhooks.EventInvoiceCreated:
		_, err := tr.newInvoice()
		return err
	case webhooks.EventInvoiceVoided:
		id, err := tr.invoice()
		if err != nil {
			return err
		}
		_, err = tr.acct.VoidInvoice(id, store.InvoiceVoidInput{})
		return tr.did("invoice", id, "voided", err)
	case webhooks.EventInvoicePaid, webhooks.EventPaymentSucceeded:
		_, err := tr.pay("cash", "")
		return err
	case webhooks.EventPaymentFailed:
		_, err := tr.pay("card", "tok_decline")
		return err
	case webhooks.EventRefundCreated:
		pay := tr.ids.PaymentID
		if pay == "" {
			var err error
			if pay, err = tr.pay("cash", ""); err != nil {
				return err
			}
		}
		_, err := tr.create("refund", `{"paymentId":"`+pay+`"}`)
		return err
	case webhooks.EventProductCreated:
		_, err := tr.newProduct(0)
		return err
	case webhooks.EventInventoryAdjusted:
		id, err := tr.product(0)
		if err != nil {
			return err
		}
		return tr.adjust(id, 10, "received")
	case webhooks.EventInventoryLowStock:
		// Stock above a reorder point of 5, then down to it: the crossing emits the event.
		id, err := tr.product(5)
		if err != nil {
			return err
		}
		if err := tr.adjust(id, 10, "received"); err != nil {
			return err
		}
		return tr.adjust(id, -5, "used")
	case webhooks.EventWebhookTest:
		return tr.webhookTest()
	}
	return problem.Field("/type", "invalid_value", "is not an event type")
}

// did records a change of an existing record, or returns the error that prevented it.
func (tr *trigger) did(kind, id, action string, err error) error {
	if err != nil {
		return err
	}
	tr.out.Records = append(tr.out.Records, TriggeredRecord{Kind: kind, ID: id, Action: action})
	return nil
}

// create makes one record of kind from an API request body, decoded and validated as the API's
// POST does (httpapi.API.Create, whose kinds are the plural), and records it.
func (tr *trigger) create(kind, body string) (string, error) {
	id, err := tr.s.api.Create(tr.acct, kind+"s", []byte(body), time.Time{})
	return id, tr.did(kind, id, "created", err)
}

// existing returns the record ids names (at ptr, checked with get), or makes one.
func existing[T any](id, ptr string, get func(string) (T, error), orNew func() (string, error)) (string, error) {
	if id == "" {
		return orNew()
	}
	_, err := get(id)
	return id, idsProblem(err, ptr)
}

func (tr *trigger) patient() (string, error) {
	return existing(tr.ids.PatientID, "/ids/patientId", tr.acct.GetPatient, tr.newPatient)
}

// newPatient creates a patient whose details are made up for the trigger (no real person's).
func (tr *trigger) newPatient() (string, error) {
	return tr.create("patient", `{"firstName":"Triggered","lastName":"Event","email":"triggered@example.invalid","tags":["triggered"]}`)
}

func (tr *trigger) appointment() (string, error) {
	return existing(tr.ids.AppointmentID, "/ids/appointmentId", tr.acct.GetAppointment, tr.newAppointment)
}

// newAppointment books 30 minutes with a provider of its own, on a random half hour of the
// year ahead (so that triggers for one patient seldom conflict).
func (tr *trigger) newAppointment() (string, error) {
	pat, err := tr.patient()
	if err != nil {
		return "", err
	}
	var slot [2]byte
	_, _ = rand.Read(slot[:])
	start := tr.acct.Now().Truncate(time.Hour).Add(24*time.Hour + time.Duration(int(slot[0])<<8|int(slot[1]))%17520*30*time.Minute)
	body := fmt.Sprintf(`{"patientId":%q,"providerId":"prv_trigger_%s","service":"Triggered consultation","startAt":%q,"endAt":%q}`,
		pat, tr.tag, wire.Time(start).Format(time.RFC3339), wire.Time(start.Add(30*time.Minute)).Format(time.RFC3339))
	return tr.create("appointment", body)
}

func (tr *trigger) invoice() (string, error) {
	return existing(tr.ids.InvoiceID, "/ids/invoiceId", tr.acct.GetInvoice, tr.newInvoice)
}

func (tr *trigger) newInvoice() (string, error) {
	pat, err := tr.patient()
	if err != nil {
		return "", err
	}
	return tr.create("invoice", `{"patientId":"`+pat+`","lineItems":[{"description":"Triggered service","quantity":1,"unitAmount":15000}]}`)
}

// pay pays an invoice's whole amount due with method (and card token) and returns the payment;
// a declined card's payment is recorded as failed, which is what payment.failed asks.
func (tr *trigger) pay(method, token string) (string, error) {
	inv, err := tr.invoice()
	if err != nil {
		return "", err
	}
	i, err := tr.acct.GetInvoice(inv)
	if err != nil {
		return "", err
	}
	body := fmt.Sprintf(`{"invoiceId":%q,"amount":%d,"method":%q`, inv, i.AmountDue, method)
	if token != "" {
		body += fmt.Sprintf(`,"cardToken":%q`, token)
	}
	id, err := tr.s.api.Create(tr.acct, "payments", []byte(body+"}"), time.Time{})
	if token == "tok_decline" && id != "" && err != nil && httpcore.ProblemFor(err).Code == "card_declined" {
		err = nil
	}
	return id, tr.did("payment", id, "created", err)
}

func (tr *trigger) product(reorderPoint int) (string, error) {
	return existing(tr.ids.ProductID, "/ids/productId", tr.acct.GetProduct, func() (string, error) { return tr.newProduct(reorderPoint) })
}

func (tr *trigger) newProduct(reorderPoint int) (string, error) {
	return tr.create("product", fmt.Sprintf(`{"sku":"TRIGGER-%s","name":"Triggered product","category":"other","price":1000,"reorderPoint":%d}`, tr.tag, reorderPoint))
}

func (tr *trigger) adjust(product string, delta int, reason string) error {
	_, err := tr.create("adjustment", fmt.Sprintf(`{"productId":%q,"delta":%d,"reason":%q}`, product, delta, reason))
	return err
}

// webhookTest delivers webhook.test to the named endpoint, or to every enabled endpoint of the
// account, at once (as POST /webhooks/{id}/test does).
func (tr *trigger) webhookTest() error {
	var ids []string
	if tr.ids.WebhookID != "" {
		ids = []string{tr.ids.WebhookID}
	} else {
		eps, _ := tr.acct.ListWebhooks(store.Window{Page: 1, PerPage: 100})
		for _, e := range eps {
			if e.Enabled {
				ids = append(ids, e.ID)
			}
		}
		if len(ids) == 0 {
			return problem.Field("/ids/webhookId", "required", "the account has no enabled webhook endpoint: create one, or name one")
		}
	}
	for _, id := range ids {
		t, ok := tr.acct.WebhookTarget(id)
		if !ok {
			return problem.Field("/ids/webhookId", "not_found", "no such webhook endpoint in the account")
		}
		res := tr.s.hooks.Test(context.Background(), tr.s.store.Account(tr.acct.ID), t)
		tr.out.Records = append(tr.out.Records, TriggeredRecord{Kind: "webhook", ID: id, Action: "tested"})
		tr.out.Events = append(tr.out.Events, TriggeredEvent{ID: res.EventID, Type: webhooks.EventWebhookTest})
	}
	return nil
}

// idsProblem turns a not-found record named in ids into a 422 on that field.
func idsProblem(err error, ptr string) error {
	if err != nil && httpcore.ProblemFor(err).Status == 404 {
		return problem.Field(ptr, "not_found", "no such record in the account")
	}
	return err
}
