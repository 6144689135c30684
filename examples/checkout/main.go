// Checkout starts the embedded mock server and walks a patient through checkout with the SDK:
// an invoice with a product line (which sells stock) and a service line, tax and a discount;
// a declined card (reading the failed payment's id and decline code from the error); a partial
// cash payment; a card payment that completes the invoice; and a refund of part of the card
// payment when the patient brings a serum back (refunds never exceed the payment).
//
//	go run ./examples/checkout
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// money formats minor units of a two-decimal currency.
func money(cents int64, currency string) string {
	return fmt.Sprintf("%d.%02d %s", cents/100, cents%100, currency)
}

func run(ctx context.Context, out io.Writer) error {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
	if err != nil {
		return err
	}
	c, err := medspa.New(medspa.WithBaseURL(ts.URL), medspa.WithAPIKey(key.Key))
	if err != nil {
		return err
	}

	pat, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Grace", LastName: "Hopper", Email: "grace@example.com"})
	if err != nil {
		return err
	}
	serum, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{
		SKU: "SKN-VITC-30", Name: "Vitamin C serum 30 ml", Category: inventory.CategorySkincare, Price: 8900,
	})
	if err != nil {
		return err
	}
	if _, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: serum.ID, Delta: 12, Reason: inventory.ReasonReceived}); err != nil {
		return err
	}

	inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: pat.ID,
		LineItems: []billing.LineItemParams{
			{Description: "Vitamin C serum", Quantity: 2, ProductID: serum.ID}, // the product's price
			{Description: "HydraFacial", Quantity: 1, UnitAmount: medspa.Ptr[int64](19900)},
		},
		TaxRateBps:     825, // 8.25%
		DiscountAmount: 2500,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "invoice %s (%s)\n", inv.ID, inv.Status)
	for _, li := range inv.LineItems {
		fmt.Fprintf(out, "  %-16s %2d × %s = %s\n", li.Description, li.Quantity, money(li.UnitAmount, inv.Currency), money(li.Amount, inv.Currency))
	}
	fmt.Fprintf(out, "  subtotal %s, discount %s, tax %s, total %s\n",
		money(inv.Subtotal, inv.Currency), money(inv.DiscountAmount, inv.Currency), money(inv.Tax, inv.Currency), money(inv.Total, inv.Currency))
	stock, _, err := c.Inventory.List(ctx, &inventory.StockListParams{ProductID: serum.ID})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "serum on hand after the sale: %d\n", stock.Data[0].OnHand)

	// A declined card: the error carries the recorded failed payment and the reason.
	_, _, err = c.Payments.Create(ctx, &billing.PaymentCreateParams{
		InvoiceID: inv.ID, Amount: inv.AmountDue, Method: billing.MethodCard, CardToken: billing.TokenInsufficientFunds,
	})
	var apiErr *medspa.Error
	if !errors.Is(err, medspa.ErrCardDeclined) || !errors.As(err, &apiErr) {
		return fmt.Errorf("expected a declined card, got %v", err)
	}
	fmt.Fprintf(out, "card declined: %s (failed payment %s recorded)\n", apiErr.DeclineCode, apiErr.PaymentID)

	cash, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 10000, Method: billing.MethodCash})
	if err != nil {
		return err
	}
	inv, _, err = c.Invoices.Get(ctx, inv.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "cash %s: %s, paid %s, due %s\n", money(cash.Amount, cash.Currency), inv.Status, money(inv.AmountPaid, inv.Currency), money(inv.AmountDue, inv.Currency))

	card, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{
		InvoiceID: inv.ID, Amount: inv.AmountDue, Method: billing.MethodCard, CardToken: billing.TokenVisa,
	})
	if err != nil {
		return err
	}
	inv, _, err = c.Invoices.Get(ctx, inv.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "card %s (%s •••• %s): %s, paid %s, due %s\n", money(card.Amount, card.Currency), card.Card.Brand, card.Card.Last4,
		inv.Status, money(inv.AmountPaid, inv.Currency), money(inv.AmountDue, inv.Currency))

	_, _, err = c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 100, Method: billing.MethodCash})
	if errors.Is(err, medspa.ErrInvoiceNotPayable) {
		fmt.Fprintln(out, "further payments refused: invoice already paid")
	}

	// The patient brings one serum back unopened: refund its price to the card and put it back
	// on the shelf. The invoice stays paid; what was refunded shows on the payment and the invoice.
	ref, _, err := c.Refunds.Create(ctx, &billing.RefundCreateParams{
		PaymentID: card.ID, Amount: medspa.Ptr(serum.Price), Reason: billing.RefundRequestedByCustomer, Notes: "serum returned unopened",
	})
	if err != nil {
		return err
	}
	if _, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: serum.ID, Delta: 1, Reason: inventory.ReasonReturned, Reference: ref.ID}); err != nil {
		return err
	}
	card, _, err = c.Payments.Get(ctx, card.ID)
	if err != nil {
		return err
	}
	inv, _, err = c.Invoices.Get(ctx, inv.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "refund %s: %s to the card (%s); card refunded %s of %s; invoice %s, refunded %s\n", ref.ID, money(ref.Amount, ref.Currency), ref.Reason,
		money(card.AmountRefunded, card.Currency), money(card.Amount, card.Currency), inv.Status, money(inv.AmountRefunded, inv.Currency))

	// More than is left on the payment is refused, and nothing changes.
	_, _, err = c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: card.ID, Amount: medspa.Ptr(card.Amount - card.AmountRefunded + 1)})
	if errors.Is(err, medspa.ErrAmountExceedsRefundable) {
		fmt.Fprintf(out, "refund over the %s left refused\n", money(card.Amount-card.AmountRefunded, card.Currency))
	}
	refunds, _, err := c.Refunds.List(ctx, &billing.RefundListParams{InvoiceID: inv.ID})
	if err != nil {
		return err
	}
	stock, _, err = c.Inventory.List(ctx, &inventory.StockListParams{ProductID: serum.ID})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "refunds on the invoice: %d; serum on hand: %d\n", refunds.Meta.Total, stock.Data[0].OnHand)
	return nil
}
