package inventory_test

import (
	"errors"
	"fmt"
	"log"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
)

// exampleClient is an SDK client of a fresh in-process mock server.
func exampleClient() *medspa.Client {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	c, _, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}
	return c
}

// Lot-tracked stock is received per lot and used first-expiring-first-out; taking more than is
// on hand is refused with the quantity available.
func ExampleInventoryService_Adjust() {
	c := exampleClient()
	p, _, _ := c.Products.Create(ctx, &inventory.ProductCreateParams{
		SKU: "JUV-VOL", Name: "Juvederm Voluma", Category: inventory.CategoryFiller, Unit: inventory.UnitSyringe,
		Price: 85000, TrackLots: true, ReorderPoint: 2,
	})
	_, _, _ = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: 4, Reason: inventory.ReasonReceived,
		LotNumber: "V-77", ExpiresOn: medspa.NewDate(2028, time.June, 30)})
	_, _, _ = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: 2, Reason: inventory.ReasonReceived,
		LotNumber: "V-12", ExpiresOn: medspa.NewDate(2027, time.December, 31)})

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

// newProduct creates a product for the examples.
func newProduct(c *medspa.Client, sku string, reorderPoint int64) *inventory.Product {
	p, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{
		SKU: sku, Name: "Product " + sku, Category: inventory.CategorySkincare, Price: 4200, ReorderPoint: reorderPoint,
	})
	if err != nil {
		log.Fatal(err)
	}
	return p
}

// Creating a product creates its stock record at location "main", with nothing on hand; a SKU
// in use is refused, whatever its case.
func ExampleProductsService_Create() {
	c := exampleClient()
	p, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{
		SKU: "BTX-100", Name: "Botox 100u", Category: inventory.CategoryNeurotoxin, Unit: inventory.UnitVial,
		Price: 120000, Cost: 60000, ReorderPoint: 5,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.SKU, p.Unit, p.Price, p.Active)

	_, _, err = c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "btx-100", Name: "Again", Category: inventory.CategoryOther, Price: 1})
	fmt.Println(errors.Is(err, medspa.ErrDuplicateSKU))
	// Output:
	// BTX-100 vial 120000 true
	// true
}

func ExampleProductsService_Get() {
	c := exampleClient()
	created := newProduct(c, "SPF-50", 3)
	p, _, err := c.Products.Get(ctx, created.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.SKU, p.Category, p.ReorderPoint)
	// Output: SPF-50 skincare 3
}

// Update is a merge patch: Set changes a field, Null resets an optional one to its default.
func ExampleProductsService_Update() {
	c := exampleClient()
	p := newProduct(c, "SPF-50", 3)
	p, _, err := c.Products.Update(ctx, p.ID, &inventory.ProductUpdateParams{
		Price:        medspa.Set[int64](4500),
		ReorderPoint: medspa.Null[int64](),
		Active:       medspa.Set(false),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Price, p.ReorderPoint, p.Active)
	// Output: 4500 0 false
}

func ExampleProductsService_List() {
	c := exampleClient()
	newProduct(c, "SPF-50", 0)
	newProduct(c, "SPF-30", 0)
	newProduct(c, "SERUM-C", 0)
	page, _, err := c.Products.List(ctx, &inventory.ProductListParams{Q: "spf", Sort: medspa.SortCreatedDesc})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range page.Data {
		fmt.Println(p.SKU)
	}
	// Output:
	// SPF-30
	// SPF-50
}

func ExampleProductsService_All() {
	c := exampleClient()
	for _, sku := range []string{"A-1", "A-2", "A-3"} {
		newProduct(c, sku, 0)
	}
	active := true
	n := 0
	for _, err := range c.Products.All(ctx, &inventory.ProductListParams{Active: &active, ListOptions: medspa.ListOptions{PerPage: 2}}) {
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Println(n, "active products")
	// Output: 3 active products
}

// Stock records are per product and location; LowStock is on hand at or below the reorder point.
func ExampleInventoryService_List() {
	c := exampleClient()
	p := newProduct(c, "SPF-50", 5)
	_, _, _ = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: 12, Reason: inventory.ReasonReceived})
	_, _, _ = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Location: "annex", Delta: 2, Reason: inventory.ReasonReceived})

	page, _, err := c.Inventory.List(ctx, &inventory.StockListParams{ProductID: p.ID})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range page.Data {
		fmt.Println(s.Location, s.OnHand, s.LowStock)
	}
	// Output:
	// main 12 false
	// annex 2 true
}

// All with LowStock walks the records to reorder.
func ExampleInventoryService_All() {
	c := exampleClient()
	for _, sku := range []string{"A-1", "A-2", "A-3"} {
		p := newProduct(c, sku, 2)
		if sku == "A-2" {
			_, _, _ = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: 10, Reason: inventory.ReasonReceived})
		}
	}
	low := true
	for s, err := range c.Inventory.All(ctx, &inventory.StockListParams{LowStock: &low}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(s.SKU, s.OnHand)
	}
	// Output:
	// A-1 0
	// A-3 0
}
