package store

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/webhooks"
)

// MainLocation is the default stock location, where invoices sell from.
const MainLocation = "main"

// StockRecord is a stored stock record: the API's record plus its creation time (list order).
type StockRecord struct {
	inventory.StockRecord
	CreatedAt time.Time `json:"createdAt"`
}

// AdjustmentRecord is a stored stock adjustment; its note (free text) is sealed like PHI.
type AdjustmentRecord struct {
	ID          string           `json:"id"`
	ProductID   string           `json:"productId"`
	StockID     string           `json:"stockId"`
	Location    string           `json:"location"`
	Delta       int64            `json:"delta"`
	Reason      inventory.Reason `json:"reason"`
	LotNumber   string           `json:"lotNumber,omitempty"`
	ExpiresOn   wire.Date        `json:"expiresOn,omitzero"`
	Reference   string           `json:"reference,omitempty"`
	OnHandAfter int64            `json:"onHandAfter"`
	CreatedAt   time.Time        `json:"createdAt"`
	SealedNote  []byte           `json:"sealedNote,omitempty"`
	// Drawn are the lots a removal of lot-tracked stock took from, and how much of each, so
	// that a voided sale can put the stock back where it came from.
	Drawn []inventory.Lot `json:"drawn,omitempty"`
}

func (r *AdjustmentRecord) sealedFields() []sealedField {
	return []sealedField{{"note", &r.SealedNote}}
}

func stockKey(productID, location string) string { return productID + "/" + location }

// reindexInventory rebuilds the SKU and stock-key indexes from the products and stock.
func (d *data) reindexInventory() {
	d.SKUs = make(map[string]string, d.Products.len())
	for _, p := range d.Products.all() {
		d.SKUs[strings.ToLower(p.SKU)] = p.ID
	}
	d.StockKeys = make(map[string]string, d.Stock.len())
	for _, s := range d.Stock.all() {
		d.StockKeys[stockKey(s.ProductID, s.Location)] = s.ID
	}
}

// newInventoryTables returns the empty inventory part of data.
func newInventoryTables(d *data) {
	d.Products = newTable("product", func(p *inventory.Product) sortKey { return sortKey{p.CreatedAt, p.ID} })
	d.SKUs = map[string]string{}
	d.Stock = newTable("stock", func(s *StockRecord) sortKey { return sortKey{s.CreatedAt, s.ID} })
	d.StockKeys = map[string]string{}
	d.Adjustments = newTable("adjustment", func(r *AdjustmentRecord) sortKey { return sortKey{r.CreatedAt, r.ID} })
}

// ProductInput is a product create or merge-patch body (docs/protocol.md §9 Product), decoded.
type ProductInput struct {
	Members
	SKU, Name, Category, Unit Field[string]
	Price, Cost               Field[json.Number]
	Currency                  Field[string]
	TrackLots                 Field[bool]
	ReorderPoint              Field[json.Number]
	Active                    Field[bool]
}

var (
	categories = []string{
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
	locationName = regexp.MustCompile(`^[a-z0-9_-]{1,64}$`)
)

// Categories are the product categories (docs/protocol.md §9 Product), for list filters.
func Categories() []string { return slices.Clone(categories) }

// checkProduct validates a product body (create, or merge patch) and returns the change it
// makes. null on an optional field restores its default.
func checkProduct(in ProductInput, patch bool) (func(*inventory.Product), error) {
	c := newChecker()
	c.members(in.Members)
	var sets []func(*inventory.Product)
	if patch {
		c.nonNull(namedState{"sku", in.SKU.State}, namedState{"name", in.Name.State},
			namedState{"category", in.Category.State}, namedState{"price", in.Price.State})
	}
	if v, p := c.str("sku", in.SKU, !patch, 1, 64); p == Present {
		if printable(v) {
			sets = append(sets, func(x *inventory.Product) { x.SKU = v })
		} else {
			c.fail("sku", "invalid_format", "must not contain control characters")
		}
	}
	if v, p := c.str("name", in.Name, !patch, 1, 200); p == Present {
		sets = append(sets, func(x *inventory.Product) { x.Name = v })
	}
	if v, p := c.enum("category", in.Category, !patch, categories...); p == Present {
		sets = append(sets, func(x *inventory.Product) { x.Category = inventory.Category(v) })
	}
	if v, p := c.enum("unit", in.Unit, false, units...); p == Present || p == Null || !patch && p == Absent {
		if p != Present {
			v = string(inventory.UnitItem)
		}
		sets = append(sets, func(x *inventory.Product) { x.Unit = inventory.Unit(v) })
	}
	if v, p := c.integer("price", in.Price, !patch, 0, math.MaxInt64); p == Present {
		sets = append(sets, func(x *inventory.Product) { x.Price = v })
	}
	if v, p := c.integer("cost", in.Cost, false, 0, math.MaxInt64); p == Present || p == Null {
		sets = append(sets, func(x *inventory.Product) { x.Cost = v })
	}
	if in.Currency.State != Absent || !patch {
		v := c.currency("currency", in.Currency, "usd")
		sets = append(sets, func(x *inventory.Product) { x.Currency = v })
	}
	if v, p := c.boolean(in.TrackLots); p == Present || p == Null {
		sets = append(sets, func(x *inventory.Product) { x.TrackLots = v })
	}
	if v, p := c.integer("reorderPoint", in.ReorderPoint, false, 0, math.MaxInt64); p == Present || p == Null {
		sets = append(sets, func(x *inventory.Product) { x.ReorderPoint = v })
	}
	if v, p := c.boolean(in.Active); p == Present || p == Null || !patch && p == Absent {
		if p != Present {
			v = true
		}
		sets = append(sets, func(x *inventory.Product) { x.Active = v })
	}
	if err := c.done(); err != nil {
		return nil, err
	}
	return changes(sets), nil
}

// printable reports whether s has no control characters (identifiers such as SKUs and lot numbers).
func printable(s string) bool { return !strings.ContainsFunc(s, unicode.IsControl) }

// CreateProduct validates in and stores the product and its empty stock record at "main";
// createdAt may be backdated (fixtures). A SKU already used (case-insensitively) is 409
// duplicate_sku.
func (a *Account) CreateProduct(in ProductInput, createdAt time.Time) (inventory.Product, error) {
	change, err := checkProduct(in, false)
	if err != nil {
		return inventory.Product{}, err
	}
	var p inventory.Product
	change(&p)
	return a.createProduct(p, createdAt)
}

// createProduct stores a valid product.
func (a *Account) createProduct(p inventory.Product, createdAt time.Time) (inventory.Product, error) {
	t := a.begin()
	defer t.end()
	if createdAt.IsZero() {
		createdAt = a.Now()
	}
	if _, taken := a.data.SKUs[strings.ToLower(p.SKU)]; taken {
		return inventory.Product{}, duplicateSKU()
	}
	p.ID = a.store.ids.New("prd", createdAt)
	p.CreatedAt, p.UpdatedAt = createdAt, createdAt
	r := p
	a.data.Products.insert(&r)
	a.data.SKUs[strings.ToLower(p.SKU)] = p.ID
	t.put("product", p.ID)
	a.newStock(&t, &r, MainLocation, createdAt)
	t.emit(webhooks.EventProductCreated, &webhooks.ProductData{ID: p.ID, SKU: p.SKU, Category: string(p.Category), Active: p.Active})
	return p, nil
}

func duplicateSKU() error { return breaks("duplicate_sku", "another product has this SKU", nil) }

// GetProduct returns the product, or 404.
func (a *Account) GetProduct(id string) (inventory.Product, error) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	p, ok := a.data.Products.get(id)
	if !ok {
		return inventory.Product{}, NotFound("product")
	}
	return *p, nil
}

// UpdateProduct validates in, a merge patch, and applies it to the product: 422 before 404. A
// new SKU is checked for uniqueness; trackLots changes only while nothing of the product is on
// hand anywhere (else 409 invalid_state_transition with from/to "true"/"false"). updatedAt
// moves only when something changed; the product's stock records follow its SKU and reorder
// point.
func (a *Account) UpdateProduct(id string, in ProductInput) (inventory.Product, error) {
	change, err := checkProduct(in, true)
	if err != nil {
		return inventory.Product{}, err
	}
	return a.updateProduct(id, change)
}

func (a *Account) updateProduct(id string, change func(*inventory.Product)) (inventory.Product, error) {
	t := a.begin()
	defer t.end()
	r, ok := a.data.Products.get(id)
	if !ok {
		return inventory.Product{}, NotFound("product")
	}
	after := *r
	change(&after)
	if after == *r {
		return after, nil
	}
	oldKey, newKey := strings.ToLower(r.SKU), strings.ToLower(after.SKU)
	if owner, taken := a.data.SKUs[newKey]; taken && owner != id {
		return *r, duplicateSKU()
	}
	var records []*StockRecord
	var onHand int64
	for _, s := range a.data.Stock.all() {
		if s.ProductID == id {
			records = append(records, s)
			onHand += s.OnHand
		}
	}
	if after.TrackLots != r.TrackLots && onHand != 0 {
		return *r, breaks("invalid_state_transition", "trackLots can change only while nothing is on hand",
			map[string]any{"from": boolString(r.TrackLots), "to": boolString(after.TrackLots)})
	}
	now := a.Now()
	after.UpdatedAt = now
	*r = after
	delete(a.data.SKUs, oldKey)
	a.data.SKUs[newKey] = id
	t.put("product", id)
	for _, s := range records {
		if s.SKU == r.SKU && s.ReorderPoint == r.ReorderPoint {
			continue
		}
		wasLow := s.LowStock
		s.SKU, s.ReorderPoint = r.SKU, r.ReorderPoint
		s.LowStock = s.OnHand <= s.ReorderPoint
		s.UpdatedAt = now
		t.put("stock", s.ID)
		if s.LowStock && !wasLow {
			emitLowStock(&t, s)
		}
	}
	return *r, nil
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// ProductFilter selects products; zero fields match everything.
type ProductFilter struct {
	Category string
	Q        string
	Active   *bool
}

// ListProducts returns a page of matching products and the number matching.
func (a *Account) ListProducts(f ProductFilter, w Window) ([]inventory.Product, int) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	q := strings.ToLower(f.Q)
	recs, total := a.data.Products.page(w, func(p *inventory.Product) bool {
		return (f.Category == "" || string(p.Category) == f.Category) &&
			(f.Active == nil || p.Active == *f.Active) &&
			(q == "" || strings.Contains(strings.ToLower(p.Name), q) || strings.Contains(strings.ToLower(p.SKU), q))
	})
	out := make([]inventory.Product, 0, len(recs))
	for _, p := range recs {
		out = append(out, *p)
	}
	return out, total
}

// newStock inserts an empty stock record of p at location within t.
func (a *Account) newStock(t *tx, p *inventory.Product, location string, at time.Time) *StockRecord {
	s := &StockRecord{CreatedAt: at}
	s.StockRecord = inventory.StockRecord{
		ID: a.store.ids.New("stk", at), ProductID: p.ID, SKU: p.SKU, Location: location,
		ReorderPoint: p.ReorderPoint, LowStock: true, UpdatedAt: at, // nothing on hand is at or below any reorder point
	}
	a.data.Stock.insert(s)
	a.data.StockKeys[stockKey(p.ID, location)] = s.ID
	t.put("stock", s.ID)
	return s
}

// stock returns the record of the product at location, or nil; the caller holds a.mu.
func (a *Account) stock(productID, location string) *StockRecord {
	s, _ := a.data.Stock.get(a.data.StockKeys[stockKey(productID, location)])
	return s
}

func stockOut(s *StockRecord) inventory.StockRecord {
	out := s.StockRecord
	out.Lots = slices.Clone(s.Lots)
	return out
}

// StockFilter selects stock records; zero fields match everything.
type StockFilter struct {
	ProductID      string
	Location       string
	LowStock       *bool
	ExpiringBefore wire.Date
}

// ListStock returns a page of matching stock records and the number matching.
func (a *Account) ListStock(f StockFilter, w Window) ([]inventory.StockRecord, int) {
	a.mu.RLock()
	defer a.mu.RUnlock()
	recs, total := a.data.Stock.page(w, func(s *StockRecord) bool {
		if f.ProductID != "" && s.ProductID != f.ProductID || f.Location != "" && s.Location != f.Location {
			return false
		}
		if f.LowStock != nil && s.LowStock != *f.LowStock {
			return false
		}
		if !f.ExpiringBefore.IsZero() {
			return slices.ContainsFunc(s.Lots, func(l inventory.Lot) bool { return l.Quantity > 0 && l.ExpiresOn.Before(f.ExpiringBefore) })
		}
		return true
	})
	out := make([]inventory.StockRecord, 0, len(recs))
	for _, s := range recs {
		out = append(out, stockOut(s))
	}
	return out, total
}

// MaxDelta bounds the size of one adjustment.
const MaxDelta = 1_000_000

// ReasonSign is the sign a reason requires of its delta: +1, -1, or 0 for either.
func ReasonSign(r inventory.Reason) (sign int, ok bool) {
	switch r {
	case inventory.ReasonReceived, inventory.ReasonReturned:
		return 1, true
	case inventory.ReasonSale, inventory.ReasonUsed, inventory.ReasonExpired, inventory.ReasonDamaged:
		return -1, true
	case inventory.ReasonCorrection:
		return 0, true
	}
	return 0, false
}

// AdjustmentInput is an inventory adjustment body (docs/protocol.md §9 Inventory record), decoded.
type AdjustmentInput struct {
	Members
	ProductID, Location Field[string]
	Delta               Field[json.Number]
	Reason              Field[string]
	LotNumber           Field[string]
	ExpiresOn           Field[string] // YYYY-MM-DD
	Note, Reference     Field[string]
}

// checkAdjustment validates the shape of an adjustment body: fields, and the delta's sign per
// reason.
func checkAdjustment(in AdjustmentInput) (inventory.AdjustParams, error) {
	c := newChecker()
	c.members(in.Members)
	out := inventory.AdjustParams{ProductID: c.id("productId", in.ProductID, "prd", true), Location: MainLocation}
	if v, p := c.str("location", in.Location, false, 0, 0); p == Present {
		if locationName.MatchString(v) {
			out.Location = v
		} else {
			c.fail("location", "invalid_format", "must be 1–64 characters a-z, 0-9, _ or -")
		}
	}
	delta, dp := c.integer("delta", in.Delta, true, -MaxDelta, MaxDelta)
	if dp == Present && delta == 0 {
		c.fail("delta", "invalid_value", "must not be zero")
		dp = Invalid
	}
	out.Delta = delta
	reason, rp := c.enum("reason", in.Reason, true, reasons...)
	out.Reason = inventory.Reason(reason)
	if sign, _ := ReasonSign(out.Reason); dp == Present && rp == Present && (sign > 0 && delta < 0 || sign < 0 && delta > 0) {
		if sign > 0 {
			c.fail("delta", "invalid_value", "must be positive for reason "+reason)
		} else {
			c.fail("delta", "invalid_value", "must be negative for reason "+reason)
		}
	}
	if v, p := c.str("lotNumber", in.LotNumber, false, 1, 64); p == Present {
		if printable(v) {
			out.LotNumber = v
		} else {
			c.fail("lotNumber", "invalid_format", "must not contain control characters")
		}
	}
	if c.decoded(in.ExpiresOn.Complaint, in.ExpiresOn.State) && in.ExpiresOn.State == Present {
		d, err := wire.ParseDate(in.ExpiresOn.Value)
		if err != nil {
			c.fail("expiresOn", "invalid_format", "must be a date YYYY-MM-DD")
		}
		out.ExpiresOn = d
	}
	out.Note, _ = c.text("note", in.Note, false, 0, 10_000)
	out.Reference, _ = c.str("reference", in.Reference, false, 0, 200)
	return out, c.done()
}

// Adjust validates in and moves stock: first the body's fields (422), then, atomically, the
// product must exist (422 /productId not_found); lot rules are checked against it; taking more
// than is on hand (or in the lot) is 409 insufficient_stock with available, and changes
// nothing. createdAt may be backdated (fixtures).
func (a *Account) Adjust(in AdjustmentInput, createdAt time.Time) (inventory.Adjustment, error) {
	params, err := checkAdjustment(in)
	if err != nil {
		return inventory.Adjustment{}, err
	}
	return a.adjust(params, createdAt)
}

// adjust moves stock by an adjustment whose fields are valid.
func (a *Account) adjust(in inventory.AdjustParams, createdAt time.Time) (inventory.Adjustment, error) {
	t := a.begin()
	defer t.end()
	if createdAt.IsZero() {
		createdAt = a.Now()
	}
	p, ok := a.data.Products.get(in.ProductID)
	if !ok {
		return inventory.Adjustment{}, InvalidField("/productId", "not_found", "no such product")
	}
	if err := a.checkLots(p, in); err != nil {
		return inventory.Adjustment{}, err
	}
	adj, s, err := a.applyAdjustment(&t, p, in, createdAt)
	if err != nil {
		return inventory.Adjustment{}, err
	}
	return a.adjustmentOut(adj, s), nil
}

// checkLots checks the lot fields of an adjustment against the product; the caller holds a.mu.
func (a *Account) checkLots(p *inventory.Product, in inventory.AdjustParams) error {
	var errs FieldErrors
	switch {
	case !p.TrackLots:
		if in.LotNumber != "" {
			errs.Add("/lotNumber", "invalid_value", "the product does not track lots")
		}
		if !in.ExpiresOn.IsZero() {
			errs.Add("/expiresOn", "invalid_value", "the product does not track lots")
		}
	case in.Delta > 0:
		if in.LotNumber == "" {
			errs.Add("/lotNumber", "required", "is required to receive a lot-tracked product")
		}
		if in.ExpiresOn.IsZero() {
			errs.Add("/expiresOn", "required", "is required to receive a lot-tracked product")
		}
		if s := a.stock(p.ID, in.Location); s != nil && in.LotNumber != "" && !in.ExpiresOn.IsZero() {
			if i := lotIndex(s.Lots, in.LotNumber); i >= 0 && s.Lots[i].ExpiresOn != in.ExpiresOn {
				errs.Add("/expiresOn", "invalid_value", "differs from the lot's expiry date")
			}
		}
	case in.LotNumber != "":
		if s := a.stock(p.ID, in.Location); s == nil || lotIndex(s.Lots, in.LotNumber) < 0 {
			errs.Add("/lotNumber", "not_found", "no such lot at this location")
		}
	}
	return errs.Err()
}

func lotIndex(lots []inventory.Lot, number string) int {
	return slices.IndexFunc(lots, func(l inventory.Lot) bool { return l.LotNumber == number })
}

// insufficient is the error of taking more than is available.
func insufficient(available int64) *RuleError {
	return breaks("insufficient_stock", "not enough stock on hand", map[string]any{"available": available})
}

// planLots returns the lots after the delta and, for a removal, what it drew from each lot; or
// the problem: a named lot gives or takes alone, otherwise a removal takes
// first-expiring-first-out. Emptied lots are dropped. lots is not modified.
func planLots(lots []inventory.Lot, lot string, expiresOn wire.Date, delta int64) (after, drawn []inventory.Lot, err error) {
	out := slices.Clone(lots)
	if delta > 0 {
		if i := lotIndex(out, lot); i >= 0 {
			if out[i].Quantity > math.MaxInt64-delta {
				return nil, nil, InvalidField("/delta", "out_of_range", "the lot would exceed the largest quantity")
			}
			out[i].Quantity += delta
			return out, nil, nil
		}
		out = append(out, inventory.Lot{LotNumber: lot, ExpiresOn: expiresOn, Quantity: delta})
		slices.SortStableFunc(out, func(x, y inventory.Lot) int {
			if c := x.ExpiresOn.Time().Compare(y.ExpiresOn.Time()); c != 0 {
				return c
			}
			return strings.Compare(x.LotNumber, y.LotNumber)
		})
		return out, nil, nil
	}
	need := -delta
	take := func(i int, n int64) {
		out[i].Quantity -= n
		drawn = append(drawn, inventory.Lot{LotNumber: out[i].LotNumber, ExpiresOn: out[i].ExpiresOn, Quantity: n})
	}
	if lot != "" {
		i := lotIndex(out, lot)
		if out[i].Quantity < need {
			return nil, nil, insufficient(out[i].Quantity)
		}
		take(i, need)
	} else {
		var have int64
		for _, l := range out {
			have += l.Quantity
		}
		if have < need {
			return nil, nil, insufficient(have)
		}
		for i := range out { // lots are ordered by expiry: FEFO
			if n := min(out[i].Quantity, need); n > 0 {
				take(i, n)
				need -= n
			}
		}
	}
	return slices.DeleteFunc(out, func(l inventory.Lot) bool { return l.Quantity == 0 }), drawn, nil
}

// applyAdjustment checks the stock and applies one valid adjustment within t, or changes
// nothing and returns the error.
func (a *Account) applyAdjustment(t *tx, p *inventory.Product, in inventory.AdjustParams, at time.Time) (*AdjustmentRecord, *StockRecord, error) {
	s := a.stock(p.ID, in.Location)
	var onHand int64
	var lots []inventory.Lot
	wasLow := true // a missing record has nothing on hand, which is low
	if s != nil {
		onHand, lots, wasLow = s.OnHand, s.Lots, s.LowStock
	}
	if in.Delta < 0 && onHand < -in.Delta {
		return nil, nil, insufficient(onHand)
	}
	if in.Delta > 0 && onHand > math.MaxInt64-in.Delta {
		return nil, nil, InvalidField("/delta", "out_of_range", "the stock would exceed the largest quantity")
	}
	var drawn []inventory.Lot
	if p.TrackLots {
		var err error
		if lots, drawn, err = planLots(lots, in.LotNumber, in.ExpiresOn, in.Delta); err != nil {
			return nil, nil, err
		}
	}
	if s == nil {
		s = a.newStock(t, p, in.Location, at)
	}
	s.OnHand = onHand + in.Delta
	s.Lots = lots
	s.LowStock = s.OnHand <= s.ReorderPoint
	s.UpdatedAt = at
	r := &AdjustmentRecord{
		ID: a.store.ids.New("adj", at), ProductID: p.ID, StockID: s.ID, Location: in.Location, Delta: in.Delta,
		Reason: in.Reason, LotNumber: in.LotNumber, Reference: in.Reference, OnHandAfter: s.OnHand, CreatedAt: at,
		Drawn: drawn,
	}
	if in.Delta > 0 {
		r.ExpiresOn = in.ExpiresOn
	}
	r.SealedNote = a.sealText("adjustment", r.ID, "note", in.Note)
	a.data.Adjustments.insert(r)
	t.put("stock", s.ID)
	t.put("adjustment", r.ID)
	t.emit(webhooks.EventInventoryAdjusted, &webhooks.InventoryAdjustmentData{
		ID: r.ID, ProductID: p.ID, Location: r.Location, Delta: r.Delta, OnHandAfter: r.OnHandAfter,
		Reason: string(r.Reason), Reference: r.Reference,
	})
	if s.LowStock && !wasLow {
		emitLowStock(t, s)
	}
	return r, s, nil
}

func emitLowStock(t *tx, s *StockRecord) {
	t.emit(webhooks.EventInventoryLowStock, &webhooks.LowStockData{
		ID: s.ID, ProductID: s.ProductID, Location: s.Location, OnHand: s.OnHand, ReorderPoint: s.ReorderPoint,
	})
}

// adjustmentOut is the API shape of an adjustment, with the note opened and the record given.
func (a *Account) adjustmentOut(r *AdjustmentRecord, s *StockRecord) inventory.Adjustment {
	out := inventory.Adjustment{
		ID: r.ID, ProductID: r.ProductID, Location: r.Location, Delta: r.Delta, Reason: r.Reason,
		LotNumber: r.LotNumber, ExpiresOn: r.ExpiresOn, Reference: r.Reference, OnHandAfter: r.OnHandAfter, CreatedAt: r.CreatedAt,
	}
	out.Note = a.openText("adjustment", r.ID, "note", r.SealedNote)
	if s != nil {
		out.Inventory = stockOut(s)
	}
	return out
}

// AdjustmentsCreated returns the adjustments created in [from, to), oldest first, for reports:
// without notes (free text) or the stock record.
func (a *Account) AdjustmentsCreated(from, to time.Time) []inventory.Adjustment {
	a.mu.RLock()
	defer a.mu.RUnlock()
	var out []inventory.Adjustment
	for _, r := range a.data.Adjustments.all() {
		if !r.CreatedAt.Before(from) && r.CreatedAt.Before(to) {
			o := a.adjustmentOut(r, nil)
			o.Note = ""
			out = append(out, o)
		}
	}
	return out
}
