// Package idshape tests that routes with an {id} check its shape before the store
// (docs/protocol.md §2). It is test support: import it only from _test.go files.
package idshape

import (
	"slices"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/internal/wire"
)

// Route is one route with an {id}: its name, and its handler called with an id, which returns
// the status and code of the problem it answered (0 and "": no problem). A handler that reaches
// the store panics (the test gives it none): that is how Check knows the id got through.
type Route struct {
	Name string
	Call func(id string) (status int, code string)
}

// Check fails t unless every route answers 404 not_found for an id of the wrong shape without
// reaching the store — dot segments, traversal, a prefix of another kind or none, the wrong
// length or case — and lets exactly one id prefix through: its own. Fewer than least routes is
// a failure too (the table was not found).
func Check(t *testing.T, routes []Route, least int) {
	t.Helper()
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
	for _, rt := range routes {
		// call runs the route's handler for id and says whether it reached the store.
		call := func(id string) (reached bool, status int, code string) {
			defer func() {
				if v := recover(); v != nil {
					reached = true
				}
			}()
			status, code = rt.Call(id)
			return false, status, code
		}
		for _, id := range malformed {
			if reached, status, code := call(id); reached || status != 404 || code != "not_found" {
				t.Errorf("%s with id %q: reached the store %t, problem %d %q; want 404 not_found before the store", rt.Name, id, reached, status, code)
			}
		}
		var through []string
		for _, p := range prefixes {
			if reached, _, _ := call(p + "_" + hex); reached {
				through = append(through, p)
			}
		}
		if len(through) != 1 {
			t.Errorf("%s lets ids of %q through to the store, want exactly its own kind", rt.Name, through)
		}
	}
	if len(routes) < least {
		t.Fatalf("only %d routes with an id", len(routes))
	}
}
