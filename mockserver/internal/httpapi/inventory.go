package httpapi

import (
	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

var (
	productFields = []string{"sku", "name", "category", "unit", "price", "cost", "currency", "trackLots", "reorderPoint", "active"}
	adjustFields  = []string{"productId", "location", "delta", "reason", "lotNumber", "expiresOn", "note", "reference"}
)

// decodeProduct reads a product body (create or merge patch).
func decodeProduct(f *form) store.ProductInput {
	return store.ProductInput{
		Members: f.members(productFields...),
		SKU:     f.str("sku"), Name: f.str("name"), Category: f.str("category"), Unit: f.str("unit"),
		Price: f.number("price"), Cost: f.number("cost"), Currency: f.str("currency"), TrackLots: f.boolean("trackLots"),
		ReorderPoint: f.number("reorderPoint"), Active: f.boolean("active"),
	}
}

// decodeAdjustment reads an inventory adjustment body.
func decodeAdjustment(f *form) store.AdjustmentInput {
	return store.AdjustmentInput{
		Members:   f.members(adjustFields...),
		ProductID: f.str("productId"), Location: f.str("location"), Delta: f.number("delta"), Reason: f.str("reason"),
		LotNumber: f.str("lotNumber"), ExpiresOn: f.date("expiresOn"), Note: f.str("note"), Reference: f.str("reference"),
	}
}

func (a *API) createProduct(rq *request) (int, any, error) {
	p, err := fromRequest(rq, decodeProduct, rq.acct.CreateProduct)
	return created, p, err
}

func (a *API) getProduct(rq *request) (int, any, error) {
	id, err := rq.pathID("prd", "product")
	if err != nil {
		return 0, nil, err
	}
	p, err := rq.acct.GetProduct(id)
	return ok, p, err
}

func (a *API) updateProduct(rq *request) (int, any, error) {
	id, err := rq.pathID("prd", "product")
	if err != nil {
		return 0, nil, err
	}
	f, err := rq.form()
	if err != nil {
		return 0, nil, err
	}
	p, err := rq.acct.UpdateProduct(id, decodeProduct(f))
	return ok, p, err
}

func (a *API) listProducts(rq *request) (int, any, error) {
	q := rq.parseQuery()
	w := q.window(true)
	filter := store.ProductFilter{
		Category: q.enum("category", store.Categories()...),
		Q:        q.str("q", 200),
		Active:   q.boolean("active"),
	}
	if err := q.done(); err != nil {
		return 0, nil, err
	}
	items, total := rq.acct.ListProducts(filter, w)
	return ok, list(items, total, w), nil
}

func (a *API) listStock(rq *request) (int, any, error) {
	q := rq.parseQuery()
	w := q.window(false)
	filter := store.StockFilter{
		ProductID: q.id("productId", "prd"),
		Location:  q.str("location", 64),
		LowStock:  q.boolean("lowStock"),
	}
	if s, given := q.one("expiringBefore"); given {
		d, err := wire.ParseDate(s)
		if err != nil {
			q.fail("expiringBefore", "invalid_format", "must be a date YYYY-MM-DD")
		}
		filter.ExpiringBefore = d
	}
	if err := q.done(); err != nil {
		return 0, nil, err
	}
	items, total := rq.acct.ListStock(filter, w)
	return ok, list(items, total, w), nil
}

func (a *API) adjustStock(rq *request) (int, any, error) {
	adj, err := fromRequest(rq, decodeAdjustment, rq.acct.Adjust)
	rq.created = adj.ID
	return created, adj, err
}
