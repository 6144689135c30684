package httpapi

import (
	"net/http"
	"path"
	"strings"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// route finds the /api/v1 route of the request (Go's ServeMux patterns) and runs it behind the
// route steps: 404 not_found for an unknown path, 405 method_not_allowed (with Allow) for a
// known path and another method.
func (a *API) route(w http.ResponseWriter, rq *request) {
	// A path that is not clean (dot segments, double slashes) names no resource: ServeMux would
	// answer it with an HTML redirect, the protocol wants a problem.
	if path.Clean(rq.URL.Path) != rq.URL.Path {
		problem.Write(w, rq.id, problem.NotFound("route"))
		return
	}
	rq.serveMux(a.mux, w)
}

// unroutedPattern is the mux's catch-all: everything no route matches lands there, so a request
// is routed once (a lookup first, then ServeHTTP, routed it twice). A fenced optimisation kept
// by BenchmarkFenceCatchAllRoute (BENCHMARKS.md).
const unroutedPattern = "/"

// routeMux registers every route behind the route steps, and the catch-all.
func (a *API) routeMux() *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range a.routes() {
		h := a.routeSteps.then(a.serveRoute(rt))
		mux.HandleFunc(rt.method+" "+rt.pattern, func(w http.ResponseWriter, r *http.Request) {
			w, rq := stateOf(w, r)
			rq.route = &rt
			h(w, rq)
		})
	}
	mux.HandleFunc(unroutedPattern, func(w http.ResponseWriter, r *http.Request) {
		w, rq := stateOf(w, r)
		problem.Write(w, rq.id, unrouted(mux, r, unroutedPattern))
	})
	return mux
}

// unrouted answers 405 with Allow when the path exists under other methods, else 404; catchAll
// is the mux's pattern for everything else.
func unrouted(mux *http.ServeMux, r *http.Request, catchAll string) *problem.Problem {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := mux.Handler(probe); pattern != "" && pattern != catchAll {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		return problem.NotFound("route")
	}
	return problem.New("method_not_allowed", r.Method+" is not allowed here").
		WithHeader("Allow", strings.Join(allow, ", "))
}
