package httpapi

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/internal/testing/idshape"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// TestPathIDsShapeCheckedBeforeTheStore: every route with an {id} answers 404 not_found for an
// id of the wrong shape without reaching the store (docs/protocol.md §2) and lets exactly one
// id prefix through: its own (idshape.Check; the admin surface's key routes: the admin
// package's test of the same name). The requests carry no account, so a handler that reaches
// the store panics: that is how the test knows which ids got through.
func TestPathIDsShapeCheckedBeforeTheStore(t *testing.T) {
	t.Parallel()
	a := New(store.New(store.Options{}), auth.NewRegistry(), Options{})
	var routes []idshape.Route
	for _, rt := range a.routes.Routes {
		if !strings.Contains(rt.pattern, "{id}") {
			continue
		}
		routes = append(routes, idshape.Route{Name: rt.method + " " + rt.pattern, Call: func(id string) (int, string) {
			r := httptest.NewRequest(rt.method, "/x", strings.NewReader(`{}`))
			rq := &request{Request: r, id: "req_test", body: []byte(`{}`), params: []pathParam{{"id", id}}}
			_, _, err := rt.handle(rq)
			return problemOf(err)
		}})
	}
	idshape.Check(t, routes, 10)
}

// problemOf is the status and code of a problem error (0 and "": another error, or none).
func problemOf(err error) (int, string) {
	var p *problem.Problem
	if errors.As(err, &p) {
		return p.Status, p.Code
	}
	return 0, ""
}
