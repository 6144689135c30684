package store

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/medspa/medspa-go/client"
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
	ExpiresOn   client.Date      `json:"expiresOn,omitzero"`
	Reference   string           `json:"reference,omitempty"`
	OnHandAfter int64            `json:"onHandAfter"`
	CreatedAt   time.Time        `json:"createdAt"`
	SealedNote  []byte           `json:"sealedNote,omitempty"`
}

func stockKey(productID, location string) string { return productID + "/" + location }

// newInventoryTables returns the empty inventory part of data.
func newInventoryTables(d *data) {
	d.Products = newTable(func(p *inventory.Product) sortKey { return sortKey{p.CreatedAt, p.ID} })
	d.SKUs = map[string]string{}
	d.Stock = newTable(func(s *StockRecord) sortKey { return sortKey{s.CreatedAt, s.ID} })
	d.StockKeys = map[string]string{}
	d.Adjustments = newTable(func(r *AdjustmentRecord) sortKey { return sortKey{r.CreatedAt, r.ID} })
}

// CreateProduct stores a validated product and its empty stock record at "main"; createdAt may
// be backdated (fixtures). A SKU already used (case-insensitively) is 409 duplicate_sku.
func (a *Account) CreateProduct(p inventory.Product, createdAt time.Time) (inventory.Product, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
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
	a.newStock(&r, MainLocation, createdAt)
	a.emit(webhooks.EventProductCreated, &webhooks.ProductData{ID: p.ID, SKU: p.SKU, Category: string(p.Category), Active: p.Active})
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

// UpdateProduct applies change to the product. A new SKU is checked for uniqueness; trackLots
// changes only while nothing of the product is on hand anywhere (else 409
// invalid_state_transition with from/to "true"/"false"). updatedAt moves only when something
// changed; the product's stock records follow its SKU and reorder point.
func (a *Account) UpdateProduct(id string, change func(*inventory.Product)) (inventory.Product, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
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
	for _, s := range records {
		if s.SKU == r.SKU && s.ReorderPoint == r.ReorderPoint {
			continue
		}
		wasLow := s.LowStock
		s.SKU, s.ReorderPoint = r.SKU, r.ReorderPoint
		s.LowStock = s.OnHand <= s.ReorderPoint
		s.UpdatedAt = now
		if s.LowStock && !wasLow {
			a.emitLowStock(s)
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

// newStock inserts an empty stock record of p at location; the caller holds a.mu.
func (a *Account) newStock(p *inventory.Product, location string, at time.Time) *StockRecord {
	s := &StockRecord{CreatedAt: at}
	s.StockRecord = inventory.StockRecord{
		ID: a.store.ids.New("stk", at), ProductID: p.ID, SKU: p.SKU, Location: location,
		ReorderPoint: p.ReorderPoint, LowStock: true, UpdatedAt: at, // nothing on hand is at or below any reorder point
	}
	a.data.Stock.insert(s)
	a.data.StockKeys[stockKey(p.ID, location)] = s.ID
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
	ExpiringBefore client.Date
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

// Adjust moves stock: in has been validated for shape (delta non-zero and signed per reason,
// location set). The product must exist (422 /productId not_found); lot rules are checked
// against it; taking more than is on hand (or in the lot) is 409 insufficient_stock with
// available, and changes nothing. createdAt may be backdated (fixtures).
func (a *Account) Adjust(in inventory.AdjustParams, createdAt time.Time) (inventory.Adjustment, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if createdAt.IsZero() {
		createdAt = a.Now()
	}
	p, ok := a.data.Products.get(in.ProductID)
	if !ok {
		return inventory.Adjustment{}, Invalid("/productId", "not_found", "no such product")
	}
	if err := a.checkLots(p, in); err != nil {
		return inventory.Adjustment{}, err
	}
	adj, s, err := a.applyAdjustment(p, in, createdAt)
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

// planLots returns the lots after the delta, or the problem: a named lot gives or takes alone,
// otherwise a removal takes first-expiring-first-out. Emptied lots are dropped. lots is not
// modified.
func planLots(lots []inventory.Lot, lot string, expiresOn client.Date, delta int64) ([]inventory.Lot, error) {
	out := slices.Clone(lots)
	if delta > 0 {
		if i := lotIndex(out, lot); i >= 0 {
			if out[i].Quantity > math.MaxInt64-delta {
				return nil, Invalid("/delta", "out_of_range", "the lot would exceed the largest quantity")
			}
			out[i].Quantity += delta
			return out, nil
		}
		out = append(out, inventory.Lot{LotNumber: lot, ExpiresOn: expiresOn, Quantity: delta})
		slices.SortStableFunc(out, func(x, y inventory.Lot) int {
			if c := x.ExpiresOn.Time().Compare(y.ExpiresOn.Time()); c != 0 {
				return c
			}
			return strings.Compare(x.LotNumber, y.LotNumber)
		})
		return out, nil
	}
	need := -delta
	if lot != "" {
		i := lotIndex(out, lot)
		if out[i].Quantity < need {
			return nil, insufficient(out[i].Quantity)
		}
		out[i].Quantity -= need
	} else {
		var have int64
		for _, l := range out {
			have += l.Quantity
		}
		if have < need {
			return nil, insufficient(have)
		}
		for i := range out { // lots are ordered by expiry: FEFO
			take := min(out[i].Quantity, need)
			out[i].Quantity -= take
			need -= take
		}
	}
	return slices.DeleteFunc(out, func(l inventory.Lot) bool { return l.Quantity == 0 }), nil
}

// applyAdjustment checks the stock and applies one validated adjustment, or changes nothing
// and returns the problem; the caller holds a.mu.
func (a *Account) applyAdjustment(p *inventory.Product, in inventory.AdjustParams, at time.Time) (*AdjustmentRecord, *StockRecord, error) {
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
		return nil, nil, Invalid("/delta", "out_of_range", "the stock would exceed the largest quantity")
	}
	if p.TrackLots {
		var err error
		if lots, err = planLots(lots, in.LotNumber, in.ExpiresOn, in.Delta); err != nil {
			return nil, nil, err
		}
	}
	if s == nil {
		s = a.newStock(p, in.Location, at)
	}
	s.OnHand = onHand + in.Delta
	s.Lots = lots
	s.LowStock = s.OnHand <= s.ReorderPoint
	s.UpdatedAt = at
	r := &AdjustmentRecord{
		ID: a.store.ids.New("adj", at), ProductID: p.ID, StockID: s.ID, Location: in.Location, Delta: in.Delta,
		Reason: in.Reason, LotNumber: in.LotNumber, Reference: in.Reference, OnHandAfter: s.OnHand, CreatedAt: at,
	}
	if in.Delta > 0 {
		r.ExpiresOn = in.ExpiresOn
	}
	if in.Note != "" {
		r.SealedNote = a.store.sealer.Seal([]byte(in.Note))
	}
	a.data.Adjustments.insert(r)
	a.emit(webhooks.EventInventoryAdjusted, &webhooks.InventoryAdjustmentData{
		ID: r.ID, ProductID: p.ID, Location: r.Location, Delta: r.Delta, OnHandAfter: r.OnHandAfter,
		Reason: string(r.Reason), Reference: r.Reference,
	})
	if s.LowStock && !wasLow {
		a.emitLowStock(s)
	}
	return r, s, nil
}

func (a *Account) emitLowStock(s *StockRecord) {
	a.emit(webhooks.EventInventoryLowStock, &webhooks.LowStockData{
		ID: s.ID, ProductID: s.ProductID, Location: s.Location, OnHand: s.OnHand, ReorderPoint: s.ReorderPoint,
	})
}

// adjustmentOut is the API shape of an adjustment, with the note opened and the record given.
func (a *Account) adjustmentOut(r *AdjustmentRecord, s *StockRecord) inventory.Adjustment {
	out := inventory.Adjustment{
		ID: r.ID, ProductID: r.ProductID, Location: r.Location, Delta: r.Delta, Reason: r.Reason,
		LotNumber: r.LotNumber, ExpiresOn: r.ExpiresOn, Reference: r.Reference, OnHandAfter: r.OnHandAfter, CreatedAt: r.CreatedAt,
	}
	if r.SealedNote != nil {
		if b, err := a.store.sealer.Open(r.SealedNote); err == nil {
			out.Note = string(b)
		}
	}
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
