package store

import (
	"encoding/json"
	"math"
	"slices"
	"time"

	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/webhooks"
)

// RefundRecord is a stored refund: the API's refund with its notes (PHI) sealed.
type RefundRecord struct {
	billing.Refund
	SealedNotes []byte `json:"sealedNotes,omitempty"`
}

func (r *RefundRecord) sealedFields() []sealedField { return []sealedField{{"notes", &r.SealedNotes}} }

// PaymentFilter selects payments; zero fields match everything.
type PaymentFilter struct {
	InvoiceID              string
	Statuses, Methods      []string
	CreatedFrom, CreatedTo time.Time
}

// ListPayments returns a page of matching payments and the number matching.
func (a *Account) ListPayments(f PaymentFilter, w Window) ([]billing.Payment, int) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	recs, total := a.data.Payments.page(w, func(p *billing.Payment) bool {
		return (f.InvoiceID == "" || p.InvoiceID == f.InvoiceID) &&
			(len(f.Statuses) == 0 || slices.Contains(f.Statuses, string(p.Status))) &&
			(len(f.Methods) == 0 || slices.Contains(f.Methods, string(p.Method))) &&
			(f.CreatedFrom.IsZero() || !p.CreatedAt.Before(f.CreatedFrom)) &&
			(f.CreatedTo.IsZero() || p.CreatedAt.Before(f.CreatedTo))
	})
	out := make([]billing.Payment, 0, len(recs))
	for _, p := range recs {
		out = append(out, paymentOut(p))
	}
	return out, total
}

// PaymentStatuses and PaymentMethods are the payment statuses and methods (docs/protocol.md
// §9 Payment), for list filters.
func PaymentStatuses() []string {
	return []string{string(billing.PaymentSucceeded), string(billing.PaymentFailed)}
}

// PaymentMethods are the payment methods (docs/protocol.md §9 Payment), for list filters.
func PaymentMethods() []string { return slices.Clone(paymentMethods) }

// RefundInput is a refund create body (docs/protocol.md §9 Refund), decoded.
type RefundInput struct {
	Members
	PaymentID     Field[string]
	Amount        Field[json.Number]
	Reason, Notes Field[string]
}

var refundReasons = []string{
	string(billing.RefundRequestedByCustomer), string(billing.RefundDuplicate),
	string(billing.RefundFraudulent), string(billing.RefundOther),
}

// maxRefundNotes bounds a refund's notes (docs/protocol.md §9 Refund).
const maxRefundNotes = 500

// checkRefund validates the shape of a refund body. No amount means "what is left".
func checkRefund(in RefundInput) (billing.RefundCreateParams, error) {
	c := newChecker()
	c.members(in.Members)
	out := billing.RefundCreateParams{PaymentID: c.id("paymentId", in.PaymentID, "pay", true)}
	if amount, p := c.integer("amount", in.Amount, false, 1, math.MaxInt64); p == Present {
		out.Amount = &amount
	}
	reason, p := c.enum("reason", in.Reason, false, refundReasons...)
	out.Reason = billing.RefundRequestedByCustomer
	if p == Present {
		out.Reason = billing.RefundReason(reason)
	}
	out.Notes, _ = c.text("notes", in.Notes, false, 0, maxRefundNotes)
	return out, c.done()
}

// CreateRefund validates in and refunds (part of) a payment, atomically: unknown payment → 422
// /paymentId not_found; a payment that did not succeed, or is refunded in full → 409
// payment_not_refundable; more than is left → 422 amount_exceeds_refundable. The payment's
// and its invoice's amountRefunded grow by the amount; the invoice's amountPaid and status do
// not change. createdAt may be backdated (fixtures).
func (a *Account) CreateRefund(in RefundInput, createdAt time.Time) (billing.Refund, error) {
	params, err := checkRefund(in)
	if err != nil {
		return billing.Refund{}, err
	}
	if createdAt.IsZero() {
		createdAt = a.Now()
	}
	id := a.store.ids.New("ref", createdAt)
	sealed := a.sealText("refund", id, "notes", params.Notes) // the crypto, outside the lock; bound to the id
	t := a.begin()
	defer t.end()
	p, ok := a.data.Payments.get(params.PaymentID)
	if !ok {
		return billing.Refund{}, InvalidField("/paymentId", "not_found", "no such payment")
	}
	left := p.Amount - p.AmountRefunded
	switch {
	case p.Status != billing.PaymentSucceeded:
		return billing.Refund{}, breaks("payment_not_refundable", "only a succeeded payment can be refunded", nil)
	case left == 0:
		return billing.Refund{}, breaks("payment_not_refundable", "the payment is refunded in full", nil)
	case params.Amount != nil && *params.Amount > left:
		return billing.Refund{}, breaks("amount_exceeds_refundable", "the amount exceeds what is left to refund on the payment", nil)
	}
	amount := left
	if params.Amount != nil {
		amount = *params.Amount
	}
	inv, _ := a.data.Invoices.get(p.InvoiceID) // a payment's invoice always exists
	r := &RefundRecord{Refund: billing.Refund{
		ID: id, PaymentID: p.ID, InvoiceID: p.InvoiceID, Amount: amount,
		Currency: p.Currency, Reason: params.Reason, Status: billing.RefundSucceeded, CreatedAt: createdAt,
	}, SealedNotes: sealed}
	a.data.Refunds.insert(r)
	p.AmountRefunded += amount
	inv.AmountRefunded += amount
	inv.UpdatedAt = createdAt
	t.put("refund", r.ID)
	t.put("payment", p.ID)
	t.put("invoice", inv.ID)
	t.emit(webhooks.EventRefundCreated, &webhooks.RefundData{
		ID: r.ID, PaymentID: r.PaymentID, InvoiceID: r.InvoiceID, Amount: r.Amount, Currency: r.Currency,
	})
	return a.openRefund(r), nil
}

// openRefund returns the API shape of r, notes opened.
func (a *Account) openRefund(r *RefundRecord) billing.Refund {
	out := r.Refund
	out.Notes = a.openText("refund", r.ID, "notes", r.SealedNotes)
	return out
}

// GetRefund returns the refund, or 404.
func (a *Account) GetRefund(id string) (billing.Refund, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	r, ok := a.data.Refunds.get(id)
	if !ok {
		return billing.Refund{}, NotFound("refund")
	}
	return a.openRefund(r), nil
}

// RefundFilter selects refunds; zero fields match everything.
type RefundFilter struct {
	PaymentID, InvoiceID string
}

// ListRefunds returns a page of matching refunds and the number matching.
func (a *Account) ListRefunds(f RefundFilter, w Window) ([]billing.Refund, int) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	recs, total := a.data.Refunds.page(w, func(r *RefundRecord) bool {
		return (f.PaymentID == "" || r.PaymentID == f.PaymentID) && (f.InvoiceID == "" || r.InvoiceID == f.InvoiceID)
	})
	out := make([]billing.Refund, 0, len(recs))
	for _, r := range recs {
		out = append(out, a.openRefund(r))
	}
	return out, total
}
