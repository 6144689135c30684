package httpapi

import (
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/medspa/medspa-go/api"
	"github.com/medspa/medspa-go/internal/testing/oapitest"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// TestRouteTableIsTheOpenAPIDocument: the /api/v1 route table and api/openapi.yaml name the same
// operations, each with the same query parameters and scope (the admin routes: the admin
// package's test of the same name).
func TestRouteTableIsTheOpenAPIDocument(t *testing.T) {
	t.Parallel()
	a := New(store.New(store.Options{}), auth.NewRegistry(), Options{})
	ops := oapitest.Operations(t, api.OpenAPIYAML)
	for _, rt := range a.routes.Routes {
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

}

func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b)
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
