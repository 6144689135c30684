package billing_test

import (
	"errors"
	"fmt"
	"log"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/patients"
)

// An invoice computes its amounts in integer cents: tax is rounded half up on the discounted
// subtotal.
func ExampleInvoicesService_Create() {
	c := exampleClient()
	pat, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: pat.ID,
		LineItems: []billing.LineItemParams{
			{Description: "Chemical peel", Quantity: 1, UnitAmount: medspa.Ptr[int64](15000)},
			{Description: "SPF 50", Quantity: 3, UnitAmount: medspa.Ptr[int64](2999)},
		},
		TaxRateBps:     825, // 8.25%
		DiscountAmount: 1000,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("subtotal", inv.Subtotal, "discount", inv.DiscountAmount, "tax", inv.Tax, "total", inv.Total, inv.Status)
	// Output:
	// subtotal 23997 discount 1000 tax 1897 total 24894 open
}

// Payments settle an invoice in parts; the invoice's status and amounts follow.
func ExamplePaymentsService_Create() {
	c := exampleClient()
	pat, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	inv, _, _ := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: pat.ID,
		LineItems: []billing.LineItemParams{{Description: "Hydrafacial", Quantity: 1, UnitAmount: medspa.Ptr[int64](19900)}},
	})

	cash, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 5000, Method: billing.MethodCash})
	if err != nil {
		fmt.Println(err)
		return
	}
	inv, _, _ = c.Invoices.Get(ctx, inv.ID)
	fmt.Println(cash.Method, cash.Status, inv.Status, inv.AmountDue)

	card, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{
		InvoiceID: inv.ID, Amount: inv.AmountDue, Method: billing.MethodCard, CardToken: billing.TokenMastercard,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	inv, _, _ = c.Invoices.Get(ctx, inv.ID)
	fmt.Println(card.Card.Brand, card.Card.Last4, card.Amount, inv.Status, inv.AmountDue)
	// Output:
	// cash succeeded partially_paid 14900
	// mastercard 4444 14900 paid 0
}

// A declined card is an error matching medspa.ErrCardDeclined, with the failed payment's id
// and the reason; the failed payment is recorded.
func ExamplePaymentsService_Create_declined() {
	c := exampleClient()
	pat, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	inv, _, _ := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: pat.ID,
		LineItems: []billing.LineItemParams{{Description: "Hydrafacial", Quantity: 1, UnitAmount: medspa.Ptr[int64](19900)}},
	})

	_, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{
		InvoiceID: inv.ID, Amount: inv.AmountDue, Method: billing.MethodCard, CardToken: billing.TokenInsufficientFunds,
	})
	var apiErr *medspa.Error
	if errors.Is(err, medspa.ErrCardDeclined) && errors.As(err, &apiErr) {
		fmt.Println("declined:", apiErr.DeclineCode)
	}
	// Output: declined: insufficient_funds
}

// Get fetches a payment, here the failed one a declined card recorded.
func ExamplePaymentsService_Get() {
	c := exampleClient()
	pat, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	inv, _, _ := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "Peel", Quantity: 1, UnitAmount: medspa.Ptr[int64](9900)}},
	})
	_, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{
		InvoiceID: inv.ID, Amount: 9900, Method: billing.MethodCard, CardToken: billing.TokenDecline,
	})
	var apiErr *medspa.Error
	if !errors.As(err, &apiErr) {
		log.Fatal(err)
	}
	failed, _, err := c.Payments.Get(ctx, apiErr.PaymentID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(failed.Status, failed.DeclineCode, failed.Amount, failed.InvoiceID == inv.ID)
	// Output: failed generic_decline 9900 true
}

// Get returns the invoice as it is now: payments move its status and amounts.
func ExampleInvoicesService_Get() {
	c := exampleClient()
	pat, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	inv, _, _ := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "Peel", Quantity: 2, UnitAmount: medspa.Ptr[int64](5000)}},
	})
	_, _, _ = c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 4000, Method: billing.MethodCash})

	got, _, err := c.Invoices.Get(ctx, inv.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.Status, got.Total, got.AmountPaid, got.AmountDue)
	// Output: partially_paid 10000 4000 6000
}

// List filters invoices by patient and statuses, newest first.
func ExampleInvoicesService_List() {
	c := exampleClient()
	pat, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	for _, amount := range []int64{1000, 2000, 0} { // a zero total is paid at once
		_, _, _ = c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
			PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "Item", Quantity: 1, UnitAmount: medspa.Ptr(amount)}},
		})
	}
	page, _, err := c.Invoices.List(ctx, &billing.InvoiceListParams{
		PatientID: pat.ID, Status: []billing.InvoiceStatus{billing.InvoiceOpen}, Sort: medspa.SortCreatedDesc,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, inv := range page.Data {
		fmt.Println(inv.Total, inv.Status)
	}
	// Output:
	// 2000 open
	// 1000 open
}

// All walks every invoice, fetching pages as the loop goes.
func ExampleInvoicesService_All() {
	c := exampleClient()
	pat, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	for i := range 3 {
		_, _, _ = c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
			PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "Visit", Quantity: int64(i + 1), UnitAmount: medspa.Ptr[int64](1500)}},
		})
	}
	var total int64
	for inv, err := range c.Invoices.All(ctx, &billing.InvoiceListParams{ListOptions: medspa.ListOptions{PerPage: 2}}) {
		if err != nil {
			log.Fatal(err)
		}
		total += inv.Total
	}
	fmt.Println("invoiced", total)
	// Output: invoiced 9000
}

// Void voids an open invoice with nothing paid: the stock its product lines sold goes back, in
// the same step. A paid (or partly paid) invoice cannot be voided.
func ExampleInvoicesService_Void() {
	c := exampleClient()
	pat, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	serum, _, _ := c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "SER-1", Name: "Serum", Category: inventory.CategorySkincare, Price: 4900})
	_, _, _ = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: serum.ID, Delta: 10, Reason: inventory.ReasonReceived})
	inv, _, _ := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "Serum", Quantity: 3, ProductID: serum.ID}},
	})
	stock := func() int64 {
		page, _, _ := c.Inventory.List(ctx, &inventory.StockListParams{ProductID: serum.ID})
		return page.Data[0].OnHand
	}
	fmt.Println("on hand after the sale:", stock())

	voided, _, err := c.Invoices.Void(ctx, inv.ID, &billing.InvoiceVoidParams{Reason: "raised in error"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(voided.Status, voided.VoidReason, !voided.VoidedAt.IsZero(), "total", voided.Total)
	fmt.Println("on hand after the void:", stock())

	// A void invoice takes no payments, and a paid one cannot be voided.
	_, _, err = c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 100, Method: billing.MethodCash})
	fmt.Println(errors.Is(err, medspa.ErrInvoiceNotPayable))
	paid, _, _ := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "Peel", Quantity: 1, UnitAmount: medspa.Ptr[int64](9900)}},
	})
	_, _, _ = c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: paid.ID, Amount: 9900, Method: billing.MethodCash})
	_, _, err = c.Invoices.Void(ctx, paid.ID, nil) // no reason: a bare POST
	fmt.Println(errors.Is(err, medspa.ErrInvoiceNotVoidable))
	// Output:
	// on hand after the sale: 7
	// void raised in error true total 14700
	// on hand after the void: 10
	// true
	// true
}

// List filters payments by invoice, status and method; failed card payments are listed too.
func ExamplePaymentsService_List() {
	c := exampleClient()
	pat, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	inv, _, _ := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "Peel", Quantity: 1, UnitAmount: medspa.Ptr[int64](20000)}},
	})
	_, _, _ = c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 5000, Method: billing.MethodCard, CardToken: billing.TokenDecline})
	_, _, _ = c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 5000, Method: billing.MethodCash})
	_, _, _ = c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 15000, Method: billing.MethodCard, CardToken: billing.TokenAmex})

	page, _, err := c.Payments.List(ctx, &billing.PaymentListParams{
		InvoiceID: inv.ID, Method: []billing.PaymentMethod{billing.MethodCard}, Sort: medspa.SortCreatedDesc,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range page.Data {
		fmt.Println(p.Method, p.Status, p.Amount)
	}
	page, _, _ = c.Payments.List(ctx, &billing.PaymentListParams{Status: []billing.PaymentStatus{billing.PaymentSucceeded}})
	fmt.Println("succeeded:", page.Meta.Total)
	// Output:
	// card succeeded 15000
	// card failed 5000
	// succeeded: 2
}

// All walks every payment, fetching pages as the loop goes: here, what was collected.
func ExamplePaymentsService_All() {
	c := exampleClient()
	pat, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	for _, amount := range []int64{1500, 2500, 4000} {
		inv, _, _ := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
			PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "Visit", Quantity: 1, UnitAmount: medspa.Ptr(amount)}},
		})
		_, _, _ = c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: amount, Method: billing.MethodCash})
	}
	var collected int64
	params := &billing.PaymentListParams{ListOptions: medspa.ListOptions{PerPage: 2}, Status: []billing.PaymentStatus{billing.PaymentSucceeded}}
	for p, err := range c.Payments.All(ctx, params) {
		if err != nil {
			log.Fatal(err)
		}
		collected += p.Amount - p.AmountRefunded
	}
	fmt.Println("collected", collected)
	// Output: collected 8000
}

// paidInvoice returns a new invoice of amount, paid in full by card, and its payment.
func paidInvoice(c *medspa.Client, amount int64) (*billing.Invoice, *billing.Payment) {
	pat, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	if err != nil {
		log.Fatal(err)
	}
	inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "Filler", Quantity: 1, UnitAmount: medspa.Ptr(amount)}},
	})
	if err != nil {
		log.Fatal(err)
	}
	pay, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: amount, Method: billing.MethodCard, CardToken: billing.TokenVisa})
	if err != nil {
		log.Fatal(err)
	}
	return inv, pay
}

// Create refunds part of a payment, then the rest (no amount: what is left). The payment and
// its invoice count what was refunded; the invoice stays paid.
func ExampleRefundsService_Create() {
	c := exampleClient()
	inv, pay := paidInvoice(c, 60000)

	part, _, err := c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID, Amount: medspa.Ptr[int64](15000), Reason: billing.RefundDuplicate})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(part.Amount, part.Reason, part.Status)
	rest, _, err := c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rest.Amount, rest.Reason)

	pay, _, _ = c.Payments.Get(ctx, pay.ID)
	inv, _, _ = c.Invoices.Get(ctx, inv.ID)
	fmt.Println("payment refunded", pay.AmountRefunded, "invoice", inv.Status, inv.AmountPaid, inv.AmountRefunded)
	// Output:
	// 15000 duplicate succeeded
	// 45000 requested_by_customer
	// payment refunded 60000 invoice paid 60000 60000
}

// Refunds never exceed the payment: more than is left is medspa.ErrAmountExceedsRefundable, and a
// payment refunded in full (or a failed one) is medspa.ErrPaymentNotRefundable.
func ExampleRefundsService_Create_refused() {
	c := exampleClient()
	_, pay := paidInvoice(c, 10000)
	_, _, err := c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID, Amount: medspa.Ptr[int64](10001)})
	fmt.Println(errors.Is(err, medspa.ErrAmountExceedsRefundable))
	_, _, _ = c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID})
	_, _, err = c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID, Amount: medspa.Ptr[int64](1)})
	fmt.Println(errors.Is(err, medspa.ErrPaymentNotRefundable))
	// Output:
	// true
	// true
}

// Get fetches a refund; its notes are PHI, kept on the refund and never carried by events.
func ExampleRefundsService_Get() {
	c := exampleClient()
	_, pay := paidInvoice(c, 25000)
	ref, _, _ := c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID, Amount: medspa.Ptr[int64](5000), Notes: "goodwill gesture"})

	got, _, err := c.Refunds.Get(ctx, ref.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.PaymentID == pay.ID, got.Amount, got.Currency, got.Notes)
	// Output: true 5000 usd goodwill gesture
}

// List filters refunds by payment or invoice, newest first.
func ExampleRefundsService_List() {
	c := exampleClient()
	inv, pay := paidInvoice(c, 30000)
	for _, amount := range []int64{1000, 2000, 3000} {
		_, _, _ = c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID, Amount: medspa.Ptr(amount)})
	}
	page, _, err := c.Refunds.List(ctx, &billing.RefundListParams{InvoiceID: inv.ID, Sort: medspa.SortCreatedDesc})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range page.Data {
		fmt.Println(r.Amount)
	}
	// Output:
	// 3000
	// 2000
	// 1000
}

// All walks every refund, fetching pages as the loop goes.
func ExampleRefundsService_All() {
	c := exampleClient()
	_, pay := paidInvoice(c, 30000)
	for range 5 {
		_, _, _ = c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID, Amount: medspa.Ptr[int64](1000)})
	}
	var refunded int64
	for r, err := range c.Refunds.All(ctx, &billing.RefundListParams{PaymentID: pay.ID, ListOptions: medspa.ListOptions{PerPage: 2}}) {
		if err != nil {
			log.Fatal(err)
		}
		refunded += r.Amount
	}
	fmt.Println("refunded", refunded)
	// Output: refunded 5000
}
