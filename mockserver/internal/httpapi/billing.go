package httpapi

import (
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

var (
	invoiceFields  = []string{"patientId", "appointmentId", "lineItems", "taxRateBps", "discountAmount", "currency", "dueAt", "notes"}
	lineItemFields = []string{"description", "quantity", "unitAmount", "productId"}
	paymentFields  = []string{"invoiceId", "amount", "currency", "method", "cardToken"}
	voidFields     = []string{"reason"}
	refundFields   = []string{"paymentId", "amount", "reason", "notes"}
)

// decodeInvoice reads an invoice create body.
func decodeInvoice(f *form) store.InvoiceInput {
	return store.InvoiceInput{
		Members:   f.members(invoiceFields...),
		PatientID: f.str("patientId"), AppointmentID: f.str("appointmentId"),
		LineItems: objects(f, "lineItems", func(lf *form) store.LineItemInput {
			return store.LineItemInput{
				Members:     lf.members(lineItemFields...),
				Description: lf.str("description"), Quantity: lf.number("quantity"),
				UnitAmount: lf.number("unitAmount"), ProductID: lf.str("productId"),
			}
		}),
		TaxRateBps: f.number("taxRateBps"), DiscountAmount: f.number("discountAmount"),
		Currency: f.str("currency"), DueAt: f.instant("dueAt"), Notes: f.str("notes"),
	}
}

// decodePayment reads a payment create body.
func decodePayment(f *form) store.PaymentInput {
	return store.PaymentInput{
		Members:   f.members(paymentFields...),
		InvoiceID: f.str("invoiceId"), Amount: f.number("amount"), Currency: f.str("currency"),
		Method: f.str("method"), CardToken: f.str("cardToken"),
	}
}

// decodeRefund reads a refund create body.
func decodeRefund(f *form) store.RefundInput {
	return store.RefundInput{
		Members:   f.members(refundFields...),
		PaymentID: f.str("paymentId"), Amount: f.number("amount"), Reason: f.str("reason"), Notes: f.str("notes"),
	}
}

func (a *API) createInvoice(rq *request) (int, any, error) {
	inv, err := fromRequest(rq, decodeInvoice, rq.acct.CreateInvoice)
	rq.created = inv.ID
	return created, inv, err
}

func (a *API) getInvoice(rq *request) (int, any, error) {
	id, err := rq.pathID("inv", "invoice")
	if err != nil {
		return 0, nil, err
	}
	inv, err := rq.acct.GetInvoice(id)
	return ok, inv, err
}

func (a *API) listInvoices(rq *request) (int, any, error) {
	q := rq.parseQuery()
	w := q.window(true)
	filter := store.InvoiceFilter{
		PatientID:   q.id("patientId", "pat"),
		Statuses:    q.list("status", store.InvoiceStatuses()...),
		CreatedFrom: q.instant("createdFrom"),
		CreatedTo:   q.instant("createdTo"),
	}
	if err := q.done(); err != nil {
		return 0, nil, err
	}
	items, total := rq.acct.ListInvoices(filter, w)
	return ok, list(items, total, w), nil
}

func (a *API) createPayment(rq *request) (int, any, error) {
	pay, err := fromRequest(rq, decodePayment, rq.acct.CreatePayment)
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

func (a *API) voidInvoice(rq *request) (int, any, error) {
	id, err := rq.pathID("inv", "invoice")
	if err != nil {
		return 0, nil, err
	}
	in, err := optionalBody(rq, func(f *form) store.InvoiceVoidInput {
		return store.InvoiceVoidInput{Members: f.members(voidFields...), Reason: f.str("reason")}
	})
	if err != nil {
		return 0, nil, err
	}
	inv, err := rq.acct.VoidInvoice(id, in)
	return ok, inv, err
}

func (a *API) listPayments(rq *request) (int, any, error) {
	q := rq.parseQuery()
	w := q.window(true)
	filter := store.PaymentFilter{
		InvoiceID:   q.str("invoiceId", 64),
		Statuses:    q.list("status", store.PaymentStatuses()...),
		Methods:     q.list("method", store.PaymentMethods()...),
		CreatedFrom: q.instant("createdFrom"),
		CreatedTo:   q.instant("createdTo"),
	}
	if err := q.done(); err != nil {
		return 0, nil, err
	}
	items, total := rq.acct.ListPayments(filter, w)
	return ok, list(items, total, w), nil
}

func (a *API) createRefund(rq *request) (int, any, error) {
	ref, err := fromRequest(rq, decodeRefund, rq.acct.CreateRefund)
	rq.created = ref.ID
	return created, ref, err
}

func (a *API) getRefund(rq *request) (int, any, error) {
	id, err := rq.pathID("ref", "refund")
	if err != nil {
		return 0, nil, err
	}
	ref, err := rq.acct.GetRefund(id)
	return ok, ref, err
}

func (a *API) listRefunds(rq *request) (int, any, error) {
	q := rq.parseQuery()
	w := q.window(true)
	filter := store.RefundFilter{PaymentID: q.str("paymentId", 64), InvoiceID: q.str("invoiceId", 64)}
	if err := q.done(); err != nil {
		return 0, nil, err
	}
	items, total := rq.acct.ListRefunds(filter, w)
	return ok, list(items, total, w), nil
}
