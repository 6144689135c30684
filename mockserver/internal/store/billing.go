package store

import (
	"encoding/json"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/webhooks"
)

// InvoiceRecord is a stored invoice: the API's invoice with its notes (PHI) sealed.
type InvoiceRecord struct {
	billing.Invoice
	SealedNotes []byte `json:"sealedNotes,omitempty"`
}

func (r *InvoiceRecord) sealedFields() []sealedField { return []sealedField{{"notes", &r.SealedNotes}} }

func newBillingTables(d *data) {
	d.Invoices = newTable("invoice", func(r *InvoiceRecord) sortKey { return sortKey{r.CreatedAt, r.ID} })
	d.Payments = newTable("payment", func(p *billing.Payment) sortKey { return sortKey{p.CreatedAt, p.ID} })
	d.Refunds = newTable("refund", func(r *RefundRecord) sortKey { return sortKey{r.CreatedAt, r.ID} })
}

// lineAmount is quantity × unitAmount, or false when it overflows int64.
func lineAmount(quantity, unitAmount int64) (int64, bool) {
	hi, lo := bits.Mul64(uint64(quantity), uint64(unitAmount))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

// taxHalfUp is round_half_up(base × bps / 10000) in 128-bit integer arithmetic (base, bps ≥ 0;
// bps ≤ 10000, so the result is at most base).
func taxHalfUp(base, bps int64) int64 {
	hi, lo := bits.Mul64(uint64(base), uint64(bps))
	lo, carry := bits.Add64(lo, 5000, 0)
	q, _ := bits.Div64(hi+carry, lo, 10000)
	return int64(q)
}

// invoiceTotals computes the line amounts (in place), subtotal, tax and total, or names the
// fields whose values make them impossible: an amount beyond int64 (out_of_range) or a discount
// above the subtotal.
func invoiceTotals(items []billing.LineItem, discount, bps int64) (subtotal, tax, total int64, errs FieldErrors) {
	overflow := false
	for i := range items {
		amt, ok := lineAmount(items[i].Quantity, items[i].UnitAmount)
		if !ok {
			errs.Add("/lineItems/"+strconv.Itoa(i)+"/unitAmount", "out_of_range", "quantity × unitAmount exceeds the largest amount")
			overflow = true
			continue
		}
		items[i].Amount = amt
		if subtotal > math.MaxInt64-amt {
			overflow = true
		}
		subtotal += amt
	}
	if overflow {
		if len(errs) == 0 {
			errs.Add("/lineItems", "out_of_range", "the subtotal exceeds the largest amount")
		}
		return 0, 0, 0, errs
	}
	if discount > subtotal {
		return 0, 0, 0, FieldErrors{{Pointer: "/discountAmount", Code: "out_of_range", Detail: "must not exceed the subtotal"}}
	}
	base := subtotal - discount
	tax = taxHalfUp(base, bps)
	if base > math.MaxInt64-tax {
		return 0, 0, 0, FieldErrors{{Pointer: "/lineItems", Code: "out_of_range", Detail: "the total exceeds the largest amount"}}
	}
	return subtotal, tax, base + tax, nil
}

// checkAppointmentRef checks an invoice's appointmentId (the caller holds a.mu): an unknown
// appointment is not_found; one of another patient is invalid_value.
func (a *Account) checkAppointmentRef(errs *FieldErrors, appointmentID, patientID string) {
	r, ok := a.data.Appointments.get(appointmentID)
	switch {
	case !ok:
		errs.Add("/appointmentId", "not_found", "no such appointment")
	case r.PatientID != patientID:
		errs.Add("/appointmentId", "invalid_value", "the appointment is another patient's")
	}
}

// InvoiceInput is an invoice create body (docs/protocol.md §9 Invoice), decoded.
type InvoiceInput struct {
	Members
	PatientID, AppointmentID   Field[string]
	LineItems                  Field[[]Field[LineItemInput]]
	TaxRateBps, DiscountAmount Field[json.Number]
	Currency, DueAt, Notes     Field[string]
}

// LineItemInput is one of an invoice's lineItems, decoded.
type LineItemInput struct {
	Members
	Description Field[string]
	Quantity    Field[json.Number]
	UnitAmount  Field[json.Number]
	ProductID   Field[string]
}

var currencyCode = regexp.MustCompile(`^[a-z]{3}$`)

// currency checks an ISO 4217 lowercase code; def when absent or null (or invalid).
func (c checker) currency(name string, f Field[string], def string) string {
	v, p := c.str(name, f, false, 0, 0)
	if p != Present {
		return def
	}
	if !currencyCode.MatchString(v) {
		c.fail(name, "invalid_format", "must be an ISO 4217 code in lowercase, such as usd")
		return def
	}
	return v
}

// checkInvoice validates the shape of an invoice body: every field on its own.
func checkInvoice(in InvoiceInput) (billing.InvoiceCreateParams, error) {
	c := newChecker()
	c.members(in.Members)
	out := billing.InvoiceCreateParams{
		PatientID:     c.id("patientId", in.PatientID, "pat", true),
		AppointmentID: c.id("appointmentId", in.AppointmentID, "apt", false),
	}
	for _, item := range objects(c, "lineItems", in.LineItems, true, 1, 100) {
		ic := c.in(item.pointer)
		li := item.value
		ic.members(li.Members)
		var p billing.LineItemParams
		p.Description, _ = ic.str("description", li.Description, true, 1, 200)
		p.Quantity, _ = ic.integer("quantity", li.Quantity, true, 1, 10_000)
		p.ProductID = ic.id("productId", li.ProductID, "prd", false)
		// unitAmount is required unless productId is given (the product's price is the default).
		if v, pr := ic.integer("unitAmount", li.UnitAmount, li.ProductID.State == Absent || li.ProductID.State == Null, 0, math.MaxInt64); pr == Present {
			p.UnitAmount = &v
		}
		out.LineItems = append(out.LineItems, p)
	}
	out.TaxRateBps, _ = c.integer("taxRateBps", in.TaxRateBps, false, 0, 10_000)
	out.DiscountAmount, _ = c.integer("discountAmount", in.DiscountAmount, false, 0, math.MaxInt64)
	out.Currency = c.currency("currency", in.Currency, "usd")
	if c.decoded(in.DueAt.Complaint, in.DueAt.State) && in.DueAt.State == Present {
		t, err := time.Parse(time.RFC3339, in.DueAt.Value)
		if err != nil {
			c.fail("dueAt", "invalid_format", "must be an RFC 3339 timestamp")
		} else {
			out.DueAt = wire.Time(t)
		}
	}
	out.Notes, _ = c.text("notes", in.Notes, false, 0, 10_000)
	return out, c.done()
}

// CreateInvoice validates in and stores the invoice: first the body's fields (422), then,
// atomically, its references — the patient and products must exist (422 not_found), product
// lines take their product's price unless given and must be in the invoice's currency — and
// its amounts, which must fit (422 out_of_range); product lines sell stock at "main", all or
// none (409 insufficient_stock). createdAt may be backdated.
func (a *Account) CreateInvoice(in InvoiceInput, createdAt time.Time) (billing.Invoice, error) {
	params, err := checkInvoice(in)
	if err != nil {
		return billing.Invoice{}, err
	}
	return a.createInvoice(params, createdAt)
}

// createInvoice stores an invoice whose fields are valid, checking its references and rules.
func (a *Account) createInvoice(in billing.InvoiceCreateParams, createdAt time.Time) (billing.Invoice, error) {
	t := a.begin()
	defer t.end()
	if createdAt.IsZero() {
		createdAt = a.Now()
	}
	var errs FieldErrors
	if !a.patientExists(in.PatientID) {
		errs.Add("/patientId", "not_found", "no such patient")
	}
	if in.AppointmentID != "" {
		a.checkAppointmentRef(&errs, in.AppointmentID, in.PatientID)
	}
	items := make([]billing.LineItem, len(in.LineItems))
	products := make([]*inventory.Product, len(in.LineItems))
	for i, li := range in.LineItems {
		items[i] = billing.LineItem{Description: li.Description, Quantity: li.Quantity, ProductID: li.ProductID}
		if li.UnitAmount != nil {
			items[i].UnitAmount = *li.UnitAmount
		}
		if li.ProductID == "" {
			continue
		}
		ptr := "/lineItems/" + strconv.Itoa(i) + "/productId"
		p, ok := a.data.Products.get(li.ProductID)
		switch {
		case !ok:
			errs.Add(ptr, "not_found", "no such product")
		case p.Currency != in.Currency:
			errs.Add(ptr, "invalid_value", "the product's currency differs from the invoice's")
		default:
			products[i] = p
			if li.UnitAmount == nil {
				items[i].UnitAmount = p.Price
			}
		}
	}
	if err := errs.Err(); err != nil {
		return billing.Invoice{}, err
	}
	subtotal, tax, total, errs := invoiceTotals(items, in.DiscountAmount, in.TaxRateBps)
	if err := errs.Err(); err != nil {
		return billing.Invoice{}, err
	}
	// All or none: every product's total quantity must be on hand at main before anything moves.
	need := map[string]int64{}
	for i, p := range products {
		if p != nil {
			need[p.ID] += items[i].Quantity
		}
	}
	for _, p := range products {
		if p == nil {
			continue
		}
		var have int64
		if s := a.stock(p.ID, MainLocation); s != nil {
			have = s.OnHand
		}
		if have < need[p.ID] {
			e := insufficient(have)
			e.Members["productId"] = p.ID
			return billing.Invoice{}, e
		}
	}

	r := &InvoiceRecord{Invoice: billing.Invoice{
		ID: a.store.ids.New("inv", createdAt), PatientID: in.PatientID, AppointmentID: in.AppointmentID,
		LineItems: items, TaxRateBps: in.TaxRateBps, DiscountAmount: in.DiscountAmount, Currency: in.Currency,
		DueAt: in.DueAt, Status: billing.InvoiceOpen, Subtotal: subtotal, Tax: tax, Total: total, AmountDue: total,
		CreatedAt: createdAt, UpdatedAt: createdAt,
	}}
	if total == 0 {
		r.Status, r.PaidAt = billing.InvoicePaid, createdAt
	}
	r.SealedNotes = a.sealText("invoice", r.ID, "notes", in.Notes)
	a.data.Invoices.insert(r)
	t.put("invoice", r.ID)
	t.emit(webhooks.EventInvoiceCreated, invoiceData(r))
	for i, p := range products {
		if p == nil {
			continue
		}
		sale := inventory.AdjustParams{ProductID: p.ID, Location: MainLocation, Delta: -items[i].Quantity, Reason: inventory.ReasonSale, Reference: r.ID}
		if _, _, err := a.applyAdjustment(&t, p, sale, createdAt); err != nil {
			return billing.Invoice{}, err // unreachable: stock was checked above under the same lock
		}
	}
	if r.Status == billing.InvoicePaid {
		t.emit(webhooks.EventInvoicePaid, invoiceData(r))
	}
	return a.openInvoice(r), nil
}

func invoiceData(r *InvoiceRecord) *webhooks.InvoiceData {
	return &webhooks.InvoiceData{
		ID: r.ID, PatientID: r.PatientID, AppointmentID: r.AppointmentID, Status: string(r.Status),
		Currency: r.Currency, Total: r.Total, AmountPaid: r.AmountPaid, AmountDue: r.AmountDue,
	}
}

// openInvoice returns the API shape of r, notes opened.
func (a *Account) openInvoice(r *InvoiceRecord) billing.Invoice {
	out := r.Invoice
	out.LineItems = slices.Clone(r.LineItems)
	out.Notes = a.openText("invoice", r.ID, "notes", r.SealedNotes)
	return out
}

// GetInvoice returns the invoice, or 404.
func (a *Account) GetInvoice(id string) (billing.Invoice, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	r, ok := a.data.Invoices.get(id)
	if !ok {
		return billing.Invoice{}, NotFound("invoice")
	}
	return a.openInvoice(r), nil
}

// InvoiceFilter selects invoices; zero fields match everything.
type InvoiceFilter struct {
	PatientID              string
	Statuses               []string
	CreatedFrom, CreatedTo time.Time
}

// ListInvoices returns a page of matching invoices and the number matching.
func (a *Account) ListInvoices(f InvoiceFilter, w Window) ([]billing.Invoice, int) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	recs, total := a.data.Invoices.page(w, func(r *InvoiceRecord) bool {
		return (f.PatientID == "" || r.PatientID == f.PatientID) &&
			(len(f.Statuses) == 0 || slices.Contains(f.Statuses, string(r.Status))) &&
			(f.CreatedFrom.IsZero() || !r.CreatedAt.Before(f.CreatedFrom)) &&
			(f.CreatedTo.IsZero() || r.CreatedAt.Before(f.CreatedTo))
	})
	out := make([]billing.Invoice, 0, len(recs))
	for _, r := range recs {
		out = append(out, a.openInvoice(r))
	}
	return out, total
}

// InvoicesCreated returns the invoices created in [from, to), oldest first, for reports:
// without notes (PHI).
func (a *Account) InvoicesCreated(from, to time.Time) []billing.Invoice {
	a.mu.RLock()
	defer a.mu.RUnlock()
	var out []billing.Invoice
	for _, r := range a.data.Invoices.all() {
		if !r.CreatedAt.Before(from) && r.CreatedAt.Before(to) {
			inv := r.Invoice
			inv.LineItems = slices.Clone(r.LineItems)
			out = append(out, inv)
		}
	}
	return out
}

// cardOutcome is what a mock card token does.
type cardOutcome struct {
	brand, last4, declineCode string
}

var cardTokens = map[string]cardOutcome{
	billing.TokenVisa:              {"visa", "4242", ""},
	billing.TokenMastercard:        {"mastercard", "4444", ""},
	billing.TokenAmex:              {"amex", "0005", ""},
	billing.TokenDecline:           {"visa", "0002", billing.DeclineGeneric},
	billing.TokenInsufficientFunds: {"visa", "9995", billing.DeclineInsufficientFunds},
}

// KnownCardToken reports whether tok is one of the mock's test card tokens.
func KnownCardToken(tok string) bool {
	_, ok := cardTokens[tok]
	return ok
}

// PaymentInput is a payment create body (docs/protocol.md §9 Payment), decoded.
type PaymentInput struct {
	Members
	InvoiceID                   Field[string]
	Amount                      Field[json.Number]
	Currency, Method, CardToken Field[string]
}

var paymentMethods = []string{
	string(billing.MethodCard), string(billing.MethodCash), string(billing.MethodCheck),
	string(billing.MethodGiftCard), string(billing.MethodFinancing), string(billing.MethodOther),
}

// checkPayment validates the shape of a payment body; a card payment needs a known card token.
func checkPayment(in PaymentInput) (billing.PaymentCreateParams, error) {
	c := newChecker()
	c.members(in.Members)
	out := billing.PaymentCreateParams{InvoiceID: c.id("invoiceId", in.InvoiceID, "inv", true)}
	out.Amount, _ = c.integer("amount", in.Amount, true, 1, math.MaxInt64)
	out.Currency = c.currency("currency", in.Currency, "")
	method, mp := c.enum("method", in.Method, true, paymentMethods...)
	out.Method = billing.PaymentMethod(method)
	tok, p := c.str("cardToken", in.CardToken, out.Method == billing.MethodCard, 0, 0)
	switch {
	case p != Present:
	case mp == Present && out.Method != billing.MethodCard:
		c.fail("cardToken", "invalid_value", "is only for card payments")
	case !KnownCardToken(tok):
		c.fail("cardToken", "invalid_value", "is not a valid card token")
	default:
		out.CardToken = tok
	}
	return out, c.done()
}

// CreatePayment validates in and runs the payment against its invoice, atomically: unknown
// invoice → 422 /invoiceId not_found; other currency → 422 /currency invalid_value; paid
// or void invoice → 409 invoice_not_payable; more than due → 422 amount_exceeds_balance. A declined
// card records a failed payment and returns it with the card_declined error (402); a success
// adds to the invoice's amountPaid.
func (a *Account) CreatePayment(in PaymentInput, createdAt time.Time) (billing.Payment, error) {
	params, err := checkPayment(in)
	if err != nil {
		return billing.Payment{}, err
	}
	return a.createPayment(params, createdAt)
}

// createPayment runs a payment whose fields are valid.
func (a *Account) createPayment(in billing.PaymentCreateParams, createdAt time.Time) (billing.Payment, error) {
	t := a.begin()
	defer t.end()
	if createdAt.IsZero() {
		createdAt = a.Now()
	}
	inv, ok := a.data.Invoices.get(in.InvoiceID)
	if !ok {
		return billing.Payment{}, InvalidField("/invoiceId", "not_found", "no such invoice")
	}
	if in.Currency == "" {
		in.Currency = inv.Currency
	}
	if in.Currency != inv.Currency {
		return billing.Payment{}, InvalidField("/currency", "invalid_value", "must equal the invoice's currency")
	}
	switch inv.Status {
	case billing.InvoicePaid:
		return billing.Payment{}, breaks("invoice_not_payable", "the invoice is already paid", nil)
	case billing.InvoiceVoid:
		return billing.Payment{}, breaks("invoice_not_payable", "the invoice is void", nil)
	}
	if in.Amount > inv.AmountDue {
		return billing.Payment{}, breaks("amount_exceeds_balance", "the amount exceeds the invoice's amount due", nil)
	}
	p := &billing.Payment{
		ID: a.store.ids.New("pay", createdAt), InvoiceID: inv.ID, Amount: in.Amount, Currency: in.Currency,
		Method: in.Method, Status: billing.PaymentSucceeded, CreatedAt: createdAt,
	}
	if in.Method == billing.MethodCard {
		o := cardTokens[in.CardToken]
		p.Card = &billing.Card{Brand: o.brand, Last4: o.last4}
		if o.declineCode != "" {
			p.Status, p.DeclineCode = billing.PaymentFailed, o.declineCode
		}
	}
	a.data.Payments.insert(p)
	t.put("payment", p.ID)
	data := &webhooks.PaymentData{
		ID: p.ID, InvoiceID: p.InvoiceID, Status: string(p.Status), Amount: p.Amount, Currency: p.Currency,
		Method: string(p.Method), DeclineCode: p.DeclineCode,
	}
	if p.Status == billing.PaymentFailed {
		t.emit(webhooks.EventPaymentFailed, data)
		return paymentOut(p), breaks("card_declined", "the card was declined",
			map[string]any{"paymentId": p.ID, "declineCode": p.DeclineCode})
	}
	inv.AmountPaid += p.Amount
	inv.AmountDue = inv.Total - inv.AmountPaid
	inv.UpdatedAt = createdAt
	inv.Status = billing.InvoicePartiallyPaid
	t.put("invoice", inv.ID)
	t.emit(webhooks.EventPaymentSucceeded, data)
	if inv.AmountDue == 0 {
		inv.Status, inv.PaidAt = billing.InvoicePaid, inv.UpdatedAt
		t.emit(webhooks.EventInvoicePaid, invoiceData(inv))
	}
	return paymentOut(p), nil
}

func paymentOut(p *billing.Payment) billing.Payment {
	out := *p
	if p.Card != nil {
		c := *p.Card
		out.Card = &c
	}
	return out
}

// GetPayment returns the payment, or 404.
func (a *Account) GetPayment(id string) (billing.Payment, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	p, ok := a.data.Payments.get(id)
	if !ok {
		return billing.Payment{}, NotFound("payment")
	}
	return paymentOut(p), nil
}

// PaymentsCreated returns the payments (succeeded and failed) created in [from, to), oldest
// first, for reports.
func (a *Account) PaymentsCreated(from, to time.Time) []billing.Payment {
	a.mu.RLock()
	defer a.mu.RUnlock()
	var out []billing.Payment
	for _, p := range a.data.Payments.all() {
		if !p.CreatedAt.Before(from) && p.CreatedAt.Before(to) {
			out = append(out, paymentOut(p))
		}
	}
	return out
}

// InvoiceStatuses are the invoice statuses (docs/protocol.md §9 Invoice), for list filters.
func InvoiceStatuses() []string {
	return []string{string(billing.InvoiceOpen), string(billing.InvoicePartiallyPaid), string(billing.InvoicePaid), string(billing.InvoiceVoid)}
}
