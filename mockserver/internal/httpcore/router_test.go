package httpcore

import (
	"maps"
	"net/http"
	"slices"
	"testing"
)

// testRoute is a row of a test table.
type testRoute struct{ method, pattern string }

// TestRouterPrefersLiteralSegments: a literal segment wins over a wildcard, HEAD is served by a
// GET route, a known path under another method is 405 with its methods, and escaped slashes stay
// in one path value.
func TestRouterPrefersLiteralSegments(t *testing.T) {
	t.Parallel()
	rt := NewRouter([]testRoute{
		{method: http.MethodGet, pattern: "/x/{id}"},
		{method: http.MethodGet, pattern: "/x/custom"},
		{method: http.MethodPost, pattern: "/x/{id}/void"},
		{method: http.MethodGet, pattern: "/ui/{file...}"},
	}, func(r *testRoute) (string, string) { return r.method, r.pattern })
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
		r, segs, allow := rt.Match(c.method, c.path)
		got, values := "", map[string]string{}
		if r != nil {
			got = r.pattern
			rt.PathValues(r, segs, func(name, value string) { values[name] = value })
		}
		if got != c.want || !maps.Equal(values, c.values) || !slices.Equal(allow, c.allow) {
			t.Errorf("%s %s: %q %v allow %v; want %q %v allow %v", c.method, c.path, got, values, allow, c.want, c.values, c.allow)
		}
	}
}
