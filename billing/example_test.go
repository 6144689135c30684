package billing_test

import (
	"errors"
	"fmt"
	"log"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/billing"
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
		PatientID: pat.ID, Status: []billing.InvoiceStatus{billing.InvoiceOpen}, Sort: billing.SortCreatedDesc,
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
