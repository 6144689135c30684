package inventory_test

import (
	"context"
	"errors"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/wiretest"
	"github.com/medspa/medspa-go/inventory"
)

const productJSON = `{"id":"` + wiretest.ProductID + `","sku":"JUV-VOL","name":"Juvederm Voluma","category":"filler","unit":"syringe",` +
	`"price":85000,"currency":"usd","trackLots":true,"reorderPoint":2,"active":true,"createdAt":"2026-11-22T10:00:00Z",` +
	`"updatedAt":"2026-11-22T10:00:00Z","supplier":"acme"}`

const stockJSON = `{"id":"` + wiretest.StockID + `","productId":"` + wiretest.ProductID + `","sku":"JUV-VOL","location":"main",` +
	`"onHand":4,"reorderPoint":2,"lowStock":false,"lots":[{"lotNumber":"V-77","expiresOn":"2028-06-30","quantity":4}],` +
	`"updatedAt":"2026-11-22T10:00:00Z"}`

const adjustmentJSON = `{"id":"` + wiretest.AdjustmentID + `","productId":"` + wiretest.ProductID + `","location":"main","delta":4,` +
	`"reason":"received","lotNumber":"V-77","expiresOn":"2028-06-30","onHandAfter":4,"createdAt":"2026-11-22T10:00:00Z",` +
	`"inventory":` + stockJSON + `}`

func isProduct(t *testing.T, got any) {
	t.Helper()
	if p := got.(*inventory.Product); p.ID != wiretest.ProductID || p.Category != inventory.CategoryFiller || p.Price != 85000 || !p.TrackLots || !p.Active {
		t.Errorf("product %+v", p)
	}
}

func isStock(t *testing.T, s *inventory.StockRecord) {
	t.Helper()
	if s.ID != wiretest.StockID || s.OnHand != 4 || len(s.Lots) != 1 || s.Lots[0].ExpiresOn != client.NewDate(2028, time.June, 30) {
		t.Errorf("stock record %+v", s)
	}
}

// TestWire holds every method of the products and inventory services to the protocol
// (docs/protocol.md §2, §3, §9): exactly what they send, and what they make of the answers.
func TestWire(t *testing.T) {
	t.Parallel()
	products, stock := "/api/v1/products", "/api/v1/inventory"
	no := false
	wiretest.Run(t, []wiretest.Case{{
		Name: "Products.Create",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "JUV-VOL", Name: "Juvederm Voluma", Category: inventory.CategoryFiller,
				Unit: inventory.UnitSyringe, Price: 85000, TrackLots: true, ReorderPoint: 2, Active: medspa.Ptr(true)})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "POST", Path: products, Body: `{"sku":"JUV-VOL","name":"Juvederm Voluma","category":"filler",` +
				`"unit":"syringe","price":85000,"trackLots":true,"reorderPoint":2,"active":true}`},
			Status: 201, Answer: productJSON,
		},
		Check: isProduct,
	}, {
		Name: "Products.Get",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Products.Get(ctx, wiretest.ProductID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: products + "/" + wiretest.ProductID}, Answer: productJSON},
		Check:    isProduct,
	}, {
		Name: "Products.Update",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Products.Update(ctx, wiretest.ProductID, &inventory.ProductUpdateParams{Price: client.Set[int64](90000), Cost: client.Null[int64](),
				Active: client.Set(false)})
		},
		Exchange: wiretest.Exchange{
			Want:   wiretest.Want{Method: "PATCH", Path: products + "/" + wiretest.ProductID, Body: `{"price":90000,"cost":null,"active":false}`},
			Answer: productJSON,
		},
		Check: isProduct,
	}, {
		Name: "Products.List with every filter",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Products.List(ctx, &inventory.ProductListParams{Category: inventory.CategoryFiller, Q: "juv & co", Active: &no,
				Sort: medspa.SortCreatedDesc})
		},
		Exchange: wiretest.Exchange{
			Want:   wiretest.Want{Method: "GET", Path: products, Query: "active=false&category=filler&q=juv+%26+co&sort=-createdAt"},
			Answer: wiretest.Page(productJSON, 1, 1, 25),
		},
		Check: func(t *testing.T, got any) { isProduct(t, &got.(*client.Page[inventory.Product]).Data[0]) },
	}, {
		Name: "Products.All walks the pages",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return wiretest.Count(c.Products.All(ctx, nil))
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: products, Query: "page=1"},
			Answer: wiretest.Page(`{"id":"prd_1"}`, 2, 1, 1)},
		Then: []wiretest.Exchange{{Want: wiretest.Want{Method: "GET", Path: products, Query: "page=2"},
			Answer: wiretest.Page(`{"id":"prd_2"}`, 2, 2, 1)}},
		Check: wiretest.Yielded(2),
	}, {
		Name: "Inventory.List with every filter",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Inventory.List(ctx, &inventory.StockListParams{ProductID: wiretest.ProductID, Location: "front desk", LowStock: medspa.Ptr(true),
				ExpiringBefore: client.NewDate(2028, time.July, 1)})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "GET", Path: stock,
				Query: "expiringBefore=2028-07-01&location=front+desk&lowStock=true&productId=" + wiretest.ProductID},
			Answer: wiretest.Page(stockJSON, 1, 1, 25),
		},
		Check: func(t *testing.T, got any) { isStock(t, &got.(*client.Page[inventory.StockRecord]).Data[0]) },
	}, {
		Name: "Inventory.All walks the pages",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return wiretest.Count(c.Inventory.All(ctx, &inventory.StockListParams{Location: "main"}))
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: stock, Query: "location=main&page=1"},
			Answer: wiretest.Page(`{"id":"stk_1"}`, 2, 1, 1)},
		Then: []wiretest.Exchange{{Want: wiretest.Want{Method: "GET", Path: stock, Query: "location=main&page=2"},
			Answer: wiretest.Page(`{"id":"stk_2"}`, 2, 2, 1)}},
		Check: wiretest.Yielded(2),
	}, {
		Name: "Inventory.Adjust",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: wiretest.ProductID, Delta: 4, Reason: inventory.ReasonReceived,
				LotNumber: "V-77", ExpiresOn: client.NewDate(2028, time.June, 30), Reference: "po-1"})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "POST", Path: stock + "/adjust", Body: `{"productId":"` + wiretest.ProductID + `","delta":4,` +
				`"reason":"received","lotNumber":"V-77","expiresOn":"2028-06-30","reference":"po-1"}`},
			Status: 201, Answer: adjustmentJSON,
		},
		Check: func(t *testing.T, got any) {
			a := got.(*inventory.Adjustment)
			if a.ID != wiretest.AdjustmentID || a.OnHandAfter != 4 {
				t.Errorf("adjustment %+v", a)
			}
			isStock(t, &a.Inventory)
		},
	}, {
		Name: "Inventory.Adjust short of stock",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: wiretest.ProductID, Delta: -9, Reason: inventory.ReasonUsed})
		},
		Exchange: wiretest.Exchange{
			Want:   wiretest.Want{Method: "POST", Path: stock + "/adjust", Body: `{"productId":"` + wiretest.ProductID + `","delta":-9,"reason":"used"}`},
			Status: 409, Answer: `{"type":"https://docs.medspa.dev/errors/insufficient_stock","title":"Insufficient stock","status":409,` +
				`"code":"insufficient_stock","requestId":"req_1","available":4}`,
		},
		Err: func(t *testing.T, err error) {
			var e *medspa.Error
			if !errors.Is(err, medspa.ErrInsufficientStock) || !errors.As(err, &e) || e.Available == nil || *e.Available != 4 {
				t.Errorf("err %v", err)
			}
		},
	}, {
		// An odd answer: a lot expiry that is not a date.
		Name: "Inventory.List with an invalid lot date",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Inventory.List(ctx, nil)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: stock},
			Answer: wiretest.Page(`{"id":"stk_1","lots":[{"expiresOn":"2028-02-30"}]}`, 1, 1, 25)},
		Err: func(t *testing.T, err error) { wiretest.OneLine(t, err, "2028-02-30") },
	}})
	wiretest.RunRefused(t, map[string]func(context.Context, *medspa.Client) error{
		"Products.Create an unknown category": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "X", Name: "X", Category: "toxin", Price: 1})
			return err
		},
		"Products.Create an unknown unit": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "X", Name: "X", Category: inventory.CategoryOther, Unit: "box", Price: 1})
			return err
		},
		"Products.Update to an unknown unit": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Products.Update(ctx, wiretest.ProductID, &inventory.ProductUpdateParams{Unit: medspa.Set[inventory.Unit]("ML")})
			return err
		},
		"Products.List an unknown category": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Products.List(ctx, &inventory.ProductListParams{Category: "fillers"})
			return err
		},
		"Inventory.Adjust an unknown reason": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: wiretest.ProductID, Delta: 1, Reason: "found"})
			return err
		},
		"Products.Get empty id": func(ctx context.Context, c *medspa.Client) error { _, _, err := c.Products.Get(ctx, ""); return err },
		"Products.Get backslash": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Products.Get(ctx, `prd\1`)
			return err
		},
		"Products.Update empty id": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Products.Update(ctx, "", nil)
			return err
		},
		"Products.Update nil params": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Products.Update(ctx, wiretest.ProductID, nil)
			return err
		},
		"Products.Create nil params": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Products.Create(ctx, nil)
			return err
		},
		"Inventory.Adjust nil params": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Inventory.Adjust(ctx, nil)
			return err
		},
	})
}
