package billing_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/wiretest"
)

const invoiceJSON = `{"id":"` + wiretest.InvoiceID + `","patientId":"` + wiretest.PatientID + `","lineItems":[{"description":"Peel",` +
	`"quantity":2,"unitAmount":15000,"amount":30000}],"taxRateBps":825,"discountAmount":0,"currency":"usd",` +
	`"dueAt":"2026-11-22T14:03:00Z","status":"open","subtotal":30000,"tax":2475,"total":32475,"amountPaid":0,"amountDue":32475,` +
	`"createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-22T10:00:00Z","amountRefunded":0}`

const paymentJSON = `{"id":"` + wiretest.PaymentID + `","invoiceId":"` + wiretest.InvoiceID + `","amount":32475,"currency":"usd",` +
	`"method":"card","status":"succeeded","card":{"brand":"visa","last4":"4242"},"createdAt":"2026-11-22T10:00:00Z"}`

const voidedJSON = `{"id":"` + wiretest.InvoiceID + `","patientId":"` + wiretest.PatientID + `","lineItems":[{"description":"Peel",` +
	`"quantity":2,"unitAmount":15000,"amount":30000}],"taxRateBps":825,"discountAmount":0,"currency":"usd","status":"void",` +
	`"subtotal":30000,"tax":2475,"total":32475,"amountPaid":0,"amountDue":32475,"amountRefunded":0,"voidedAt":"2026-11-23T09:15:00Z",` +
	`"voidReason":"raised in error","createdAt":"2026-11-22T10:00:00Z","updatedAt":"2026-11-23T09:15:00Z"}`

const refundJSON = `{"id":"` + wiretest.RefundID + `","paymentId":"` + wiretest.PaymentID + `","invoiceId":"` + wiretest.InvoiceID + `",` +
	`"amount":2500,"currency":"usd","reason":"duplicate","notes":"double charge","status":"succeeded","createdAt":"2026-11-23T09:15:00Z"}`

// problem is a problem document of code (docs/protocol.md §4) with no extra members, as the
// codes of refunds and voids have none.
func problem(status int, code string) string {
	return `{"type":"https://docs.medspa.dev/errors/` + code + `","title":"x","status":` + strconv.Itoa(status) +
		`,"code":"` + code + `","requestId":"req_wiretest"}`
}

// isAPIError checks that err is a *medspa.Error of status matching sentinel.
func isAPIError(status int, sentinel error) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var e *medspa.Error
		if !errors.As(err, &e) || !errors.Is(err, sentinel) || e.Status != status {
			t.Errorf("err %v, want %d %v", err, status, sentinel)
		}
	}
}

func isRefund(t *testing.T, got any) {
	t.Helper()
	want := &billing.Refund{ID: wiretest.RefundID, PaymentID: wiretest.PaymentID, InvoiceID: wiretest.InvoiceID, Amount: 2500,
		Currency: "usd", Reason: billing.RefundDuplicate, Notes: "double charge", Status: billing.RefundSucceeded,
		CreatedAt: time.Date(2026, 11, 23, 9, 15, 0, 0, time.UTC)}
	wiretest.Equal(want)(t, got)
}

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

// TestWire holds every method of the invoices, payments and refunds services to the protocol
// (docs/protocol.md §2, §3, §9): exactly what they send (dueAt and list bounds as UTC "Z" whole
// seconds), and what they make of the answers.
func TestWire(t *testing.T) {
	t.Parallel()
	invoices, payments, refunds := "/api/v1/invoices", "/api/v1/payments", "/api/v1/refunds"
	void := invoices + "/" + wiretest.InvoiceID + "/void"
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
				billing.InvoicePartiallyPaid}, CreatedFrom: wiretest.OddTime, CreatedTo: wiretest.OddTime.Add(time.Second), Sort: medspa.SortCreatedDesc})
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
		Name: "Invoices.Void with a reason",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Invoices.Void(ctx, wiretest.InvoiceID, &billing.InvoiceVoidParams{Reason: "raised in error"})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "POST", Path: void, Body: `{"reason":"raised in error"}`}, Answer: voidedJSON},
		Check: func(t *testing.T, got any) {
			inv := got.(*billing.Invoice)
			if inv.Status != billing.InvoiceVoid || inv.VoidReason != "raised in error" || !inv.VoidedAt.Equal(time.Date(2026, 11, 23, 9, 15, 0, 0, time.UTC)) ||
				inv.AmountDue != 32475 || inv.AmountPaid != 0 {
				t.Errorf("voided invoice %+v", inv)
			}
		},
	}, {
		Name: "Invoices.Void without params is a bare POST",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Invoices.Void(ctx, wiretest.InvoiceID, nil)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "POST", Path: void}, Answer: voidedJSON},
	}, {
		Name: "Invoices.Void with empty params sends {}",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Invoices.Void(ctx, wiretest.InvoiceID, &billing.InvoiceVoidParams{})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "POST", Path: void, Body: `{}`}, Answer: voidedJSON},
	}, {
		Name: "Invoices.Void of a paid invoice",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Invoices.Void(ctx, wiretest.InvoiceID, nil)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "POST", Path: void}, Status: 409, Answer: problem(409, "invoice_not_voidable")},
		Err:      isAPIError(409, medspa.ErrInvoiceNotVoidable),
	}, {
		// A newer server's status: the SDK decodes what it does not know yet (forward
		// compatibility, docs/protocol.md §1) and refuses it only in params.
		Name: "Invoices.Get with a status this SDK does not know",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Invoices.Get(ctx, wiretest.InvoiceID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: invoices + "/" + wiretest.InvoiceID},
			Answer: `{"id":"` + wiretest.InvoiceID + `","status":"written_off","total":100,"amountDue":100}`},
		Check: func(t *testing.T, got any) {
			if inv := got.(*billing.Invoice); inv.Status != "written_off" || inv.AmountRefunded != 0 {
				t.Errorf("invoice %+v", inv)
			}
		},
	}, {
		Name: "Payments.List with every filter",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Payments.List(ctx, &billing.PaymentListParams{ListOptions: client.ListOptions{Page: 2, PerPage: 10}, InvoiceID: wiretest.InvoiceID,
				Status: []billing.PaymentStatus{billing.PaymentSucceeded, billing.PaymentFailed}, Method: []billing.PaymentMethod{billing.MethodCard, billing.MethodGiftCard},
				CreatedFrom: wiretest.OddTime, CreatedTo: wiretest.OddTime.Add(time.Hour), Sort: medspa.SortCreatedDesc})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "GET", Path: payments, Query: "createdFrom=" + wiretest.OddTimeQuery + "&createdTo=2026-11-22T15%3A03%3A00Z" +
				"&invoiceId=" + wiretest.InvoiceID + "&method=card%2Cgift_card&page=2&perPage=10&sort=-createdAt&status=succeeded%2Cfailed"},
			Answer: wiretest.Page(paymentJSON, 11, 2, 10),
		},
		Check: func(t *testing.T, got any) {
			page := got.(*client.Page[billing.Payment])
			isPayment(t, &page.Data[0])
			if page.Meta.Total != 11 || page.HasMore() {
				t.Errorf("meta %+v", page.Meta)
			}
		},
	}, {
		Name: "Payments.List without params sends no query",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Payments.List(ctx, nil)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: payments}, Answer: wiretest.Page("", 0, 1, 25)},
	}, {
		Name: "Payments.All walks the pages",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return wiretest.Count(c.Payments.All(ctx, &billing.PaymentListParams{InvoiceID: wiretest.InvoiceID, ListOptions: client.ListOptions{PerPage: 2}}))
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: payments, Query: "invoiceId=" + wiretest.InvoiceID + "&page=1&perPage=2"},
			Answer: wiretest.Page(`{"id":"pay_1"},{"id":"pay_2"}`, 3, 1, 2)},
		Then: []wiretest.Exchange{{Want: wiretest.Want{Method: "GET", Path: payments, Query: "invoiceId=" + wiretest.InvoiceID + "&page=2&perPage=2"},
			Answer: wiretest.Page(`{"id":"pay_3","amountRefunded":100}`, 3, 2, 2)}},
		Check: wiretest.Yielded(3),
	}, {
		Name: "Refunds.Create with every field",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: wiretest.PaymentID, Amount: medspa.Ptr[int64](2500), Reason: billing.RefundDuplicate,
				Notes: "double charge"})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "POST", Path: refunds,
				Body: `{"paymentId":"` + wiretest.PaymentID + `","amount":2500,"reason":"duplicate","notes":"double charge"}`},
			Status: 201, Answer: refundJSON,
		},
		Check: isRefund,
	}, {
		// A computed amount of 0 goes to the wire as 0 (and is refused there), never as "all".
		Name: "Refunds.Create of zero sends 0",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: wiretest.PaymentID, Amount: medspa.Ptr[int64](0)})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "POST", Path: refunds, Body: `{"paymentId":"` + wiretest.PaymentID + `","amount":0}`},
			Status: 422, Answer: `{"type":"https://docs.medspa.dev/errors/validation_error","title":"Validation failed","status":422,` +
				`"code":"validation_error","errors":[{"pointer":"/amount","code":"out_of_range","detail":"must be between 1 and 9223372036854775807"}]}`},
		Err: isAPIError(422, medspa.ErrValidation),
	}, {
		Name: "Refunds.Create of what is left sends no amount",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: wiretest.PaymentID}, medspa.WithIdempotencyKey("refund-order-77"))
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "POST", Path: refunds, Body: `{"paymentId":"` + wiretest.PaymentID + `"}`},
			Status: 201, Answer: refundJSON},
	}, {
		Name: "Refunds.Create over what is left",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: wiretest.PaymentID, Amount: medspa.Ptr[int64](99999)})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "POST", Path: refunds, Body: `{"paymentId":"` + wiretest.PaymentID + `","amount":99999}`},
			Status: 422, Answer: problem(422, "amount_exceeds_refundable")},
		Err: isAPIError(422, medspa.ErrAmountExceedsRefundable),
	}, {
		Name: "Refunds.Create of a failed payment",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: wiretest.PaymentID})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "POST", Path: refunds, Body: `{"paymentId":"` + wiretest.PaymentID + `"}`},
			Status: 409, Answer: problem(409, "payment_not_refundable")},
		Err: isAPIError(409, medspa.ErrPaymentNotRefundable),
	}, {
		Name: "Refunds.Get",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Refunds.Get(ctx, wiretest.RefundID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: refunds + "/" + wiretest.RefundID}, Answer: refundJSON},
		Check:    isRefund,
	}, {
		Name: "Refunds.Get with a reason this SDK does not know",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Refunds.Get(ctx, wiretest.RefundID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: refunds + "/" + wiretest.RefundID},
			Answer: `{"id":"` + wiretest.RefundID + `","reason":"chargeback","status":"pending","amount":1}`},
		Check: func(t *testing.T, got any) {
			if r := got.(*billing.Refund); r.Reason != "chargeback" || r.Status != "pending" {
				t.Errorf("refund %+v", r)
			}
		},
	}, {
		Name: "Refunds.List with every filter",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Refunds.List(ctx, &billing.RefundListParams{PaymentID: wiretest.PaymentID, InvoiceID: wiretest.InvoiceID, Sort: medspa.SortCreatedDesc,
				ListOptions: client.ListOptions{PerPage: 100}})
		},
		Exchange: wiretest.Exchange{
			Want:   wiretest.Want{Method: "GET", Path: refunds, Query: "invoiceId=" + wiretest.InvoiceID + "&paymentId=" + wiretest.PaymentID + "&perPage=100&sort=-createdAt"},
			Answer: wiretest.Page(refundJSON, 1, 1, 100),
		},
		Check: func(t *testing.T, got any) { isRefund(t, &got.(*client.Page[billing.Refund]).Data[0]) },
	}, {
		Name: "Refunds.All walks the pages",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return wiretest.Count(c.Refunds.All(ctx, &billing.RefundListParams{PaymentID: wiretest.PaymentID}))
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: refunds, Query: "page=1&paymentId=" + wiretest.PaymentID},
			Answer: wiretest.Page(`{"id":"ref_1"}`, 2, 1, 1)},
		Then: []wiretest.Exchange{{Want: wiretest.Want{Method: "GET", Path: refunds, Query: "page=2&paymentId=" + wiretest.PaymentID},
			Answer: wiretest.Page(`{"id":"ref_2"}`, 2, 2, 1)}},
		Check: wiretest.Yielded(2),
	}, {
		// An odd answer: an amount too large for int64. The error names the field, not the number.
		Name: "Refunds.Get with an overflowing amount",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Refunds.Get(ctx, wiretest.RefundID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: refunds + "/" + wiretest.RefundID},
			Answer: `{"id":"x","amount":99999999999999999999999,"notes":"double charge"}`},
		Err: func(t *testing.T, err error) { wiretest.OneLine(t, err, "99999", "double charge") },
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
		"Invoices.Void empty id": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Invoices.Void(ctx, "", nil)
			return err
		},
		"Invoices.Void dot-dot": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Invoices.Void(ctx, "..", &billing.InvoiceVoidParams{Reason: "x"})
			return err
		},
		"Payments.List an unknown status": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Payments.List(ctx, &billing.PaymentListParams{Status: []billing.PaymentStatus{"refunded"}})
			return err
		},
		"Payments.List an unknown method": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Payments.List(ctx, &billing.PaymentListParams{Method: []billing.PaymentMethod{billing.MethodCash, "crypto"}})
			return err
		},
		"Payments.All an unknown sort": func(ctx context.Context, c *medspa.Client) error {
			for _, err := range c.Payments.All(ctx, &billing.PaymentListParams{Sort: "amount"}) {
				return err
			}
			return nil
		},
		"Refunds.Create nil": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Refunds.Create(ctx, nil)
			return err
		},
		"Refunds.Create an unknown reason": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: wiretest.PaymentID, Reason: "chargeback"})
			return err
		},
		"Refunds.Get empty id": func(ctx context.Context, c *medspa.Client) error { _, _, err := c.Refunds.Get(ctx, ""); return err },
		"Refunds.Get slash": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Refunds.Get(ctx, "ref_1/x")
			return err
		},
		"Refunds.List an unknown sort": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Refunds.List(ctx, &billing.RefundListParams{Sort: "-amount"})
			return err
		},
		"Refunds.All an unknown sort": func(ctx context.Context, c *medspa.Client) error {
			for _, err := range c.Refunds.All(ctx, &billing.RefundListParams{Sort: "-amount"}) {
				return err
			}
			return nil
		},
	})
}
