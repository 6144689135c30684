package admin

import (
	"strings"
	"testing"

	"github.com/medspa/medspa-go/api"
	"github.com/medspa/medspa-go/internal/testing/oapitest"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/httpapi"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// TestRouteTableIsTheOpenAPIDocument: the admin routes and api/admin-openapi.yaml name the same
// operations (the /api/v1 routes: httpapi's test of the same name).
func TestRouteTableIsTheOpenAPIDocument(t *testing.T) {
	t.Parallel()
	s := New(httpapi.New(store.New(store.Options{}), auth.NewRegistry(), httpapi.Options{}), Options{})
	adminOps := oapitest.Operations(t, api.AdminOpenAPIYAML)
	for _, rt := range s.table() {
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
