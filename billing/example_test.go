package billing_test

import (
	"fmt"

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
