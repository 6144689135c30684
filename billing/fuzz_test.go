package billing_test

import (
	"net/http"
	"strings"
	"testing"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

// FuzzBillingBodies sends arbitrary bodies to create invoices and payments (in-process): the
// answer is never a 5xx, every error is a problem document, and a rejected request changes
// nothing (invoice count, stock, the invoice's amounts).
func FuzzBillingBodies(f *testing.F) {
	for _, seed := range []string{
		`{"lineItems":[{"description":"x","quantity":1,"unitAmount":100}]}`,
		`{"lineItems":[{"description":"x","quantity":2,"productId":"@prd"}],"taxRateBps":825,"discountAmount":10}`,
		`{"lineItems":[{"description":"x","quantity":10000,"unitAmount":9223372036854775807}],"taxRateBps":10000}`,
		`{"lineItems":[{"description":"x","quantity":1,"unitAmount":1}],"discountAmount":2,"currency":"eur","dueAt":"2030-01-01T00:00:00+05:00"}`,
		`{"amount":50,"method":"cash"}`, `{"amount":1,"method":"card","cardToken":"tok_decline"}`, `{"amount":1e400,"method":"card"}`,
		`{"amount":99999,"method":"check","currency":"usd"}`, `[]`, `null`, "\xff", `{"a":1,"a":1}`, `{"lineItems":[{}]}`,
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	srv, err := mockserver.New()
	if err != nil {
		f.Fatal(err)
	}
	c, key := testenv.Unlimited(f, srv) // an exhausted plan would stall the fuzzer on 429 waits
	pat, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "A", LastName: "B", Email: "a@b.co"})
	if err != nil {
		f.Fatal(err)
	}
	prd, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "F", Name: "F", Category: inventory.CategoryOther, Price: 300})
	if err != nil {
		f.Fatal(err)
	}
	if _, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: prd.ID, Delta: 1_000_000, Reason: inventory.ReasonReceived}); err != nil {
		f.Fatal(err)
	}
	inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: pat.ID, LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr[int64](1_000_000)}}})
	if err != nil {
		f.Fatal(err)
	}
	hc := srv.HTTPClient()
	send := func(t *testing.T, path string, body []byte) int {
		status, _ := testenv.Send(t, hc, http.MethodPost, mockserver.InProcessBaseURL+path, key.Key, "application/json", body)
		return status
	}
	onHand := func() int64 {
		page, _, _ := c.Inventory.List(ctx, &inventory.StockListParams{ProductID: prd.ID})
		return page.Data[0].OnHand
	}
	f.Fuzz(func(t *testing.T, body []byte, payment bool) {
		b := strings.ReplaceAll(string(body), "@prd", prd.ID)
		if !payment {
			b = strings.Replace(b, "{", `{"patientId":"`+pat.ID+`",`, 1)
			before, _, _ := c.Invoices.List(ctx, nil)
			stock := onHand()
			status := send(t, "/api/v1/invoices", []byte(b))
			after, _, _ := c.Invoices.List(ctx, nil)
			if status != http.StatusCreated && (after.Meta.Total != before.Meta.Total || onHand() != stock) {
				t.Fatalf("rejected (%d) but changed: invoices %d → %d, stock %d → %d", status, before.Meta.Total, after.Meta.Total, stock, onHand())
			}
			return
		}
		b = strings.Replace(b, "{", `{"invoiceId":"`+inv.ID+`",`, 1)
		before, _, _ := c.Invoices.Get(ctx, inv.ID)
		status := send(t, "/api/v1/payments", []byte(b))
		after, _, _ := c.Invoices.Get(ctx, inv.ID)
		if status != http.StatusCreated && (after.AmountPaid != before.AmountPaid || after.Status != before.Status) {
			t.Fatalf("rejected (%d) but changed the invoice: %+v → %+v", status, before, after)
		}
		if after.AmountPaid > after.Total || after.AmountDue != after.Total-after.AmountPaid {
			t.Fatalf("invoice amounts broken: %+v", after)
		}
	})
}
