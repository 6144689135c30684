package client

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Route is the path of an API call, built by Path. A Route whose segments could not be sent as
// they are carries the reason instead, and every call with it fails with ErrInvalidArgument
// before anything reaches the wire.
type Route struct {
	path string
	err  error
}

// Path joins /api/v1 and the segments, each escaped as exactly one path segment:
// Path("patients", id) → "/api/v1/patients/<id>". A segment that is empty, "." or "..", or
// holds "/", "\", "?", "#", a control character or invalid UTF-8 would name another resource
// (or none) on the way to the server, so the Route is invalid instead.
func Path(segments ...string) Route {
	size := len(apiPrefix)
	for _, s := range segments {
		size += 1 + len(s)
	}
	var b strings.Builder
	b.Grow(size) // escaping may grow it once more
	b.WriteString(apiPrefix)
	for _, s := range segments {
		if problem := segmentProblem(s); problem != "" {
			return Route{err: fmt.Errorf("%w: path segment after %s %s", ErrInvalidArgument, b.String(), problem)}
		}
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return Route{path: b.String()}
}

// apiPrefix starts every path (docs/protocol.md §1).
const apiPrefix = "/api/v1"

// isRouteWord reports a segment that names a route rather than a record: lowercase letters and
// inner hyphens ("patients", "rotate-secret"). Every id has a prefix and an underscore
// (docs/protocol.md §2), so an id, or anything else a caller passed, is never one.
func isRouteWord(s string) bool {
	for i, r := range s {
		if (r < 'a' || r > 'z') && (r != '-' || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return s != ""
}

// segmentProblem says why s is not one path segment, or "" when it is.
func segmentProblem(s string) string {
	switch s {
	case "":
		return "is empty"
	case ".", "..":
		return "is a dot segment"
	}
	if strings.ContainsAny(s, `/\?#`) {
		return `holds "/", "\", "?" or "#"`
	}
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return "holds a control character or invalid UTF-8"
		}
	}
	return ""
}

// String returns the escaped path, or "" for an invalid Route.
func (r Route) String() string { return r.path }

// Pattern returns the path with every segment that is not a route word (lowercase letters and
// hyphens) written {id}: /api/v1/patients/{id}. Logs carry it rather than the path. It is
// worked out when asked for: a call's path is built on every call, its pattern rarely needed.
func (r Route) Pattern() string {
	rest, ok := strings.CutPrefix(r.path, apiPrefix)
	if !ok {
		return ""
	}
	var b strings.Builder
	b.WriteString(apiPrefix)
	for seg := range strings.SplitSeq(strings.TrimPrefix(rest, "/"), "/") {
		if seg == "" {
			continue
		}
		b.WriteByte('/')
		if isRouteWord(seg) {
			b.WriteString(seg)
		} else {
			b.WriteString("{id}")
		}
	}
	return b.String()
}

// Err returns why the Route is invalid (wrapping ErrInvalidArgument), or nil.
func (r Route) Err() error { return r.err }
