// Inventory starts the embedded mock server and walks through stock keeping with the SDK: a
// lot-tracked product received in two lots, stock used first-expiring-first-out, the low-stock
// and expiring-soon views, and an adjustment refused for insufficient stock.
//
//	go run ./examples/inventory
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func printLots(out io.Writer, s inventory.StockRecord) {
	fmt.Fprintf(out, "  %s @ %s: on hand %d (reorder at %d, low=%t)\n", s.SKU, s.Location, s.OnHand, s.ReorderPoint, s.LowStock)
	for _, l := range s.Lots {
		fmt.Fprintf(out, "    lot %s expires %s: %d\n", l.LotNumber, l.ExpiresOn, l.Quantity)
	}
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

	botox, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{
		SKU: "BTX-100", Name: "Botox 100 units", Category: inventory.CategoryNeurotoxin, Unit: inventory.UnitVial,
		Price: 120000, Cost: 52000, TrackLots: true, ReorderPoint: 3,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "product %s (%s), lot-tracked\n", botox.ID, botox.SKU)

	// Two deliveries; the later one expires sooner, so it is used first.
	for _, lot := range []struct {
		number  string
		expires medspa.Date
		qty     int64
	}{
		{"C3401", medspa.NewDate(2027, time.September, 30), 6},
		{"C2988", medspa.NewDate(2027, time.March, 31), 4},
	} {
		a, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{
			ProductID: botox.ID, Delta: lot.qty, Reason: inventory.ReasonReceived,
			LotNumber: lot.number, ExpiresOn: lot.expires, Reference: "PO-1042",
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "received %d of lot %s: on hand %d\n", lot.qty, lot.number, a.OnHandAfter)
	}

	// Using 5 vials takes all 4 of the first-expiring lot and 1 of the next.
	a, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: botox.ID, Delta: -5, Reason: inventory.ReasonUsed})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "used 5 (first-expiring-first-out): on hand %d\n", a.OnHandAfter)
	printLots(out, a.Inventory)

	// Two more damaged from a named lot bring it to the reorder point.
	a, _, err = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: botox.ID, Delta: -2, Reason: inventory.ReasonDamaged, LotNumber: "C3401"})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "damaged 2 of lot C3401: on hand %d, low stock %t\n", a.OnHandAfter, a.Inventory.LowStock)

	lowOnly := true
	fmt.Fprintln(out, "low stock:")
	for s, err := range c.Inventory.All(ctx, &inventory.StockListParams{LowStock: &lowOnly}) {
		if err != nil {
			return err
		}
		printLots(out, s)
	}
	soon, _, err := c.Inventory.List(ctx, &inventory.StockListParams{ExpiringBefore: medspa.NewDate(2028, time.January, 1)})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "records with a lot expiring before 2028: %d\n", soon.Meta.Total)

	_, _, err = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: botox.ID, Delta: -10, Reason: inventory.ReasonUsed})
	var apiErr *medspa.Error
	if errors.Is(err, medspa.ErrInsufficientStock) && errors.As(err, &apiErr) {
		fmt.Fprintf(out, "using 10 refused: insufficient stock, %d available\n", *apiErr.Available)
	} else {
		return fmt.Errorf("expected insufficient stock, got %v", err)
	}
	return nil
}
