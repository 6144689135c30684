package inventory_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
)

// FuzzInventoryBodies sends arbitrary bodies to adjust stock and to patch a product
// (in-process): never a 5xx, every error a problem document, a rejected request changes
// nothing, and lot-tracked stock always equals the sum of its lots.
func FuzzInventoryBodies(f *testing.F) {
	for _, seed := range []string{
		`{"delta":5,"reason":"received","lotNumber":"A","expiresOn":"2030-01-01"}`,
		`{"delta":-3,"reason":"used"}`, `{"delta":-1,"reason":"expired","lotNumber":"A"}`,
		`{"delta":2,"reason":"correction","lotNumber":"B","expiresOn":"2029-02-28","location":"annex"}`,
		`{"delta":1000000,"reason":"returned","lotNumber":"A","expiresOn":"2031-01-01"}`,
		`{"sku":"X","trackLots":false}`, `{"reorderPoint":5,"price":null}`, `{"currency":null,"unit":null,"active":null}`,
		`{"delta":0}`, `[]`, `null`, "\xff", `{"a":1,"a":1}`,
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	srv, err := mockserver.New()
	if err != nil {
		f.Fatal(err)
	}
	c, key := testenv.Unlimited(f, srv) // an exhausted plan would stall the fuzzer on 429 waits
	p, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "F", Name: "F", Category: inventory.CategoryFiller, Price: 1, TrackLots: true, ReorderPoint: 3})
	if err != nil {
		f.Fatal(err)
	}
	if _, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: p.ID, Delta: 10, Reason: inventory.ReasonReceived, LotNumber: "A", ExpiresOn: client.NewDate(2030, 1, 1)}); err != nil {
		f.Fatal(err)
	}
	hc := srv.HTTPClient()
	send := func(t *testing.T, method, path string, body []byte) int {
		status, _ := testenv.Send(t, hc, method, mockserver.InProcessBaseURL+path, key.Key, "application/json", body)
		return status
	}
	records := func() string {
		var out []string
		for s, err := range c.Inventory.All(ctx, &inventory.StockListParams{ProductID: p.ID}) {
			if err != nil {
				return err.Error()
			}
			var sum int64
			for _, l := range s.Lots {
				sum += l.Quantity
			}
			if s.OnHand < 0 || (s.OnHand != sum && len(s.Lots) > 0) {
				return "broken: " + s.Location
			}
			b, _ := json.Marshal(s)
			out = append(out, string(b))
		}
		return strings.Join(out, "\n")
	}
	f.Fuzz(func(t *testing.T, body []byte, patch bool) {
		if patch {
			before, _, _ := c.Products.Get(ctx, p.ID)
			status := send(t, http.MethodPatch, "/api/v1/products/"+p.ID, body)
			if after, _, _ := c.Products.Get(ctx, p.ID); status != http.StatusOK && *after != *before {
				t.Fatalf("rejected (%d) but changed: %+v → %+v", status, before, after)
			}
			return
		}
		b := strings.Replace(string(body), "{", `{"productId":"`+p.ID+`",`, 1)
		before := records()
		status := send(t, http.MethodPost, "/api/v1/inventory/adjust", []byte(b))
		after := records()
		if strings.HasPrefix(after, "broken") {
			t.Fatalf("after %q: %s", b, after)
		}
		if status != http.StatusCreated && after != before {
			t.Fatalf("rejected (%d) but changed:\n%s\n→\n%s", status, before, after)
		}
	})
}
