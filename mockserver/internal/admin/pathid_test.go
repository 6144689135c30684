package admin

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/internal/testing/idshape"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/httpapi"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// TestPathIDsShapeCheckedBeforeTheStore: the admin surface's key routes answer 404 not_found for
// an id of the wrong shape without reaching the key registry, and let exactly one id prefix
// through: key_ (idshape.Check; the API's routes: httpapi's test of the same name). The surface
// has no key registry, so a handler that reaches it panics: that is how the test knows which
// ids got through.
func TestPathIDsShapeCheckedBeforeTheStore(t *testing.T) {
	t.Parallel()
	s := New(httpapi.New(store.New(store.Options{}), auth.NewRegistry(), httpapi.Options{}), Options{})
	s.keys = nil // the key registry is the admin routes' store: reaching it panics
	var routes []idshape.Route
	for _, rt := range s.credentialRoutes() {
		if !strings.Contains(rt.pattern, "{id}") {
			continue
		}
		routes = append(routes, idshape.Route{Name: rt.method + " " + rt.pattern, Call: func(id string) (int, string) {
			r := httptest.NewRequest(rt.method, "/x", strings.NewReader(`{}`))
			r.SetPathValue("id", id)
			_, _, err := rt.handle(&request{Request: r, id: "req_test", body: []byte(`{}`)})
			return problemOf(err)
		}})
	}
	idshape.Check(t, routes, 2)
}

// problemOf is the status and code of a problem error (0 and "": another error, or none).
func problemOf(err error) (int, string) {
	var p *problem.Problem
	if errors.As(err, &p) {
		return p.Status, p.Code
	}
	return 0, ""
}
