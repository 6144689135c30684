package httpapi

import (
	"math"
	"net/http"
	"regexp"
	"strings"
	"unicode"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

func (a *API) inventoryRoutes() []route {
	return []route{
		{http.MethodGet, "/api/v1/products", "inventory:read", a.listProducts},
		{http.MethodPost, "/api/v1/products", "inventory:write", a.createProduct},
		{http.MethodGet, "/api/v1/products/{id}", "inventory:read", a.getProduct},
		{http.MethodPatch, "/api/v1/products/{id}", "inventory:write", a.updateProduct},
		{http.MethodGet, "/api/v1/inventory", "inventory:read", a.listStock},
		{http.MethodPost, "/api/v1/inventory/adjust", "inventory:write", a.adjustStock},
	}
}

var (
	locationName  = regexp.MustCompile(`^[a-z0-9_-]{1,64}$`)
	productFields = []string{"sku", "name", "category", "unit", "price", "cost", "currency", "trackLots", "reorderPoint", "active"}
	adjustFields  = []string{"productId", "location", "delta", "reason", "lotNumber", "expiresOn", "note", "reference"}
	categories    = []string{
		string(inventory.CategoryNeurotoxin), string(inventory.CategoryFiller), string(inventory.CategorySkincare),
		string(inventory.CategoryDevice), string(inventory.CategoryConsumable), string(inventory.CategoryOther),
	}
	units = []string{
		string(inventory.UnitUnit), string(inventory.UnitSyringe), string(inventory.UnitVial),
		string(inventory.UnitML), string(inventory.UnitItem),
	}
	reasons = []string{
		string(inventory.ReasonReceived), string(inventory.ReasonReturned), string(inventory.ReasonSale),
		string(inventory.ReasonUsed), string(inventory.ReasonExpired), string(inventory.ReasonDamaged),
		string(inventory.ReasonCorrection),
	}
)

// readProduct validates a product body (create, or merge patch) and returns the change it
// makes. null on an optional field restores its default.
func readProduct(f *form, patch bool) func(*inventory.Product) {
	f.allow(productFields...)
	var sets []func(*inventory.Product)
	if patch {
		f.nonNull("sku", "name", "category", "price")
	}
	if v, p := f.str("sku", !patch, 1, 64); p == present {
		if printable(v) {
			sets = append(sets, func(x *inventory.Product) { x.SKU = v })
		} else {
			f.fail("sku", "invalid_format", "must not contain control characters")
		}
	}
	if v, p := f.str("name", !patch, 1, 200); p == present {
		sets = append(sets, func(x *inventory.Product) { x.Name = v })
	}
	if v, p := f.enum("category", !patch, categories...); p == present {
		sets = append(sets, func(x *inventory.Product) { x.Category = inventory.Category(v) })
	}
	if v, p := f.enum("unit", false, units...); p == present || p == null || !patch && p == absent {
		if p != present {
			v = string(inventory.UnitItem)
		}
		sets = append(sets, func(x *inventory.Product) { x.Unit = inventory.Unit(v) })
	}
	if v, p := f.integer("price", !patch, 0, math.MaxInt64); p == present {
		sets = append(sets, func(x *inventory.Product) { x.Price = v })
	}
	if v, p := f.integer("cost", false, 0, math.MaxInt64); p == present || p == null {
		sets = append(sets, func(x *inventory.Product) { x.Cost = v })
	}
	if _, given := f.obj["currency"]; given || !patch {
		v := f.currency("currency", "usd")
		sets = append(sets, func(x *inventory.Product) { x.Currency = v })
	}
	if v, p := f.boolean("trackLots"); p == present || p == null {
		sets = append(sets, func(x *inventory.Product) { x.TrackLots = v })
	}
	if v, p := f.integer("reorderPoint", false, 0, math.MaxInt64); p == present || p == null {
		sets = append(sets, func(x *inventory.Product) { x.ReorderPoint = v })
	}
	if v, p := f.boolean("active"); p == present || p == null || !patch && p == absent {
		if p != present {
			v = true
		}
		sets = append(sets, func(x *inventory.Product) { x.Active = v })
	}
	return func(x *inventory.Product) {
		for _, s := range sets {
			s(x)
		}
	}
}

func (a *API) createProduct(rq *request) (int, any, error) {
	f, err := rq.parseForm()
	if err != nil {
		return 0, nil, err
	}
	change := readProduct(f, false)
	if err := f.done(); err != nil {
		return 0, nil, err
	}
	var p inventory.Product
	change(&p)
	p, err = rq.acct.CreateProduct(p, rq.backdate)
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
	f, err := rq.parseForm()
	if err != nil {
		return 0, nil, err
	}
	change := readProduct(f, true)
	if err := f.done(); err != nil {
		return 0, nil, err
	}
	p, err := rq.acct.UpdateProduct(id, change)
	return ok, p, err
}

func (a *API) listProducts(rq *request) (int, any, error) {
	q := rq.parseQuery("page", "perPage", "sort", "category", "q", "active")
	w := q.window(true)
	filter := store.ProductFilter{
		Category: q.enum("category", categories...),
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
	q := rq.parseQuery("page", "perPage", "productId", "location", "lowStock", "expiringBefore")
	w := q.window(false)
	filter := store.StockFilter{
		ProductID: q.str("productId", 64),
		Location:  q.str("location", 64),
		LowStock:  q.boolean("lowStock"),
	}
	if s, given := q.one("expiringBefore"); given {
		d, err := client.ParseDate(s)
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

// readAdjustment validates an adjustment body: shapes, and the delta's sign per reason.
func readAdjustment(f *form) inventory.AdjustParams {
	f.allow(adjustFields...)
	in := inventory.AdjustParams{ProductID: f.ref("productId", "prd", true), Location: store.MainLocation}
	if v, p := f.str("location", false, 0, 0); p == present {
		if locationName.MatchString(v) {
			in.Location = v
		} else {
			f.fail("location", "invalid_format", "must be 1–64 characters a-z, 0-9, _ or -")
		}
	}
	delta, dp := f.integer("delta", true, -store.MaxDelta, store.MaxDelta)
	if dp == present && delta == 0 {
		f.fail("delta", "invalid_value", "must not be zero")
		dp = invalid
	}
	in.Delta = delta
	reason, rp := f.enum("reason", true, reasons...)
	in.Reason = inventory.Reason(reason)
	if sign, _ := store.ReasonSign(in.Reason); dp == present && rp == present && (sign > 0 && delta < 0 || sign < 0 && delta > 0) {
		if sign > 0 {
			f.fail("delta", "invalid_value", "must be positive for reason "+reason)
		} else {
			f.fail("delta", "invalid_value", "must be negative for reason "+reason)
		}
	}
	if v, p := f.str("lotNumber", false, 1, 64); p == present {
		if printable(v) {
			in.LotNumber = v
		} else {
			f.fail("lotNumber", "invalid_format", "must not contain control characters")
		}
	}
	if s, p := field[string](f, "expiresOn", "a date string"); p == present {
		d, err := client.ParseDate(s)
		if err != nil {
			f.fail("expiresOn", "invalid_format", "must be a date YYYY-MM-DD")
		}
		in.ExpiresOn = d
	}
	in.Note, _ = f.str("note", false, 0, 10_000)
	in.Reference, _ = f.str("reference", false, 0, 200)
	return in
}

func (a *API) adjustStock(rq *request) (int, any, error) {
	f, err := rq.parseForm()
	if err != nil {
		return 0, nil, err
	}
	in := readAdjustment(f)
	if err := f.done(); err != nil {
		return 0, nil, err
	}
	adj, err := rq.acct.Adjust(in, rq.backdate)
	rq.audit = auditInfo{"create", "inventory_adjustment", adj.ID}
	return created, adj, err
}

// printable reports whether s has no control characters (identifiers such as SKUs and lot numbers).
func printable(s string) bool {
	return !strings.ContainsFunc(s, unicode.IsControl)
}
