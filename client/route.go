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
	var b strings.Builder
	b.WriteString("/api/v1")
	for _, s := range segments {
		if problem := segmentProblem(s); problem != "" {
			return Route{err: fmt.Errorf("%w: path segment after %s %s", ErrInvalidArgument, b.String(), problem)}
		}
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return Route{path: b.String()}
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

// Err returns why the Route is invalid (wrapping ErrInvalidArgument), or nil.
func (r Route) Err() error { return r.err }
