package billing_test

import (
	"fmt"

	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/patients"
)

// An invoice computes its amounts in integer cents: tax is rounded half up on the discounted
// subtotal.
func ExampleInvoicesService_Create() {
	c := exampleClient()
	pat, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	inv, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: pat.ID,
		LineItems: []billing.LineItemParams{
			{Description: "Chemical peel", Quantity: 1, UnitAmount: billing.Amount(15000)},
			{Description: "SPF 50", Quantity: 3, UnitAmount: billing.Amount(2999)},
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
