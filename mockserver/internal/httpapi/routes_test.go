package httpapi

import (
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/medspa/medspa-go/api"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// operations are a document's operations by "METHOD /path".
func operations(t *testing.T, doc []byte) map[string]*openapi3.Operation {
	t.Helper()
	d, err := openapi3.NewLoader().LoadFromData(doc)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]*openapi3.Operation{}
	for p, item := range d.Paths.Map() {
		for m, op := range item.Operations() {
			ops[m+" "+p] = op
		}
	}
	return ops
}

// TestRouteTableIsTheOpenAPIDocument: the /api/v1 route table and api/openapi.yaml name the same
// operations, each with the same query parameters and scope; the admin routes and
// api/admin-openapi.yaml name the same operations.
func TestRouteTableIsTheOpenAPIDocument(t *testing.T) {
	t.Parallel()
	a := New(store.New(store.Options{}), auth.NewRegistry(), Options{})
	ops := operations(t, api.OpenAPIYAML)
	for _, rt := range a.routes.routes {
		key := rt.method + " " + rt.pattern
		op, ok := ops[key]
		if !ok {
			t.Errorf("%s: a route the document lacks", key)
			continue
		}
		delete(ops, key)
		var query, scopes []string
		for _, p := range op.Parameters {
			if p.Value.In == openapi3.ParameterInQuery {
				query = append(query, p.Value.Name)
			}
		}
		if op.Security != nil {
			for _, req := range *op.Security {
				scopes = append(scopes, req["oauth2"]...)
			}
		}
		if !sameSet(query, rt.query) {
			t.Errorf("%s: query parameters %q in the route table, %q in the document", key, rt.query, query)
		}
		if !slices.Equal(scopes, []string{rt.scope}) {
			t.Errorf("%s: scope %q in the route table, %q in the document", key, rt.scope, scopes)
		}
	}
	for key := range ops {
		if !strings.HasPrefix(key, http.MethodGet+" /api/v1/openapi.") && strings.HasPrefix(strings.SplitN(key, " ", 2)[1], "/api/v1") {
			t.Errorf("%s: an operation of the document no route serves", key)
		}
	}

	adminOps := operations(t, api.AdminOpenAPIYAML)
	for _, rt := range a.adminTable() {
		key := rt.method + " " + rt.pattern
		if strings.HasSuffix(rt.pattern, "...}") {
			continue // the inspector page's files
		}
		if _, ok := adminOps[key]; !ok {
			t.Errorf("%s: an admin route the admin document lacks", key)
		}
		delete(adminOps, key)
	}
	for key := range adminOps {
		if strings.HasPrefix(strings.SplitN(key, " ", 2)[1], "/__admin/") {
			t.Errorf("%s: an operation of the admin document no route serves", key)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b)
}

// TestRouterPrefersLiteralSegments: a literal segment wins over a wildcard, HEAD is served by a
// GET route, a known path under another method is 405 with its methods, and escaped slashes stay
// in one path value.
func TestRouterPrefersLiteralSegments(t *testing.T) {
	t.Parallel()
	rt := newRouter([]route{
		{method: http.MethodGet, pattern: "/x/{id}"},
		{method: http.MethodGet, pattern: "/x/custom"},
		{method: http.MethodPost, pattern: "/x/{id}/void"},
		{method: http.MethodGet, pattern: "/ui/{file...}"},
	})
	for _, c := range []struct {
		method, path, want string
		values             map[string]string
		allow              []string
	}{
		{"GET", "/x/custom", "/x/custom", map[string]string{}, nil},
		{"HEAD", "/x/abc", "/x/{id}", map[string]string{"id": "abc"}, nil},
		{"POST", "/x/a%2Fb/void", "/x/{id}/void", map[string]string{"id": "a/b"}, nil},
		{"DELETE", "/x/abc", "", map[string]string{}, []string{"GET"}},
		{"GET", "/x/", "", map[string]string{}, nil},
		{"GET", "/x/abc/void", "", map[string]string{}, []string{"POST"}},
		{"GET", "/ui/", "/ui/{file...}", map[string]string{"file": ""}, nil},
		{"GET", "/ui/a/b.js", "/ui/{file...}", map[string]string{"file": "a/b.js"}, nil},
		{"GET", "/ui", "", map[string]string{}, nil},
	} {
		r, segs, allow := rt.match(c.method, c.path)
		got, values := "", map[string]string{}
		if r != nil {
			got = r.pattern
			rt.pathValues(r, segs, func(name, value string) { values[name] = value })
		}
		if got != c.want || !maps.Equal(values, c.values) || !slices.Equal(allow, c.allow) {
			t.Errorf("%s %s: %q %v allow %v; want %q %v allow %v", c.method, c.path, got, values, allow, c.want, c.values, c.allow)
		}
	}
}

// TestRouteAreasAreTheAreaPackages: the areas the route table's scopes name are the area
// packages of ARCHITECTURE.md's layer table, which the layer guard (internal/secguard) checks.
func TestRouteAreasAreTheAreaPackages(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	var packages []string
	for line := range strings.SplitSeq(string(doc), "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 2 && strings.TrimSpace(cells[1]) == "areas" {
			for name := range strings.SplitSeq(cells[2], ",") {
				packages = append(packages, strings.Trim(name, " `"))
			}
		}
	}
	a := New(store.New(store.Options{}), auth.NewRegistry(), Options{})
	var areas []string
	for _, s := range a.scopes {
		if area, _, ok := strings.Cut(s, ":"); ok && !slices.Contains(areas, area) {
			areas = append(areas, area)
		}
	}
	if len(packages) == 0 || !sameSet(areas, packages) {
		t.Errorf("the route table's areas %q, ARCHITECTURE.md's area packages %q", areas, packages)
	}
}
