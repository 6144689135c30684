package billing_test

import (
	"context"
	"errors"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/wiretest"
)

const invoiceJSON = `{"id":"` + wiretest.InvoiceID + `","patientId":"` + wiretest.PatientID + `","lineItems":[{"description":"Peel",` +
	`"quantity":2,"unitAmount":15000,"amount":30000}],"taxRateBps":825,"discountAmount":0,"currency":"usd",` +
	`"dueAt":"2026-11-22T14:03:00Z","status":"open","subtotal":30000,"tax":2475,"total":32475,"amountPaid":0,"amountDue":32475,` +
	`"createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z","amountRefunded":0}`

const paymentJSON = `{"id":"` + wiretest.PaymentID + `","invoiceId":"` + wiretest.InvoiceID + `","amount":32475,"currency":"usd",` +
	`"method":"card","status":"succeeded","card":{"brand":"visa","last4":"4242"},"createdAt":"2026-11-22T10:00:00Z"}`

func isInvoice(t *testing.T, got any) {
	t.Helper()
	inv := got.(*billing.Invoice)
	if inv.ID != wiretest.InvoiceID || inv.Total != 32475 || len(inv.LineItems) != 1 || inv.LineItems[0].Amount != 30000 ||
		!inv.DueAt.Equal(time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC)) || inv.Status != billing.InvoiceOpen {
		t.Errorf("invoice %+v", inv)
	}
}

func isPayment(t *testing.T, got any) {
	t.Helper()
	p := got.(*billing.Payment)
	if p.ID != wiretest.PaymentID || p.Amount != 32475 || p.Card == nil || p.Card.Last4 != "4242" || p.Status != billing.PaymentSucceeded {
		t.Errorf("payment %+v", p)
	}
}

// TestWire holds every method of the invoices and payments services to the protocol
// (docs/protocol.md §2, §3, §9): exactly what they send (dueAt and list bounds as UTC "Z" whole
// seconds), and what they make of the answers.
func TestWire(t *testing.T) {
	t.Parallel()
	invoices, payments := "/api/v1/invoices", "/api/v1/payments"
	wiretest.Run(t, []wiretest.Case{{
		Name: "Invoices.Create writes dueAt in UTC whole seconds",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: wiretest.PatientID, TaxRateBps: 825, DueAt: wiretest.OddTime,
				LineItems: []billing.LineItemParams{{Description: "Peel", Quantity: 2, UnitAmount: medspa.Ptr[int64](15000)},
					{Description: "Serum", Quantity: 1, ProductID: wiretest.ProductID}, {Description: "Comp", Quantity: 1, UnitAmount: medspa.Ptr[int64](0)}}})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "POST", Path: invoices, Body: `{"patientId":"` + wiretest.PatientID + `","lineItems":[` +
				`{"description":"Peel","quantity":2,"unitAmount":15000},{"description":"Serum","quantity":1,"productId":"` + wiretest.ProductID + `"},` +
				`{"description":"Comp","quantity":1,"unitAmount":0}],"taxRateBps":825,"dueAt":"` + wiretest.OddTimeWire + `"}`},
			Status: 201, Answer: invoiceJSON,
		},
		Check: isInvoice,
	}, {
		Name: "Invoices.Create without dueAt sends none",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: wiretest.PatientID,
				LineItems: []billing.LineItemParams{{Description: "Peel", Quantity: 1, UnitAmount: medspa.Ptr[int64](1)}}})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "POST", Path: invoices, Body: `{"patientId":"` + wiretest.PatientID +
				`","lineItems":[{"description":"Peel","quantity":1,"unitAmount":1}]}`},
			Status: 201, Answer: invoiceJSON,
		},
	}, {
		Name: "Invoices.Get",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Invoices.Get(ctx, wiretest.InvoiceID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: invoices + "/" + wiretest.InvoiceID}, Answer: invoiceJSON},
		Check:    isInvoice,
	}, {
		Name: "Invoices.List with every filter",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Invoices.List(ctx, &billing.InvoiceListParams{PatientID: wiretest.PatientID, Status: []billing.InvoiceStatus{billing.InvoiceOpen,
				billing.InvoicePartiallyPaid}, CreatedFrom: wiretest.OddTime, CreatedTo: wiretest.OddTime.Add(time.Second), Sort: billing.SortCreatedDesc})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "GET", Path: invoices, Query: "createdFrom=" + wiretest.OddTimeQuery +
				"&createdTo=2026-11-22T14%3A03%3A01Z&patientId=" + wiretest.PatientID + "&sort=-createdAt&status=open%2Cpartially_paid"},
			Answer: wiretest.Page(invoiceJSON, 1, 1, 25),
		},
		Check: func(t *testing.T, got any) { isInvoice(t, &got.(*client.Page[billing.Invoice]).Data[0]) },
	}, {
		Name: "Invoices.All walks the pages",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return wiretest.Count(c.Invoices.All(ctx, &billing.InvoiceListParams{ListOptions: client.ListOptions{Page: 3, PerPage: 1}}))
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: invoices, Query: "page=3&perPage=1"},
			Answer: wiretest.Page(`{"id":"inv_3"}`, 4, 3, 1)},
		Then: []wiretest.Exchange{{Want: wiretest.Want{Method: "GET", Path: invoices, Query: "page=4&perPage=1"},
			Answer: wiretest.Page(`{"id":"inv_4"}`, 4, 4, 1)}},
		Check: wiretest.Yielded(2),
	}, {
		Name: "Payments.Create",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: wiretest.InvoiceID, Amount: 32475, Method: billing.MethodCard,
				CardToken: billing.TokenVisa}, medspa.WithIdempotencyKey("order-77-payment"))
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "POST", Path: payments,
				Body: `{"invoiceId":"` + wiretest.InvoiceID + `","amount":32475,"method":"card","cardToken":"tok_visa"}`},
			Status: 201, Answer: paymentJSON,
		},
		Check: isPayment,
	}, {
		Name: "Payments.Get",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Payments.Get(ctx, wiretest.PaymentID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: payments + "/" + wiretest.PaymentID}, Answer: paymentJSON},
		Check:    isPayment,
	}, {
		Name: "Payments.Create declined",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: wiretest.InvoiceID, Amount: 1, Method: billing.MethodCard,
				CardToken: billing.TokenDecline})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "POST", Path: payments,
				Body: `{"invoiceId":"` + wiretest.InvoiceID + `","amount":1,"method":"card","cardToken":"tok_decline"}`},
			Status: 402, Answer: `{"type":"https://docs.medspa.dev/errors/card_declined","title":"Card declined","status":402,` +
				`"code":"card_declined","requestId":"req_1","paymentId":"` + wiretest.PaymentID + `","declineCode":"generic_decline"}`,
		},
		Err: func(t *testing.T, err error) {
			var e *medspa.Error
			if !errors.Is(err, medspa.ErrCardDeclined) || !errors.As(err, &e) || e.PaymentID != wiretest.PaymentID || e.DeclineCode != "generic_decline" {
				t.Errorf("err %v", err)
			}
		},
	}, {
		// An odd answer: an amount too large for int64. The error names the field, not the number.
		Name: "Invoices.Get with an overflowing total",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Invoices.Get(ctx, wiretest.InvoiceID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: invoices + "/" + wiretest.InvoiceID},
			Answer: `{"id":"x","total":99999999999999999999999}`},
		Err: func(t *testing.T, err error) { wiretest.OneLine(t, err, "99999") },
	}})
	wiretest.RunRefused(t, map[string]func(context.Context, *medspa.Client) error{
		"Invoices.List an unknown status": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Invoices.List(ctx, &billing.InvoiceListParams{Status: []billing.InvoiceStatus{billing.InvoiceOpen, "unpaid"}})
			return err
		},
		"Invoices.List an unknown sort": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Invoices.List(ctx, &billing.InvoiceListParams{Sort: "total"})
			return err
		},
		"Payments.Create an unknown method": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: wiretest.InvoiceID, Amount: 100, Method: "bitcoin"})
			return err
		},
		"Invoices.Get empty id": func(ctx context.Context, c *medspa.Client) error { _, _, err := c.Invoices.Get(ctx, ""); return err },
		"Invoices.Get slash": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Invoices.Get(ctx, "inv_1/void")
			return err
		},
		"Payments.Get empty id": func(ctx context.Context, c *medspa.Client) error { _, _, err := c.Payments.Get(ctx, ""); return err },
		"Payments.Get tab": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Payments.Get(ctx, "pay\t1")
			return err
		},
		"Invoices.Create nil": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Invoices.Create(ctx, nil)
			return err
		},
		"Payments.Create nil": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Payments.Create(ctx, nil)
			return err
		},
	})
}
