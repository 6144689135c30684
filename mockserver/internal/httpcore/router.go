package httpcore

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// Router finds a request's route in a table of routes of type T: literal segments match
// themselves, a {name} segment any non-empty segment (its value set as the request's path
// value), a final {name...} the rest of the path. Where two routes match, the one whose first
// differing segment is literal wins (so /api/v1/reports/custom is never /api/v1/reports/{id}).
type Router[T any] struct {
	Routes   []T        // the table, in its order
	methods  []string   // each route's method (methods[i] is Routes[i]'s)
	segments [][]string // each route's pattern, split at "/"
}

// NewRouter returns the router of a table; key gives a route's method and pattern.
func NewRouter[T any](routes []T, key func(*T) (method, pattern string)) *Router[T] {
	rt := &Router[T]{Routes: routes}
	for i := range routes {
		m, p := key(&routes[i])
		rt.methods = append(rt.methods, m)
		rt.segments = append(rt.segments, strings.Split(p, "/"))
	}
	return rt
}

// wildcard is the name of a pattern segment's wildcard ({id}, {file...}), or "".
func wildcard(seg string) string {
	if !strings.HasPrefix(seg, "{") {
		return ""
	}
	return strings.TrimSuffix(strings.TrimSuffix(seg[1:], "}"), "...")
}

// Match returns the route of method and path, and the path's segments; allow lists the methods
// the path has when method is not one of them (none: the path is unknown).
func (rt *Router[T]) Match(method, path string) (found *T, segs []string, allow []string) {
	if method == http.MethodHead {
		method = http.MethodGet // a GET route answers HEAD too (net/http drops the body)
	}
	segs = strings.Split(path, "/")
	var best []string // the pattern of the best match so far
	for i := range rt.Routes {
		pat := rt.segments[i]
		if !matchSegments(pat, segs) {
			continue
		}
		if m := rt.methods[i]; m != method {
			if !slices.Contains(allow, m) {
				allow = append(allow, m)
			}
			continue
		}
		if found == nil || moreLiteral(pat, best) {
			found, best = &rt.Routes[i], pat
		}
	}
	if found != nil {
		allow = nil
	}
	return found, segs, allow
}

// matchSegments reports whether a path's segments match a pattern's.
func matchSegments(pat, segs []string) bool {
	for i, p := range pat {
		switch {
		case i >= len(segs):
			return false
		case strings.HasSuffix(p, "...}"):
			return true
		case strings.HasPrefix(p, "{"):
			if segs[i] == "" {
				return false
			}
		case p != segs[i]:
			return false
		}
	}
	return len(pat) == len(segs)
}

// patternOf is r's pattern, split at "/".
func (rt *Router[T]) patternOf(r *T) []string {
	for i := range rt.Routes {
		if &rt.Routes[i] == r {
			return rt.segments[i]
		}
	}
	return nil
}

// PathValues calls set with each wildcard of r's pattern and its value in segs, unescaped.
func (rt *Router[T]) PathValues(r *T, segs []string, set func(name, value string)) {
	for i, seg := range rt.patternOf(r) {
		name := wildcard(seg)
		if name == "" {
			continue
		}
		v := segs[i]
		if strings.HasSuffix(seg, "...}") {
			v = strings.Join(segs[i:], "/")
		}
		if u, err := url.PathUnescape(v); err == nil {
			v = u
		}
		set(name, v)
	}
}

// moreLiteral reports whether pattern a is literal where b first has a wildcard.
func moreLiteral(a, b []string) bool {
	for i := range min(len(a), len(b)) {
		wa, wb := strings.HasPrefix(a[i], "{"), strings.HasPrefix(b[i], "{")
		if wa != wb {
			return wb
		}
	}
	return false
}

// Find routes a request of method to path (as sent, escaped) in the table: its route, set
// called with each of its path values; or the problem of docs/protocol.md §4, 404 (what is not
// found: "route") or 405 (with Allow).
func (rt *Router[T]) Find(method, path, what string, set func(name, value string)) (*T, *problem.Problem) {
	found, segs, allow := rt.Match(method, path)
	if found == nil {
		if len(allow) == 0 {
			return nil, problem.NotFound(what)
		}
		return nil, problem.New("method_not_allowed", method+" is not allowed here").
			WithHeader("Allow", strings.Join(allow, ", "))
	}
	rt.PathValues(found, segs, set)
	return found, nil
}
