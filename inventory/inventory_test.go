package inventory_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/oapitest"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
)

var ctx = context.Background()

var badCtx = oapitest.WithoutRequestValidation(ctx)

func newEnv(t *testing.T) *testenv.Env {
	t.Helper()
	return testenv.New(t, nil)
}

func ptr[T any](v T) *T { return &v }

func date(s string) client.Date {
	d, err := client.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func mustProduct(t *testing.T, c *medspa.Client, p inventory.ProductCreateParams) *inventory.Product {
	t.Helper()
	if p.Name == "" {
		p.Name = "Product " + p.SKU
	}
	if p.Category == "" {
		p.Category = inventory.CategoryNeurotoxin
	}
	got, _, err := c.Products.Create(ctx, &p)
	if err != nil {
		t.Fatalf("product: %v", err)
	}
	return got
}

func mustAdjust(t *testing.T, c *medspa.Client, p inventory.AdjustParams) *inventory.Adjustment {
	t.Helper()
	a, _, err := c.Inventory.Adjust(ctx, &p)
	if err != nil {
		t.Fatalf("adjust %+v: %v", p, err)
	}
	return a
}

func stock(t *testing.T, c *medspa.Client, productID, location string) inventory.StockRecord {
	t.Helper()
	page, _, err := c.Inventory.List(ctx, &inventory.StockListParams{ProductID: productID, Location: location})
	if err != nil || len(page.Data) != 1 {
		t.Fatalf("stock of %s at %s: %v %+v", productID, location, err, page)
	}
	return page.Data[0]
}

func apiError(t *testing.T, err error, sentinel error) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) || !errors.Is(err, sentinel) {
		t.Fatalf("got %v, want %v", err, sentinel)
	}
	return e
}

// checkLots asserts onHand == sum(lots), lots ordered by expiry, none empty.
func checkLots(t *testing.T, s inventory.StockRecord) {
	t.Helper()
	var sum int64
	for i, l := range s.Lots {
		sum += l.Quantity
		if l.Quantity <= 0 {
			t.Errorf("lot %s has quantity %d", l.LotNumber, l.Quantity)
		}
		if i > 0 && l.ExpiresOn.Before(s.Lots[i-1].ExpiresOn) {
			t.Errorf("lots out of expiry order: %+v", s.Lots)
		}
	}
	if sum != s.OnHand {
		t.Errorf("onHand %d != sum of lots %d (%+v)", s.OnHand, sum, s.Lots)
	}
}

func TestProductLifecycle(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c := env.Client
	p := mustProduct(t, c, inventory.ProductCreateParams{SKU: "BTX-100", Name: "Botox 100u", Category: inventory.CategoryNeurotoxin, Price: 120000, Cost: 52000, ReorderPoint: 2, TrackLots: true})
	if !strings.HasPrefix(p.ID, "prd_") || p.Unit != inventory.UnitItem || p.Currency != "usd" || !p.Active || !p.TrackLots || p.ReorderPoint != 2 || p.Cost != 52000 {
		t.Errorf("created %+v", p)
	}
	if !p.CreatedAt.Equal(p.UpdatedAt) || p.CreatedAt.IsZero() {
		t.Errorf("timestamps %v %v", p.CreatedAt, p.UpdatedAt)
	}
	got, _, err := c.Products.Get(ctx, p.ID)
	if err != nil || *got != *p {
		t.Errorf("get %+v %v", got, err)
	}
	// Its stock record at main exists, empty and low.
	s := stock(t, c, p.ID, "main")
	if !strings.HasPrefix(s.ID, "stk_") || s.OnHand != 0 || s.SKU != "BTX-100" || s.ReorderPoint != 2 || !s.LowStock || len(s.Lots) != 0 {
		t.Errorf("initial stock %+v", s)
	}

	// Merge patch: set, reset to defaults with null, leave the rest.
	upd, _, err := c.Products.Update(ctx, p.ID, &inventory.ProductUpdateParams{
		Name: client.Set("Botox 100 units"), Unit: client.Set(inventory.UnitVial), Cost: client.Null[int64](),
		ReorderPoint: client.Set(int64(5)), SKU: client.Set("btx-100-v2"),
	})
	if err != nil || upd.Name != "Botox 100 units" || upd.Unit != inventory.UnitVial || upd.Cost != 0 || upd.ReorderPoint != 5 || upd.SKU != "btx-100-v2" || upd.Price != 120000 {
		t.Fatalf("update %+v %v", upd, err)
	}
	if s := stock(t, c, p.ID, "main"); s.SKU != "btx-100-v2" || s.ReorderPoint != 5 {
		t.Errorf("stock did not follow the product: %+v", s)
	}
	upd, _, err = c.Products.Update(ctx, p.ID, &inventory.ProductUpdateParams{Unit: client.Null[inventory.Unit](), Active: client.Set(false), ReorderPoint: client.Null[int64]()})
	if err != nil || upd.Unit != inventory.UnitItem || upd.Active || upd.ReorderPoint != 0 {
		t.Errorf("reset %+v %v", upd, err)
	}
	// An empty patch changes nothing, not even updatedAt.
	same, _, err := c.Products.Update(ctx, p.ID, &inventory.ProductUpdateParams{})
	if err != nil || *same != *upd {
		t.Errorf("empty patch %+v %v", same, err)
	}

	// trackLots can change while nothing is on hand; not after.
	if _, _, err := c.Products.Update(ctx, p.ID, &inventory.ProductUpdateParams{TrackLots: client.Set(false)}); err != nil {
		t.Fatalf("trackLots with nothing on hand: %v", err)
	}
	mustAdjust(t, c, inventory.AdjustParams{ProductID: p.ID, Delta: 3, Reason: inventory.ReasonReceived, Location: "annex"})
	_, _, err = c.Products.Update(ctx, p.ID, &inventory.ProductUpdateParams{TrackLots: client.Set(true), Name: client.Set("changed")})
	e := apiError(t, err, client.ErrInvalidStateTransition)
	if e.From != "false" || e.To != "true" {
		t.Errorf("from %q to %q", e.From, e.To)
	}
	if got, _, _ := c.Products.Get(ctx, p.ID); got.Name != "Botox 100 units" || got.TrackLots {
		t.Errorf("a refused patch changed the product: %+v", got)
	}
}

func TestDuplicateSKU(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c := env.Client
	a := mustProduct(t, c, inventory.ProductCreateParams{SKU: "JUV-1", Price: 1})
	b := mustProduct(t, c, inventory.ProductCreateParams{SKU: "JUV-2", Price: 1})
	_, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "juv-1", Name: "x", Category: inventory.CategoryFiller, Price: 1})
	apiError(t, err, client.ErrDuplicateSKU)
	_, _, err = c.Products.Update(ctx, b.ID, &inventory.ProductUpdateParams{SKU: client.Set("Juv-1")})
	apiError(t, err, client.ErrDuplicateSKU)
	// Changing the case of one's own SKU is fine, and frees nothing for others.
	if _, _, err := c.Products.Update(ctx, a.ID, &inventory.ProductUpdateParams{SKU: client.Set("juv-1")}); err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "JUV-1", Name: "x", Category: inventory.CategoryFiller, Price: 1})
	apiError(t, err, client.ErrDuplicateSKU)
	// A renamed SKU frees the old one.
	if _, _, err := c.Products.Update(ctx, a.ID, &inventory.ProductUpdateParams{SKU: client.Set("JUV-9")}); err != nil {
		t.Fatal(err)
	}
	mustProduct(t, c, inventory.ProductCreateParams{SKU: "Juv-1", Price: 1})
	if page, _, _ := c.Products.List(ctx, nil); page.Meta.Total != 3 {
		t.Errorf("%d products, want 3", page.Meta.Total)
	}
}

// problemBody is the part of a problem document the rule tests check.
type problemBody = testenv.Problem

func total(t *testing.T, env *testenv.Env, path string) int {
	return env.Total(t, path)
}

func TestProductRules(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	valid := `"sku":"S-1","name":"Serum","category":"skincare","price":100`
	long := func(n int) string { return strings.Repeat("x", n) }
	cases := []struct {
		name string
		body string
		want []string
	}{
		{"minimal", `{` + valid + `}`, nil},
		{"all fields", `{"sku":"` + long(64) + `","name":"` + long(200) + `","category":"device","unit":"ml","price":0,"cost":0,"currency":"eur","trackLots":true,"reorderPoint":0,"active":false}`, nil},
		{"empty", `{}`, []string{"/category required", "/name required", "/price required", "/sku required"}},
		{"blank strings", `{"sku":"  ","name":"","category":"skincare","price":1}`, []string{"/name required", "/sku required"}},
		{"too long", `{"sku":"` + long(65) + `","name":"` + long(201) + `","category":"skincare","price":1}`, []string{"/name too_long", "/sku too_long"}},
		{"enums and numbers", `{"sku":"A","name":"B","category":"drug","unit":"box","price":-1,"cost":-1,"currency":"Usd","reorderPoint":-1}`, []string{"/category invalid_value", "/cost out_of_range", "/currency invalid_format", "/price out_of_range", "/reorderPoint out_of_range", "/unit invalid_value"}},
		{"wrong types", `{"sku":1,"name":true,"category":["filler"],"price":"100","trackLots":"yes","active":1,"cost":1.5}`, []string{"/active invalid_value", "/category invalid_value", "/cost invalid_value", "/name invalid_value", "/price invalid_value", "/sku invalid_value", "/trackLots invalid_value"}},
		{"unknown and server fields", `{` + valid + `,"id":"prd_1","stock":3}`, []string{"/id unknown_field", "/stock unknown_field"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := total(t, env, "/api/v1/products")
			resp, body := env.DoInvalid(t, http.MethodPost, "/api/v1/products", tc.body)
			if tc.want == nil {
				if resp.StatusCode != http.StatusCreated {
					t.Fatalf("status %d: %s", resp.StatusCode, body)
				}
				return
			}
			testenv.ExpectFields(t, resp, body, tc.want)
			if after := total(t, env, "/api/v1/products"); after != before {
				t.Errorf("a rejected create changed the count: %d → %d", before, after)
			}
		})
	}
	p := mustProduct(t, env.Client, inventory.ProductCreateParams{SKU: "PATCH-1", Price: 5})
	for _, tc := range []struct {
		body string
		want []string
	}{
		{`{"sku":null,"name":null,"category":null,"price":null}`, []string{"/category required", "/name required", "/price required", "/sku required"}},
		{`{"sku":"","price":-5,"unit":"box"}`, []string{"/price out_of_range", "/sku required", "/unit invalid_value"}},
		{`{"currency":"EUR","id":"x"}`, []string{"/currency invalid_format", "/id unknown_field"}},
	} {
		resp, body := env.DoInvalid(t, http.MethodPatch, "/api/v1/products/"+p.ID, tc.body)
		var pb problemBody
		_ = json.Unmarshal(body, &pb)
		if resp.StatusCode != 422 || !slices.Equal(pb.Fields(), tc.want) {
			t.Errorf("%s: %d %v, want 422 %v", tc.body, resp.StatusCode, pb.Fields(), tc.want)
		}
	}
	if got, _, _ := env.Client.Products.Get(ctx, p.ID); *got != *p {
		t.Errorf("rejected patches changed the product: %+v", got)
	}
	_, _, err := env.Client.Products.Update(badCtx, "prd_0000000000000000000000000000000f", &inventory.ProductUpdateParams{Name: client.Set("x")})
	apiError(t, err, client.ErrNotFound)
	_, _, err = env.Client.Products.Get(badCtx, "prd_nope")
	apiError(t, err, client.ErrNotFound)
}

func TestProductListFilters(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c := env.Client
	var ids []string
	for _, p := range []inventory.ProductCreateParams{
		{SKU: "BTX-50", Name: "Botox 50u", Category: inventory.CategoryNeurotoxin, Price: 1},
		{SKU: "JUV-ULT", Name: "Juvederm Ultra", Category: inventory.CategoryFiller, Price: 1},
		{SKU: "SKN-C", Name: "Vitamin C serum", Category: inventory.CategorySkincare, Price: 1, Active: ptr(false)},
		{SKU: "DYS-1", Name: "Dysport", Category: inventory.CategoryNeurotoxin, Price: 1, Active: ptr(false)},
	} {
		ids = append(ids, mustProduct(t, c, p).ID)
	}
	list := func(p *inventory.ProductListParams) []string {
		t.Helper()
		return testenv.Collect(t, c.Products.All(ctx, p), func(p inventory.Product) string { return p.ID })
	}
	pick := func(is ...int) []string {
		var out []string
		for _, i := range is {
			out = append(out, ids[i])
		}
		return out
	}
	for _, tc := range []struct {
		name string
		p    *inventory.ProductListParams
		want []string
	}{
		{"all", nil, pick(0, 1, 2, 3)},
		{"paged desc", &inventory.ProductListParams{ListOptions: client.ListOptions{PerPage: 3}, Sort: medspa.SortCreatedDesc}, pick(3, 2, 1, 0)},
		{"category", &inventory.ProductListParams{Category: inventory.CategoryNeurotoxin}, pick(0, 3)},
		{"q name", &inventory.ProductListParams{Q: "SERUM"}, pick(2)},
		{"q sku", &inventory.ProductListParams{Q: "juv-"}, pick(1)},
		{"active", &inventory.ProductListParams{Active: ptr(true)}, pick(0, 1)},
		{"inactive", &inventory.ProductListParams{Active: ptr(false)}, pick(2, 3)},
		{"combined", &inventory.ProductListParams{Category: inventory.CategoryNeurotoxin, Active: ptr(false), Q: "dys"}, pick(3)},
	} {
		if got := list(tc.p); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, q := range []string{"category=drug", "active=yes", "sort=name", "sku=x"} {
		if resp, body := env.DoInvalid(t, http.MethodGet, "/api/v1/products?"+q, ""); resp.StatusCode != 422 {
			t.Errorf("%s: %d %s", q, resp.StatusCode, body)
		}
	}
}

// TestAdjustRules: every field rule of an adjustment, and the sign each reason requires.
func TestAdjustRules(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	plain := mustProduct(t, env.Client, inventory.ProductCreateParams{SKU: "PLAIN", Price: 1})
	lots := mustProduct(t, env.Client, inventory.ProductCreateParams{SKU: "LOTS", Price: 1, TrackLots: true})
	mustAdjust(t, env.Client, inventory.AdjustParams{ProductID: plain.ID, Delta: 100, Reason: inventory.ReasonReceived})
	mustAdjust(t, env.Client, inventory.AdjustParams{ProductID: lots.ID, Delta: 100, Reason: inventory.ReasonReceived, LotNumber: "L1", ExpiresOn: date("2030-01-01")})
	body := func(productID string, delta int, reason, extra string) string {
		b, _ := json.Marshal(map[string]any{"productId": productID, "delta": delta, "reason": reason})
		if extra != "" {
			return strings.TrimSuffix(string(b), "}") + "," + extra + "}"
		}
		return string(b)
	}
	type tcase struct {
		name string
		body string
		want []string // nil: accepted
	}
	cases := []tcase{
		{"empty", `{}`, []string{"/delta required", "/productId required", "/reason required"}},
		{"zero delta", body(plain.ID, 0, "correction", ""), []string{"/delta invalid_value"}},
		{"delta bounds", body(plain.ID, 1_000_001, "received", ""), []string{"/delta out_of_range"}},
		{"delta lower bound", body(plain.ID, -1_000_001, "used", ""), []string{"/delta out_of_range"}},
		{"delta max ok", body(plain.ID, 1_000_000, "received", ""), nil},
		{"unknown reason", body(plain.ID, 1, "found", ""), []string{"/reason invalid_value"}},
		{"bad location", body(plain.ID, 1, "received", `"location":"Main Room"`), []string{"/location invalid_format"}},
		{"location too long", body(plain.ID, 1, "received", `"location":"`+strings.Repeat("a", 65)+`"`), []string{"/location invalid_format"}},
		{"bad ids and types", `{"productId":"prd_1","delta":"5","reason":"received","expiresOn":"2030-02-30","note":1}`, []string{"/delta invalid_value", "/expiresOn invalid_format", "/note invalid_value", "/productId invalid_format"}},
		{"unknown field", body(plain.ID, 1, "received", `"sku":"PLAIN"`), []string{"/sku unknown_field"}},
		{"note too long", body(plain.ID, 1, "received", `"note":"`+strings.Repeat("n", 10001)+`"`), []string{"/note too_long"}},
		{"unknown product", body("prd_0000000000000000000000000000000f", 1, "received", ""), []string{"/productId not_found"}},
		{"lots on a plain product", body(plain.ID, 1, "received", `"lotNumber":"L1","expiresOn":"2030-01-01"`), []string{"/expiresOn invalid_value", "/lotNumber invalid_value"}},
		{"lot-tracked receive needs lot and expiry", body(lots.ID, 1, "received", ""), []string{"/expiresOn required", "/lotNumber required"}},
		{"lot-tracked correction up needs lot", body(lots.ID, 1, "correction", `"expiresOn":"2030-01-01"`), []string{"/lotNumber required"}},
		{"existing lot, other expiry", body(lots.ID, 1, "received", `"lotNumber":"L1","expiresOn":"2031-01-01"`), []string{"/expiresOn invalid_value"}},
		{"unknown lot", body(lots.ID, -1, "used", `"lotNumber":"L9"`), []string{"/lotNumber not_found"}},
	}
	// The reason/sign table.
	for _, r := range []struct {
		reason      string
		plus, minus bool
	}{
		{"received", true, false}, {"returned", true, false},
		{"sale", false, true}, {"used", false, true}, {"expired", false, true}, {"damaged", false, true},
		{"correction", true, true},
	} {
		for _, d := range []int{1, -1} {
			ok := d > 0 && r.plus || d < 0 && r.minus
			var want []string
			if !ok {
				want = []string{"/delta invalid_value"}
			}
			cases = append(cases, tcase{r.reason + " " + map[int]string{1: "+", -1: "-"}[d], body(plain.ID, d, r.reason, ""), want})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := total(t, env, "/api/v1/inventory")
			plainBefore, lotsBefore := stock(t, env.Client, plain.ID, "main"), stock(t, env.Client, lots.ID, "main")
			resp, b := env.DoInvalid(t, http.MethodPost, "/api/v1/inventory/adjust", tc.body)
			if tc.want == nil {
				if resp.StatusCode != http.StatusCreated {
					t.Fatalf("status %d: %s", resp.StatusCode, b)
				}
				return
			}
			testenv.ExpectFields(t, resp, b, tc.want)
			if after := total(t, env, "/api/v1/inventory"); after != before {
				t.Errorf("a rejected adjustment created a record")
			}
			if a, b := stock(t, env.Client, plain.ID, "main"), stock(t, env.Client, lots.ID, "main"); a.OnHand != plainBefore.OnHand || b.OnHand != lotsBefore.OnHand || len(b.Lots) != len(lotsBefore.Lots) {
				t.Errorf("a rejected adjustment moved stock")
			}
		})
	}
}

func TestAdjustPlainStock(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c := env.Client
	p := mustProduct(t, c, inventory.ProductCreateParams{SKU: "GAUZE", Price: 1, ReorderPoint: 3, Category: inventory.CategoryConsumable})
	a := mustAdjust(t, c, inventory.AdjustParams{ProductID: p.ID, Delta: 10, Reason: inventory.ReasonReceived, Note: "from supplier, box dented", Reference: "PO-1"})
	if !strings.HasPrefix(a.ID, "adj_") || a.Location != "main" || a.OnHandAfter != 10 || a.Delta != 10 || a.Reason != inventory.ReasonReceived ||
		a.Note != "from supplier, box dented" || a.Reference != "PO-1" || a.Inventory.OnHand != 10 || a.Inventory.LowStock || a.CreatedAt.IsZero() || a.Inventory.ProductID != p.ID {
		t.Errorf("adjustment %+v", a)
	}
	a = mustAdjust(t, c, inventory.AdjustParams{ProductID: p.ID, Delta: -7, Reason: inventory.ReasonUsed})
	if a.OnHandAfter != 3 || !a.Inventory.LowStock {
		t.Errorf("at the reorder point: %+v", a.Inventory)
	}
	_, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: -4, Reason: inventory.ReasonDamaged})
	e := apiError(t, err, client.ErrInsufficientStock)
	if e.Available == nil || *e.Available != 3 {
		t.Errorf("available %v, want 3", e.Available)
	}
	mustAdjust(t, c, inventory.AdjustParams{ProductID: p.ID, Delta: -3, Reason: inventory.ReasonCorrection})
	if s := stock(t, c, p.ID, "main"); s.OnHand != 0 {
		t.Errorf("on hand %d", s.OnHand)
	}
	// A new location creates its record; refusing at a new location creates nothing.
	_, _, err = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Location: "annex", Delta: -1, Reason: inventory.ReasonUsed})
	e = apiError(t, err, client.ErrInsufficientStock)
	if *e.Available != 0 {
		t.Errorf("available %d", *e.Available)
	}
	if page, _, _ := c.Inventory.List(ctx, &inventory.StockListParams{ProductID: p.ID}); page.Meta.Total != 1 {
		t.Errorf("%d records, want 1 (no annex yet)", page.Meta.Total)
	}
	a = mustAdjust(t, c, inventory.AdjustParams{ProductID: p.ID, Location: "annex", Delta: 4, Reason: inventory.ReasonReturned})
	if a.Location != "annex" || a.Inventory.Location != "annex" || a.Inventory.OnHand != 4 || a.Inventory.ReorderPoint != 3 || a.Inventory.SKU != "GAUZE" {
		t.Errorf("annex %+v", a)
	}
	if page, _, _ := c.Inventory.List(ctx, &inventory.StockListParams{ProductID: p.ID}); page.Meta.Total != 2 {
		t.Errorf("%d records, want 2", page.Meta.Total)
	}
}

func TestLotsFEFO(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c := env.Client
	p := mustProduct(t, c, inventory.ProductCreateParams{SKU: "FILLER", Price: 1, TrackLots: true, ReorderPoint: 2, Category: inventory.CategoryFiller})
	// Received out of expiry order; the record orders them.
	mustAdjust(t, c, inventory.AdjustParams{ProductID: p.ID, Delta: 5, Reason: inventory.ReasonReceived, LotNumber: "LATE", ExpiresOn: date("2031-06-30")})
	a := mustAdjust(t, c, inventory.AdjustParams{ProductID: p.ID, Delta: 3, Reason: inventory.ReasonReceived, LotNumber: "EARLY", ExpiresOn: date("2030-01-31")})
	if a.ExpiresOn != date("2030-01-31") || a.LotNumber != "EARLY" {
		t.Errorf("adjustment lot %+v", a)
	}
	s := a.Inventory
	checkLots(t, s)
	if s.OnHand != 8 || len(s.Lots) != 2 || s.Lots[0].LotNumber != "EARLY" || s.Lots[1].LotNumber != "LATE" {
		t.Fatalf("lots %+v", s.Lots)
	}
	// Adding to an existing lot with its expiry.
	a = mustAdjust(t, c, inventory.AdjustParams{ProductID: p.ID, Delta: 1, Reason: inventory.ReasonReturned, LotNumber: "EARLY", ExpiresOn: date("2030-01-31")})
	checkLots(t, a.Inventory)
	if a.Inventory.Lots[0].Quantity != 4 {
		t.Errorf("EARLY %d, want 4", a.Inventory.Lots[0].Quantity)
	}
	// FEFO: 6 used takes all 4 of EARLY and 2 of LATE; the emptied lot disappears.
	a = mustAdjust(t, c, inventory.AdjustParams{ProductID: p.ID, Delta: -6, Reason: inventory.ReasonUsed})
	checkLots(t, a.Inventory)
	if len(a.Inventory.Lots) != 1 || a.Inventory.Lots[0].LotNumber != "LATE" || a.Inventory.Lots[0].Quantity != 3 || a.OnHandAfter != 3 {
		t.Errorf("after FEFO %+v", a.Inventory)
	}
	// A named lot: never below zero, even if the record as a whole has enough.
	mustAdjust(t, c, inventory.AdjustParams{ProductID: p.ID, Delta: 2, Reason: inventory.ReasonReceived, LotNumber: "MID", ExpiresOn: date("2030-12-31")})
	_, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: -3, Reason: inventory.ReasonExpired, LotNumber: "MID"})
	e := apiError(t, err, client.ErrInsufficientStock)
	if e.Available == nil || *e.Available != 2 {
		t.Errorf("available %v, want the lot's 2", e.Available)
	}
	a = mustAdjust(t, c, inventory.AdjustParams{ProductID: p.ID, Delta: -2, Reason: inventory.ReasonExpired, LotNumber: "MID"})
	checkLots(t, a.Inventory)
	if a.Inventory.OnHand != 3 || len(a.Inventory.Lots) != 1 || a.LotNumber != "MID" {
		t.Errorf("after named lot %+v", a)
	}
	// Taking more than the whole record.
	_, _, err = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: -4, Reason: inventory.ReasonUsed})
	e = apiError(t, err, client.ErrInsufficientStock)
	if *e.Available != 3 {
		t.Errorf("available %d, want 3", *e.Available)
	}
	checkLots(t, stock(t, c, p.ID, "main"))
}

func TestStockListFilters(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c := env.Client
	a := mustProduct(t, c, inventory.ProductCreateParams{SKU: "A", Price: 1, TrackLots: true, ReorderPoint: 5})
	b := mustProduct(t, c, inventory.ProductCreateParams{SKU: "B", Price: 1, ReorderPoint: 1})
	mustAdjust(t, c, inventory.AdjustParams{ProductID: a.ID, Delta: 10, Reason: inventory.ReasonReceived, LotNumber: "A1", ExpiresOn: date("2027-01-15")})
	mustAdjust(t, c, inventory.AdjustParams{ProductID: a.ID, Location: "annex", Delta: 2, Reason: inventory.ReasonReceived, LotNumber: "A2", ExpiresOn: date("2028-01-15")})
	mustAdjust(t, c, inventory.AdjustParams{ProductID: b.ID, Delta: 9, Reason: inventory.ReasonReceived})
	key := func(s inventory.StockRecord) string { return s.SKU + "@" + s.Location }
	list := func(p *inventory.StockListParams) []string {
		t.Helper()
		return testenv.Collect(t, c.Inventory.All(ctx, p), key)
	}
	for _, tc := range []struct {
		name string
		p    *inventory.StockListParams
		want []string
	}{
		{"all, in creation order", &inventory.StockListParams{ListOptions: client.ListOptions{PerPage: 1}}, []string{"A@main", "B@main", "A@annex"}},
		{"product", &inventory.StockListParams{ProductID: a.ID}, []string{"A@main", "A@annex"}},
		{"location", &inventory.StockListParams{Location: "main"}, []string{"A@main", "B@main"}},
		{"low", &inventory.StockListParams{LowStock: ptr(true)}, []string{"A@annex"}},
		{"not low", &inventory.StockListParams{LowStock: ptr(false)}, []string{"A@main", "B@main"}},
		{"expiring before", &inventory.StockListParams{ExpiringBefore: date("2027-06-01")}, []string{"A@main"}},
		{"expiring before is exclusive", &inventory.StockListParams{ExpiringBefore: date("2027-01-15")}, nil},
		{"expiring before, later", &inventory.StockListParams{ExpiringBefore: date("2029-01-01"), Location: "annex"}, []string{"A@annex"}},
	} {
		if got := list(tc.p); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	for _, q := range []string{"lowStock=1", "expiringBefore=2027-13-01", "sort=-createdAt", "sku=A"} {
		if resp, body := env.DoInvalid(t, http.MethodGet, "/api/v1/inventory?"+q, ""); resp.StatusCode != 422 {
			t.Errorf("%s: %d %s", q, resp.StatusCode, body)
		}
	}
}

// TestConcurrentAdjustments: 100 adjustments (+ and −) on one record land exactly once each;
// onHand ends at the exact sum and never went below zero (every refusal was for real).
func TestConcurrentAdjustments(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c := env.Client
	p := mustProduct(t, c, inventory.ProductCreateParams{SKU: "CONC", Price: 1})
	mustAdjust(t, c, inventory.AdjustParams{ProductID: p.ID, Delta: 20, Reason: inventory.ReasonReceived})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var sum int64 = 20
	var afters []int64
	for i := range 100 {
		wg.Go(func() {
			delta, reason := int64(3), inventory.ReasonReceived
			if i%2 == 1 {
				delta, reason = -4, inventory.ReasonUsed
			}
			a, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: delta, Reason: reason})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				sum += delta
				afters = append(afters, a.OnHandAfter)
			case errors.Is(err, client.ErrInsufficientStock):
				var e *client.Error
				errors.As(err, &e)
				if *e.Available >= 4 {
					t.Errorf("refused with %d available", *e.Available)
				}
			default:
				t.Errorf("adjust: %v", err)
			}
		})
	}
	wg.Wait()
	s := stock(t, c, p.ID, "main")
	if s.OnHand != sum {
		t.Errorf("on hand %d, want the exact sum %d", s.OnHand, sum)
	}
	for _, v := range afters {
		if v < 0 {
			t.Errorf("onHandAfter %d < 0", v)
		}
	}
	if len(afters) < 50 {
		t.Errorf("only %d adjustments succeeded; every receipt should have", len(afters))
	}
}

// TestConcurrentLotAdjustments: lot-tracked stock stays consistent (onHand == sum of lots) under
// concurrent receipts, FEFO removals and named-lot removals.
func TestConcurrentLotAdjustments(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c := env.Client
	p := mustProduct(t, c, inventory.ProductCreateParams{SKU: "LOTC", Price: 1, TrackLots: true})
	lotNames := []string{"L1", "L2", "L3", "L4"}
	exp := []string{"2030-04-01", "2030-01-01", "2030-03-01", "2030-02-01"}
	for i, l := range lotNames {
		mustAdjust(t, c, inventory.AdjustParams{ProductID: p.ID, Delta: 10, Reason: inventory.ReasonReceived, LotNumber: l, ExpiresOn: date(exp[i])})
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var sum int64 = 40
	for i := range 60 {
		wg.Go(func() {
			in := inventory.AdjustParams{ProductID: p.ID}
			switch i % 3 {
			case 0:
				in.Delta, in.Reason, in.LotNumber, in.ExpiresOn = 2, inventory.ReasonReceived, lotNames[i%4], date(exp[i%4])
			case 1:
				in.Delta, in.Reason = -3, inventory.ReasonUsed
			case 2:
				in.Delta, in.Reason, in.LotNumber = -1, inventory.ReasonDamaged, lotNames[(i/3)%4]
			}
			_, _, err := c.Inventory.Adjust(ctx, &in)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				sum += in.Delta
			case errors.Is(err, client.ErrInsufficientStock), errors.Is(err, client.ErrValidation) && in.LotNumber != "":
				// a lot emptied by FEFO is gone (not_found), or short
			default:
				t.Errorf("adjust %+v: %v", in, err)
			}
		})
	}
	wg.Wait()
	s := stock(t, c, p.ID, "main")
	checkLots(t, s)
	if s.OnHand != sum {
		t.Errorf("on hand %d, want %d", s.OnHand, sum)
	}
}

func TestAdjustEndToEndWithTime(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	env.Server.SetTime(env.Key.Account, at)
	p := mustProduct(t, env.Client, inventory.ProductCreateParams{SKU: "T", Price: 1})
	a := mustAdjust(t, env.Client, inventory.AdjustParams{ProductID: p.ID, Delta: 1, Reason: inventory.ReasonReceived})
	if !a.CreatedAt.Equal(at) || !a.Inventory.UpdatedAt.Equal(at) || !p.CreatedAt.Equal(at) {
		t.Errorf("times %v %v %v, want the account clock %v", a.CreatedAt, a.Inventory.UpdatedAt, p.CreatedAt, at)
	}
}

func TestScopes(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	p := mustProduct(t, env.Client, inventory.ProductCreateParams{SKU: "S", Price: 1})
	k := env.NewKey(t, testKey(env.Key.Account, "inventory:read"))
	rc := env.ClientFor(t, k.Key)
	if _, _, err := rc.Products.Get(ctx, p.ID); err != nil {
		t.Errorf("inventory:read get: %v", err)
	}
	if _, _, err := rc.Inventory.List(ctx, nil); err != nil {
		t.Errorf("inventory:read list: %v", err)
	}
	_, _, err := rc.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: 1, Reason: inventory.ReasonReceived})
	apiError(t, err, client.ErrInsufficientScope)
	_, _, err = rc.Products.Update(ctx, p.ID, &inventory.ProductUpdateParams{Name: client.Set("x")})
	apiError(t, err, client.ErrInsufficientScope)
	_, _, err = rc.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "T", Name: "x", Category: inventory.CategoryOther, Price: 1})
	apiError(t, err, client.ErrInsufficientScope)
	bc := env.ClientFor(t, env.NewKey(t, testKey(env.Key.Account, "billing:write")).Key)
	_, _, err = bc.Products.List(ctx, nil)
	apiError(t, err, client.ErrInsufficientScope)
}

func testKey(account string, scopes ...string) mockserver.APIKeyParams {
	return mockserver.APIKeyParams{Plan: "enterprise", Scopes: scopes, Account: account}
}

// TestHostileBodiesNeverFail500: odd JSON on every billing and inventory write answers a 4xx
// problem and changes nothing.
func TestHostileBodiesNeverFail500(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	p := mustProduct(t, env.Client, inventory.ProductCreateParams{SKU: "H", Price: 1})
	bodies := []string{
		`null`, `[]`, `"x"`, `1`, `{"a":1}{}`, `{"lineItems":{}}`, `{"lineItems":[[]]}`, `{"lineItems":[null]}`,
		`{"lineItems":"x","patientId":[]}`, `{"quantity":1e400}`, `{"delta":-0,"reason":"used","productId":"` + p.ID + `"}`,
		`{"delta":1e2,"reason":"received","productId":"` + p.ID + `"}`, `{"delta":9223372036854775808}`,
		`{"amount":-9223372036854775809,"method":null}`, `{"price":1.0}`, `{"sku":"\u0000"}`, `{"sku":"a\u007fb","name":"x","category":"other","price":1}`, `{"lotNumber":"L\n1","delta":1,"reason":"received","productId":"` + p.ID + `","expiresOn":"2030-01-01"}`, `{"expiresOn":20300101}`,
		`{"lineItems":[{"quantity":1,"unitAmount":9223372036854775807,"description":"x","productId":null}],"patientId":"pat_0000000000000000000000000000000f"}`,
		`{"location":"` + strings.Repeat("é", 70) + `"}`, `{"active":null,"trackLots":null,"sku":null}`,
	}
	paths := []struct{ method, path string }{
		{http.MethodPost, "/api/v1/invoices"}, {http.MethodPost, "/api/v1/payments"}, {http.MethodPost, "/api/v1/products"},
		{http.MethodPatch, "/api/v1/products/" + p.ID}, {http.MethodPost, "/api/v1/inventory/adjust"},
	}
	for _, ep := range paths {
		for _, b := range bodies {
			resp, body := env.DoInvalid(t, ep.method, ep.path, b)
			if resp.StatusCode >= 500 || resp.StatusCode < 400 || resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("%s %s %s: %d %s", ep.method, ep.path, b, resp.StatusCode, body)
			}
		}
	}
	if got, _, _ := env.Client.Products.Get(ctx, p.ID); *got != *p {
		t.Errorf("hostile patches changed the product")
	}
	if s := stock(t, env.Client, p.ID, "main"); s.OnHand != 0 {
		t.Errorf("hostile adjustments moved stock: %d", s.OnHand)
	}
}
