package httpapi

import (
	"math"
	"net/http"
	"regexp"
	"time"

	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

func (a *API) billingRoutes() []route {
	return []route{
		{http.MethodGet, "/api/v1/invoices", "billing:read", a.listInvoices},
		{http.MethodPost, "/api/v1/invoices", "billing:write", a.createInvoice},
		{http.MethodGet, "/api/v1/invoices/{id}", "billing:read", a.getInvoice},
		{http.MethodPost, "/api/v1/payments", "billing:write", a.createPayment},
		{http.MethodGet, "/api/v1/payments/{id}", "billing:read", a.getPayment},
	}
}

var (
	currencyCode    = regexp.MustCompile(`^[a-z]{3}$`)
	invoiceFields   = []string{"patientId", "appointmentId", "lineItems", "taxRateBps", "discountAmount", "currency", "dueAt", "notes"}
	lineItemFields  = []string{"description", "quantity", "unitAmount", "productId"}
	paymentFields   = []string{"invoiceId", "amount", "currency", "method", "cardToken"}
	invoiceStatuses = []string{string(billing.InvoiceOpen), string(billing.InvoicePartiallyPaid), string(billing.InvoicePaid)}
	paymentMethods  = []string{
		string(billing.MethodCard), string(billing.MethodCash), string(billing.MethodCheck),
		string(billing.MethodGiftCard), string(billing.MethodFinancing), string(billing.MethodOther),
	}
)

// ref reads an id member that must have the prefix's shape (invalid_format otherwise).
func (f *form) ref(name, prefix string, required bool) string {
	v, p := f.str(name, required, 0, 0)
	if p != present {
		return ""
	}
	if !store.ValidID(prefix, v) {
		f.fail(name, "invalid_format", "must be a "+prefix+"_ id")
		return ""
	}
	return v
}

// currency reads an ISO 4217 lowercase code, or def when absent or null.
func (f *form) currency(name, def string) string {
	v, p := f.str(name, false, 0, 0)
	if p != present {
		return def
	}
	if !currencyCode.MatchString(v) {
		f.fail(name, "invalid_format", "must be an ISO 4217 code in lowercase, such as usd")
		return def
	}
	return v
}

// readInvoice validates an invoice create body.
func readInvoice(f *form) billing.InvoiceCreateParams {
	f.allow(invoiceFields...)
	in := billing.InvoiceCreateParams{
		PatientID:     f.ref("patientId", "pat", true),
		AppointmentID: f.ref("appointmentId", "apt", false),
	}
	for _, lf := range f.objects("lineItems", true, 1, 100) {
		lf.allow(lineItemFields...)
		var li billing.LineItemParams
		li.Description, _ = lf.str("description", true, 1, 200)
		li.Quantity, _ = lf.integer("quantity", true, 1, 10_000)
		li.ProductID = lf.ref("productId", "prd", false)
		_, hasProduct := lf.obj["productId"]
		if v, p := lf.integer("unitAmount", !hasProduct || lf.isNull("productId"), 0, math.MaxInt64); p == present {
			li.UnitAmount = &v
		}
		in.LineItems = append(in.LineItems, li)
	}
	in.TaxRateBps, _ = f.integer("taxRateBps", false, 0, 10_000)
	in.DiscountAmount, _ = f.integer("discountAmount", false, 0, math.MaxInt64)
	in.Currency = f.currency("currency", "usd")
	if s, p := field[string](f, "dueAt", "an RFC 3339 timestamp"); p == present {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			f.fail("dueAt", "invalid_format", "must be an RFC 3339 timestamp")
		} else {
			in.DueAt = t.UTC().Truncate(time.Second)
		}
	}
	in.Notes, _ = f.str("notes", false, 0, 10_000)
	return in
}

func (a *API) createInvoice(rq *request) (int, any, error) {
	f, err := rq.parseForm()
	if err != nil {
		return 0, nil, err
	}
	in := readInvoice(f)
	if err := f.done(); err != nil {
		return 0, nil, err
	}
	inv, err := rq.acct.CreateInvoice(in, rq.backdate)
	rq.audit = auditInfo{"create", "invoice", inv.ID}
	return created, inv, err
}

func (a *API) getInvoice(rq *request) (int, any, error) {
	id, err := rq.pathID("inv", "invoice")
	if err != nil {
		return 0, nil, err
	}
	rq.audit = auditInfo{"read", "invoice", id}
	inv, err := rq.acct.GetInvoice(id)
	return ok, inv, err
}

func (a *API) listInvoices(rq *request) (int, any, error) {
	q := rq.parseQuery("page", "perPage", "sort", "patientId", "status", "createdFrom", "createdTo")
	w := q.window(true)
	filter := store.InvoiceFilter{
		PatientID:   q.str("patientId", 64),
		Statuses:    q.list("status", invoiceStatuses...),
		CreatedFrom: q.instant("createdFrom"),
		CreatedTo:   q.instant("createdTo"),
	}
	if err := q.done(); err != nil {
		return 0, nil, err
	}
	rq.audit = auditInfo{"list", "invoice", ""}
	items, total := rq.acct.ListInvoices(filter, w)
	return ok, list(items, total, w), nil
}

func (a *API) createPayment(rq *request) (int, any, error) {
	f, err := rq.parseForm()
	if err != nil {
		return 0, nil, err
	}
	f.allow(paymentFields...)
	in := billing.PaymentCreateParams{InvoiceID: f.ref("invoiceId", "inv", true)}
	in.Amount, _ = f.integer("amount", true, 1, math.MaxInt64)
	in.Currency = f.currency("currency", "")
	method, mp := f.enum("method", true, paymentMethods...)
	in.Method = billing.PaymentMethod(method)
	tok, p := f.str("cardToken", in.Method == billing.MethodCard, 0, 0)
	switch {
	case p != present:
	case mp == present && in.Method != billing.MethodCard:
		f.fail("cardToken", "invalid_value", "is only for card payments")
	case !store.KnownCardToken(tok):
		f.fail("cardToken", "invalid_value", "is not a valid card token")
	default:
		in.CardToken = tok
	}
	if err := f.done(); err != nil {
		return 0, nil, err
	}
	pay, err := rq.acct.CreatePayment(in, rq.backdate)
	return created, pay, err
}

func (a *API) getPayment(rq *request) (int, any, error) {
	id, err := rq.pathID("pay", "payment")
	if err != nil {
		return 0, nil, err
	}
	pay, err := rq.acct.GetPayment(id)
	return ok, pay, err
}
