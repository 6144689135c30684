package httpapi

import (
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// TestPathIDsShapeCheckedBeforeTheStore: every route with an {id} answers 404 not_found for an
// id of the wrong shape without reaching the store (docs/protocol.md §2) — dot segments,
// traversal, a prefix of another kind or none, the wrong length or case — and lets exactly one
// id prefix through: its own. The admin surface's key routes too. The requests carry no
// account (and the admin routes no key registry), so a handler that reaches the store panics:
// that is how the test knows which ids got through.
func TestPathIDsShapeCheckedBeforeTheStore(t *testing.T) {
	t.Parallel()
	a := New(store.New(store.Options{}), auth.NewRegistry(), Options{})
	hex := strings.Repeat("0", wire.IDHexLen)
	malformed := []string{"", ".", "..", "../../__admin/reset", "x", "\x00", "pat_..", "key_..", "pat_" + strings.ToUpper(strings.Repeat("f", 32)),
		"pat_" + hex[1:], "pat_" + hex + "0", "pat-" + hex, "zzz_" + hex, "PAT_" + hex, "pat_" + hex + "\u200b", "%2e%2e"}
	prefixes := slices.Sorted(func(yield func(string) bool) {
		for _, p := range wire.IDPrefixes {
			if !yield(p) {
				return
			}
		}
	})
	routes := a.routes.Routes
	n := 0
	for _, rt := range routes {
		if !strings.Contains(rt.pattern, "{id}") {
			continue
		}
		n++
		// call runs the route's handler for id and says whether it reached the store.
		call := func(id string) (reached bool, err error) {
			defer func() {
				if v := recover(); v != nil {
					reached = true
				}
			}()
			r := httptest.NewRequest(rt.method, "/x", strings.NewReader(`{}`))
			rq := &request{Request: r, id: "req_test", body: []byte(`{}`), params: []pathParam{{"id", id}}}
			_, _, err = rt.handle(rq)
			return false, err
		}
		for _, id := range malformed {
			reached, err := call(id)
			var p *problem.Problem
			if reached || !errors.As(err, &p) || p.Status != 404 || p.Code != "not_found" {
				t.Errorf("%s %s with id %q: reached the store %t, error %v; want 404 not_found before the store", rt.method, rt.pattern, id, reached, err)
			}
		}
		var through []string
		for _, p := range prefixes {
			if reached, _ := call(p + "_" + hex); reached {
				through = append(through, p)
			}
		}
		if len(through) != 1 {
			t.Errorf("%s %s lets ids of %q through to the store, want exactly its own kind", rt.method, rt.pattern, through)
		}
	}
	if n < 10 {
		t.Fatalf("only %d routes with an id", n)
	}
}
