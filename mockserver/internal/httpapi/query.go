package httpapi

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// query reads query parameters, collecting every invalid one. Pointers of query errors are the
// parameter names.
type query struct {
	v    url.Values
	errs store.FieldErrors
}

// parseQuery reads rq's query and records unknown_parameter for names its route does not know.
func (rq *request) parseQuery() *query {
	q := &query{v: rq.queryValues()}
	for _, k := range unknownKeys(q.v, rq.route.query) {
		q.fail(k, "unknown_parameter", "is not a parameter of this endpoint")
	}
	return q
}

func (q *query) fail(name, code, detail string) { q.errs.Add(name, code, detail) }

// one returns the single value of name; a repeated parameter is invalid.
func (q *query) one(name string) (string, bool) {
	vs, ok := q.v[name]
	if !ok {
		return "", false
	}
	if len(vs) != 1 {
		q.fail(name, "invalid_value", "must be given once")
		return "", false
	}
	return vs[0], true
}

// integer reads an integer in [lo, hi], or def when absent.
func (q *query) integer(name string, def, lo, hi int) int {
	s, ok := q.one(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		q.fail(name, "invalid_value", "must be an integer")
		return def
	}
	if n < lo || n > hi {
		q.fail(name, "out_of_range", "must be between "+itoa(lo)+" and "+itoa(hi))
		return def
	}
	return n
}

// str reads a string of at most maxLen characters, of text (docs/protocol.md §2: no control
// characters).
func (q *query) str(name string, maxLen int) string {
	s, ok := q.one(name)
	switch {
	case !ok:
		return ""
	case !store.TextAllowed(s, false):
		q.fail(name, "invalid_format", "must not contain control, bidirectional-override or invisible characters")
		return ""
	case len([]rune(s)) > maxLen:
		q.fail(name, "too_long", "must be at most "+itoa(maxLen)+" characters")
		return ""
	}
	return s
}

// id reads an id with the prefix ("pat", …): invalid_format otherwise, so a malformed id never
// reaches the store.
func (q *query) id(name, prefix string) string {
	s, ok := q.one(name)
	if ok && !wire.IsID(s, prefix) {
		q.fail(name, "invalid_format", "must be a "+prefix+"_ id")
		return ""
	}
	return s
}

// enum reads one of allowed (or "" when absent).
func (q *query) enum(name string, allowed ...string) string {
	s, ok := q.one(name)
	if ok && !slices.Contains(allowed, s) {
		q.fail(name, "invalid_value", "must be one of "+strings.Join(allowed, ", "))
		return ""
	}
	return s
}

// list reads a comma list whose items are all in allowed.
func (q *query) list(name string, allowed ...string) []string {
	s, ok := q.one(name)
	if !ok {
		return nil
	}
	items := strings.Split(s, ",")
	for _, it := range items {
		if !slices.Contains(allowed, it) {
			q.fail(name, "invalid_value", "items must be among "+strings.Join(allowed, ", "))
			return nil
		}
	}
	return items
}

// boolean reads true or false.
func (q *query) boolean(name string) *bool {
	s, ok := q.one(name)
	if !ok {
		return nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil || (s != "true" && s != "false") {
		q.fail(name, "invalid_value", "must be true or false")
		return nil
	}
	return &b
}

// instant reads an RFC 3339 timestamp or a YYYY-MM-DD date (midnight UTC).
func (q *query) instant(name string) time.Time {
	s, ok := q.one(name)
	if !ok {
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC()
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t
	}
	q.fail(name, "invalid_format", "must be an RFC 3339 timestamp or a YYYY-MM-DD date")
	return time.Time{}
}

// window reads page, perPage and (when sortable) sort.
func (q *query) window(sortable bool) store.Window {
	w := store.Window{Page: q.integer("page", 1, 1, 1<<30), PerPage: q.integer("perPage", 25, 1, 100)}
	if sortable {
		w.Desc = q.enum("sort", "createdAt", "-createdAt") == "-createdAt"
	}
	return w
}

// done returns the 422 listing every invalid parameter, or nil.
func (q *query) done() error { return q.errs.Err() }

func itoa(n int) string { return strconv.Itoa(n) }
