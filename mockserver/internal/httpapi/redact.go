package httpapi

import (
	"strings"
	"sync"

	"github.com/medspa/medspa-go/internal/wire"
)

// routeWords are the literal segments of every route: the words a logged path may keep.
var routeWords = sync.OnceValue(func() map[string]bool {
	words := map[string]bool{"v1": true, "oauth": true, "token": true, "authorize": true, "revoke": true, "__admin": true}
	for _, rt := range (&API{}).apiRoutes() {
		for w := range strings.SplitSeq(rt.pattern, "/") {
			words[w] = true
		}
	}
	return words
})

// keptSegment reports whether a path segment may be logged as is.
func keptSegment(s string) bool { return s == "" || routeWords()[s] || wire.WellFormedID(s) }

// loggedPath is a request path as the journal and the log keep it: route words and well-formed
// ids stay, any other segment becomes "{redacted}" (a mistyped id may be an email or a name).
func loggedPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if !keptSegment(s) {
			segs[i] = "{redacted}"
		}
	}
	return strings.Join(segs, "/")
}
