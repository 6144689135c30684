// Package inventory is the inventory area of the MedSpa API: products, their stock per location
// (with lots and expiry for lot-tracked products) and stock adjustments.
package inventory

import (
	"context"
	"iter"
	"net/http"
	"time"

	"github.com/medspa/medspa-go/client"
)

// Category groups products.
type Category string

// Product categories.
const (
	CategoryNeurotoxin Category = "neurotoxin"
	CategoryFiller     Category = "filler"
	CategorySkincare   Category = "skincare"
	CategoryDevice     Category = "device"
	CategoryConsumable Category = "consumable"
	CategoryOther      Category = "other"
)

// Validate refuses a Category other than the six above (medspa.ErrInvalidArgument): the call
// path runs it before anything is sent.
func (c Category) Validate() error {
	return client.CheckEnum(c, CategoryNeurotoxin, CategoryFiller, CategorySkincare, CategoryDevice, CategoryConsumable, CategoryOther)
}

// Unit is what one unit of a product is.
type Unit string

// Product units (default UnitItem).
const (
	UnitUnit    Unit = "unit"
	UnitSyringe Unit = "syringe"
	UnitVial    Unit = "vial"
	UnitML      Unit = "ml"
	UnitItem    Unit = "item"
)

// Validate refuses a Unit other than the five above (medspa.ErrInvalidArgument).
func (u Unit) Validate() error {
	return client.CheckEnum(u, UnitUnit, UnitSyringe, UnitVial, UnitML, UnitItem)
}

// Product is a product the spa sells or uses.
type Product struct {
	ID string `json:"id"`
	// SKU is unique case-insensitively.
	SKU      string   `json:"sku"`
	Name     string   `json:"name"`
	Category Category `json:"category"`
	Unit     Unit     `json:"unit"`
	// Price and Cost are in minor units of Currency.
	Price    int64  `json:"price"`
	Cost     int64  `json:"cost,omitempty"`
	Currency string `json:"currency"`
	// TrackLots makes stock be kept per lot, with expiry dates.
	TrackLots bool `json:"trackLots"`
	// ReorderPoint is the on-hand count at or below which stock is low.
	ReorderPoint int64     `json:"reorderPoint"`
	Active       bool      `json:"active"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

// ProductCreateParams are the fields of a new product. SKU, Name, Category and Price are
// required. Creating a product creates its stock record at location "main" with nothing on hand.
type ProductCreateParams struct {
	SKU      string   `json:"sku"`
	Name     string   `json:"name"`
	Category Category `json:"category"`
	// Unit defaults to UnitItem.
	Unit  Unit  `json:"unit,omitempty"`
	Price int64 `json:"price"`
	Cost  int64 `json:"cost,omitempty"`
	// Currency is an ISO 4217 code, lowercase (default "usd").
	Currency     string `json:"currency,omitempty"`
	TrackLots    bool   `json:"trackLots,omitempty"`
	ReorderPoint int64  `json:"reorderPoint,omitempty"`
	// Active defaults to true; nil leaves the default.
	Active *bool `json:"active,omitempty"`
}

// ProductUpdateParams is a merge patch: fields left zero are unchanged, medspa.Set sets one,
// medspa.Null resets an optional one to its default (clearing SKU, Name, Category or Price is a
// validation error). TrackLots can change only while nothing is on hand.
type ProductUpdateParams struct {
	SKU          client.Optional[string]   `json:"sku,omitzero"`
	Name         client.Optional[string]   `json:"name,omitzero"`
	Category     client.Optional[Category] `json:"category,omitzero"`
	Unit         client.Optional[Unit]     `json:"unit,omitzero"`
	Price        client.Optional[int64]    `json:"price,omitzero"`
	Cost         client.Optional[int64]    `json:"cost,omitzero"`
	Currency     client.Optional[string]   `json:"currency,omitzero"`
	TrackLots    client.Optional[bool]     `json:"trackLots,omitzero"`
	ReorderPoint client.Optional[int64]    `json:"reorderPoint,omitzero"`
	Active       client.Optional[bool]     `json:"active,omitzero"`
}

// ProductListParams filter and page a product list; filters combine with AND.
type ProductListParams struct {
	client.ListOptions
	Category Category `url:"category,omitempty"`
	// Q matches a case-insensitive substring of the name or SKU.
	Q string `url:"q,omitempty"`
	// Active, when set, keeps active (or inactive) products only.
	Active *bool `url:"active,omitempty"`
	// Sort is medspa.SortCreatedAsc (default) or medspa.SortCreatedDesc.
	Sort client.Sort `url:"sort,omitempty"`
}

// Lot is a quantity of a lot-tracked product with one lot number and expiry date.
type Lot struct {
	LotNumber string      `json:"lotNumber"`
	ExpiresOn client.Date `json:"expiresOn"`
	Quantity  int64       `json:"quantity"`
}

// StockRecord is the stock of one product at one location.
type StockRecord struct {
	ID        string `json:"id"`
	ProductID string `json:"productId"`
	SKU       string `json:"sku"`
	Location  string `json:"location"`
	// OnHand is the quantity in stock; for lot-tracked products, the sum of the lots.
	OnHand       int64 `json:"onHand"`
	ReorderPoint int64 `json:"reorderPoint"`
	// LowStock is OnHand <= ReorderPoint.
	LowStock bool `json:"lowStock"`
	// Lots, ordered by expiry, for lot-tracked products.
	Lots      []Lot     `json:"lots,omitempty"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// StockListParams filter and page the stock records; filters combine with AND.
type StockListParams struct {
	client.ListOptions
	ProductID string `url:"productId,omitempty"`
	Location  string `url:"location,omitempty"`
	// LowStock, when set, keeps records whose stock is (or is not) low.
	LowStock *bool `url:"lowStock,omitempty"`
	// ExpiringBefore keeps records with a lot expiring before the date.
	ExpiringBefore client.Date `url:"expiringBefore,omitempty"`
}

// Reason says why stock moved; it fixes the sign of the delta.
type Reason string

// Adjustment reasons: received and returned add stock; sale, used, expired and damaged remove
// it; correction does either.
const (
	ReasonReceived   Reason = "received"
	ReasonReturned   Reason = "returned"
	ReasonSale       Reason = "sale"
	ReasonUsed       Reason = "used"
	ReasonExpired    Reason = "expired"
	ReasonDamaged    Reason = "damaged"
	ReasonCorrection Reason = "correction"
)

// Validate refuses a Reason other than the seven above (medspa.ErrInvalidArgument): the call
// path runs it before anything is sent.
func (r Reason) Validate() error {
	return client.CheckEnum(r, ReasonReceived, ReasonReturned, ReasonSale, ReasonUsed, ReasonExpired, ReasonDamaged, ReasonCorrection)
}

// AdjustParams are the fields of a stock adjustment. ProductID, Delta (non-zero, |delta| ≤
// 1,000,000, signed as Reason requires) and Reason are required. For lot-tracked products a
// positive Delta needs LotNumber and ExpiresOn; a negative one takes from LotNumber, or
// first-expiring-first-out without it.
type AdjustParams struct {
	ProductID string `json:"productId"`
	// Location defaults to "main"; a new location creates its record.
	Location  string      `json:"location,omitempty"`
	Delta     int64       `json:"delta"`
	Reason    Reason      `json:"reason"`
	LotNumber string      `json:"lotNumber,omitempty"`
	ExpiresOn client.Date `json:"expiresOn,omitzero"`
	// Note is free text (treated as PHI).
	Note      string `json:"note,omitempty"`
	Reference string `json:"reference,omitempty"`
}

// Adjustment is a recorded stock movement and the stock record after it.
type Adjustment struct {
	ID          string      `json:"id"`
	ProductID   string      `json:"productId"`
	Location    string      `json:"location"`
	Delta       int64       `json:"delta"`
	Reason      Reason      `json:"reason"`
	LotNumber   string      `json:"lotNumber,omitempty"`
	ExpiresOn   client.Date `json:"expiresOn,omitzero"`
	Note        string      `json:"note,omitempty"`
	Reference   string      `json:"reference,omitempty"`
	OnHandAfter int64       `json:"onHandAfter"`
	CreatedAt   time.Time   `json:"createdAt"`
	// Inventory is the stock record after the adjustment.
	Inventory StockRecord `json:"inventory"`
}

// ProductsService calls the product endpoints. Get one from medspa.New (the client's Products
// field). Every method but All also returns the metadata of the server's answer
// (*medspa.Response: status, request id, rate limit, attempts), with the result or the error;
// it is nil when no answer arrived.
//
// Its methods take per-call options after their arguments: medspa.RequestOption values such
// as medspa.WithMaxRetries(0) or medspa.WithHeader(k, v).
type ProductsService struct{ e *client.Engine }

// NewProductsService returns a ProductsService sending through e (medspa.New does this for you).
func NewProductsService(e *client.Engine) *ProductsService { return &ProductsService{e: e} }

// Create creates a product (and its empty stock record at "main") and returns it. A SKU in use
// (case-insensitively) is medspa.ErrDuplicateSKU.
func (s *ProductsService) Create(ctx context.Context, params *ProductCreateParams, opts ...client.RequestOption) (*Product, *client.Response, error) {
	return client.Call[Product](ctx, s.e, http.MethodPost, client.Path("products"), params, opts...)
}

// Get returns the product with the given id (medspa.ErrNotFound if there is none).
func (s *ProductsService) Get(ctx context.Context, id string, opts ...client.RequestOption) (*Product, *client.Response, error) {
	return client.Call[Product](ctx, s.e, http.MethodGet, client.Path("products", id), nil, opts...)
}

// Update applies params (a merge patch) to the product and returns the product as it is now.
func (s *ProductsService) Update(ctx context.Context, id string, params *ProductUpdateParams, opts ...client.RequestOption) (*Product, *client.Response, error) {
	return client.Call[Product](ctx, s.e, http.MethodPatch, client.Path("products", id), params, opts...)
}

// List returns one page of products.
func (s *ProductsService) List(ctx context.Context, params *ProductListParams, opts ...client.RequestOption) (*client.Page[Product], *client.Response, error) {
	return client.List[Product](ctx, s.e, client.Path("products"), params, opts...)
}

// All iterates over every product matching params, fetching pages as needed; an error ends the
// iteration.
func (s *ProductsService) All(ctx context.Context, params *ProductListParams, opts ...client.RequestOption) iter.Seq2[Product, error] {
	return client.All[Product](ctx, s.e, client.Path("products"), params, opts...)
}

// InventoryService calls the inventory endpoints: stock records and adjustments. Get one from
// medspa.New (the client's Inventory field). Every method but All also returns the metadata of
// the server's answer (*medspa.Response), as ProductsService's do.
//
// Its methods take per-call options after their arguments: medspa.RequestOption values such
// as medspa.WithMaxRetries(0) or medspa.WithHeader(k, v).
type InventoryService struct{ e *client.Engine }

// NewInventoryService returns an InventoryService sending through e (medspa.New does this for you).
func NewInventoryService(e *client.Engine) *InventoryService { return &InventoryService{e: e} }

// List returns one page of stock records.
func (s *InventoryService) List(ctx context.Context, params *StockListParams, opts ...client.RequestOption) (*client.Page[StockRecord], *client.Response, error) {
	return client.List[StockRecord](ctx, s.e, client.Path("inventory"), params, opts...)
}

// All iterates over every stock record matching params, fetching pages as needed; an error
// ends the iteration.
func (s *InventoryService) All(ctx context.Context, params *StockListParams, opts ...client.RequestOption) iter.Seq2[StockRecord, error] {
	return client.All[StockRecord](ctx, s.e, client.Path("inventory"), params, opts...)
}

// Adjust moves stock and returns the adjustment with the updated record. Taking more than is on
// hand (or in the lot) is medspa.ErrInsufficientStock, with Available set.
func (s *InventoryService) Adjust(ctx context.Context, params *AdjustParams, opts ...client.RequestOption) (*Adjustment, *client.Response, error) {
	return client.Call[Adjustment](ctx, s.e, http.MethodPost, client.Path("inventory", "adjust"), params, opts...)
}
