package inventory_test

import (
	"errors"
	"fmt"
	"log"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
)

// exampleClient is an SDK client of a fresh in-process mock server.
func exampleClient() *medspa.Client {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
	if err != nil {
		panic(err)
	}
	c, err := medspa.New(medspa.WithBaseURL(mockserver.InProcessBaseURL), medspa.WithHTTPClient(srv.HTTPClient()), medspa.WithAPIKey(key.Key))
	if err != nil {
		panic(err)
	}
	return c
}

// Lot-tracked stock is received per lot and used first-expiring-first-out; taking more than is
// on hand is refused with the quantity available.
func ExampleStockService_Adjust() {
	c := exampleClient()
	p, _, _ := c.Products.Create(ctx, &inventory.ProductCreateParams{
		SKU: "JUV-VOL", Name: "Juvederm Voluma", Category: inventory.CategoryFiller, Unit: inventory.UnitSyringe,
		Price: 85000, TrackLots: true, ReorderPoint: 2,
	})
	_, _, _ = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: 4, Reason: inventory.ReasonReceived,
		LotNumber: "V-77", ExpiresOn: client.NewDate(2028, time.June, 30)})
	_, _, _ = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: 2, Reason: inventory.ReasonReceived,
		LotNumber: "V-12", ExpiresOn: client.NewDate(2027, time.December, 31)})

	used, _, _ := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: -3, Reason: inventory.ReasonUsed})
	for _, l := range used.Inventory.Lots {
		fmt.Printf("lot %s (expires %s): %d left\n", l.LotNumber, l.ExpiresOn, l.Quantity)
	}
	fmt.Println("on hand:", used.OnHandAfter, "low:", used.Inventory.LowStock)

	_, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: -5, Reason: inventory.ReasonUsed})
	var apiErr *medspa.Error
	if errors.Is(err, medspa.ErrInsufficientStock) && errors.As(err, &apiErr) {
		fmt.Println("refused, available:", *apiErr.Available)
	}
	// Output:
	// lot V-77 (expires 2028-06-30): 3 left
	// on hand: 3 low: false
	// refused, available: 3
}
