package controls

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// Stub is a custom answer for the /api/v1 requests that match it (docs/mock-server.md "Stubs";
// POST /__admin/stubs): status, headers, JSON body and delay, for Times requests or until
// deleted. A stubbed request never reaches the store.
type Stub struct {
	// Account limits the stub to requests authenticated for that account ("" = any).
	Account string `json:"account,omitempty"`
	// Method is the request's method (required unless Route starts with it).
	Method string `json:"method,omitempty"`
	// Route is a route pattern of the API, "/api/v1/patients/{id}" or "GET /api/v1/patients/{id}".
	// Exactly one of Route and Path.
	Route string `json:"route,omitempty"`
	// Path is an exact request path (/api/v1/patients/pat_…), which a route must serve.
	Path string `json:"path,omitempty"`
	// Query, when set, must all be present in the request's query with exactly these values.
	Query map[string]string `json:"query,omitempty"`
	// Status is the answer's status, 200–599.
	Status int `json:"status"`
	// Headers are added to the answer (Content-Type is application/json unless given).
	Headers map[string]string `json:"headers,omitempty"`
	// Body is the answer's body, any JSON value (absent: none).
	Body json.RawMessage `json:"body,omitempty"`
	// DelayMs delays the answer, 0–MaxStubDelayMs.
	DelayMs int `json:"delayMs,omitempty"`
	// Times is how many requests the stub answers; 0 means until deleted.
	Times int `json:"times,omitempty"`
}

// StubState is an armed stub as GET /__admin/stubs lists it.
type StubState struct {
	ID string `json:"id"`
	Stub
	// Left is how many answers are left (null: until deleted); Used how many were given.
	Left       *int       `json:"left"`
	Used       int        `json:"used"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

// Stub bounds (RELIABILITY.md "Bounds").
const (
	// DefaultArmedStubs bounds the stubs armed at once: every API request looks through them.
	DefaultArmedStubs = 1_000
	// MaxStubDelayMs bounds a stub's delay: below the binary's 60 s write timeout, so a delayed answer still leaves.
	MaxStubDelayMs = 50_000
	// MaxStubBody bounds a stub's body, in bytes.
	MaxStubBody = 64 << 10
	// MaxStubHeaders bounds a stub's headers and its query values, each.
	MaxStubHeaders = 32
	// maxStubValue bounds one header or query value.
	maxStubValue = 1024
)

// stubHeadersRefused are the answer headers a stub may not set: net/http owns them.
var stubHeadersRefused = []string{"Content-Length", "Transfer-Encoding", "Connection", "Trailer", "Upgrade", "Keep-Alive"}

// Routes are what a stub is checked against: the API's route table.
type Routes interface {
	// HasRoute reports whether method and pattern are one of the API's routes.
	HasRoute(method, pattern string) bool
	// Serves reports whether a route serves method and path.
	Serves(method, path string) bool
}

// Check checks s against the API's routes, naming every invalid field, and returns it in its
// stored form: Method upper case, Route without the method.
func (s Stub) Check(routes Routes) (Stub, error) {
	var errs store.FieldErrors
	if m, rest, ok := strings.Cut(s.Route, " "); ok {
		if s.Method != "" && !strings.EqualFold(s.Method, m) {
			errs.Add("/method", "invalid_value", "differs from the method the route names")
		}
		s.Method, s.Route = m, rest
	}
	s.Method = strings.ToUpper(s.Method)
	switch {
	case s.Method == "":
		errs.Add("/method", "required", "is required (or start route with it)")
	case !slices.Contains([]string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete}, s.Method):
		errs.Add("/method", "invalid_value", "must be one of GET, POST, PATCH, DELETE")
	}
	switch {
	case (s.Route == "") == (s.Path == ""):
		errs.Add("/route", "required", "exactly one of route and path is required")
	case s.Route != "" && s.Method != "" && !routes.HasRoute(s.Method, s.Route):
		errs.Add("/route", "unknown_route", "is not a route of the API for this method (see GET /api/v1/openapi.yaml)")
	case s.Path != "" && s.Method != "" && !stubPathKnown(routes, s.Method, s.Path):
		errs.Add("/path", "unknown_route", "no route of the API serves this method and path")
	}
	if s.Status < 200 || s.Status > 599 {
		errs.Add("/status", "out_of_range", "must be a final status, 200–599")
	}
	if len(s.Body) > 0 {
		switch {
		case len(s.Body) > MaxStubBody:
			errs.Add("/body", "too_long", "must be at most "+strconv.Itoa(MaxStubBody)+" bytes")
		case !json.Valid(s.Body):
			errs.Add("/body", "invalid_value", "must be JSON")
		case s.Status == http.StatusNoContent || s.Status == http.StatusNotModified:
			errs.Add("/body", "invalid_value", "a "+strconv.Itoa(s.Status)+" answer has no body")
		}
	}
	if s.DelayMs < 0 || s.DelayMs > MaxStubDelayMs {
		errs.Add("/delayMs", "out_of_range", "must be 0–"+strconv.Itoa(MaxStubDelayMs)+" milliseconds")
	}
	if s.Times < 0 {
		errs.Add("/times", "out_of_range", "must be 0 (until deleted) or more")
	}
	checkStubPairs(&errs, "/headers", s.Headers, true)
	checkStubPairs(&errs, "/query", s.Query, false)
	return s, errs.Err()
}

// checkStubPairs checks a stub's headers or query values: bounded, one line each, and for
// headers valid names that net/http does not own.
func checkStubPairs(errs *store.FieldErrors, at string, m map[string]string, header bool) {
	if len(m) > MaxStubHeaders {
		errs.Add(at, "too_long", "must have at most "+strconv.Itoa(MaxStubHeaders)+" entries")
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		ptr := at + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
		v := m[k]
		switch {
		case k == "" || len(k) > 128 || header && !isToken(k):
			errs.Add(ptr, "invalid_format", "is not a valid name")
		case header && slices.ContainsFunc(stubHeadersRefused, func(h string) bool { return strings.EqualFold(h, k) }):
			errs.Add(ptr, "invalid_value", "is set by the server")
		case len(v) > maxStubValue || strings.ContainsAny(v, "\r\n\x00"):
			errs.Add(ptr, "invalid_value", "must be one line of at most "+strconv.Itoa(maxStubValue)+" bytes")
		}
	}
}

// isToken reports whether s is an HTTP token (a header name).
func isToken(s string) bool {
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// stubPathKnown reports whether a route serves method and path.
func stubPathKnown(routes Routes, method, path string) bool {
	return strings.HasPrefix(path, "/api/v1/") && !strings.ContainsAny(path, "?# ") && routes.Serves(method, path)
}

// Call is a routed /api/v1 request as a stub sees it.
type Call struct {
	Account, Method string
	Route, Path     string // the pattern of its route; its path
	Query           func() url.Values
}

// matches reports whether the stub answers a call.
func (s *Stub) matches(c Call) bool {
	if s.Account != "" && s.Account != c.Account || s.Method != c.Method {
		return false
	}
	if s.Route != "" && s.Route != c.Route || s.Path != "" && s.Path != c.Path {
		return false
	}
	if len(s.Query) > 0 {
		q := c.Query()
		for k, v := range s.Query {
			if vs := q[k]; len(vs) != 1 || vs[0] != v {
				return false
			}
		}
	}
	return true
}

// armedStub is a stub with its listing's state.
type armedStub struct {
	Stub
	id         string
	used       int
	createdAt  time.Time
	lastUsedAt time.Time
}

func (s *armedStub) state() StubState {
	st := StubState{ID: s.id, Stub: s.Stub, Used: s.used, CreatedAt: s.createdAt}
	st.Headers, st.Query, st.Body = maps.Clone(s.Headers), maps.Clone(s.Query), bytes.Clone(s.Body)
	if s.Times > 0 {
		left := s.Times - s.used
		st.Left = &left
	}
	if !s.lastUsedAt.IsZero() {
		t := s.lastUsedAt
		st.LastUsedAt = &t
	}
	return st
}

// Stubs are the armed stubs, oldest first: the first that matches answers.
type Stubs struct {
	mu    sync.Mutex
	limit int // 0: DefaultArmedStubs
	now   func() time.Time
	seq   uint64
	armed []*armedStub
	n     atomic.Int64 // len(armed), written under mu: the pipeline step reads it without the lock
}

// Add arms a stub (checked already: Stub.Check) and returns it as listed.
func (ss *Stubs) Add(s Stub) (StubState, error) {
	s.Headers, s.Query, s.Body = maps.Clone(s.Headers), maps.Clone(s.Query), bytes.Clone(s.Body)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if limit := cmp.Or(ss.limit, DefaultArmedStubs); len(ss.armed) >= limit {
		return StubState{}, problem.Field("/times", "out_of_range", "at most "+strconv.Itoa(limit)+" stubs may be armed at once; delete some first")
	}
	ss.seq++
	a := &armedStub{Stub: s, id: "stb_" + strconv.FormatUint(ss.seq, 10), createdAt: nowOf(ss.now)}
	ss.armed = append(ss.armed, a)
	ss.n.Store(int64(len(ss.armed)))
	return a.state(), nil
}

// List returns the armed stubs, oldest first; with an account, those that can answer its requests.
func (ss *Stubs) List(account string) []StubState {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	out := []StubState{}
	for _, s := range ss.armed {
		if account == "" || s.Account == "" || s.Account == account {
			out = append(out, s.state())
		}
	}
	return out
}

// remove deletes the stubs for which drop is true and reports how many went.
func (ss *Stubs) remove(drop func(*armedStub) bool) int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	before := len(ss.armed)
	ss.armed = slices.DeleteFunc(ss.armed, drop)
	ss.n.Store(int64(len(ss.armed)))
	return before - len(ss.armed)
}

// Take returns the stub that answers c, with its id, and counts the use; ok is false when none does.
func (ss *Stubs) Take(c Call) (id string, s Stub, ok bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for i, a := range ss.armed {
		if a.matches(c) {
			a.used++
			a.lastUsedAt = nowOf(ss.now)
			if a.Times > 0 && a.used >= a.Times {
				ss.armed = append(ss.armed[:i:i], ss.armed[i+1:]...)
				ss.n.Store(int64(len(ss.armed)))
			}
			return a.id, a.Stub, true
		}
	}
	return "", Stub{}, false
}

// Delete disarms one stub; an unknown id is a 404.
func (ss *Stubs) Delete(id string) error {
	if ss.remove(func(s *armedStub) bool { return s.id == id }) == 0 {
		return problem.NotFound("stub")
	}
	return nil
}

// Clear disarms the stubs of an account ("" = every stub).
func (ss *Stubs) Clear(account string) {
	ss.remove(func(s *armedStub) bool { return account == "" || s.Account == account })
}

// StubFault prefixes the id of the stub that answered a request where the request's fault is
// noted (the journal shows it as JournalEntry.Stub, the log as fault=stub:stb_N).
const StubFault = "stub:"

// Count is how many stubs are armed (no lock: a request with none armed pays an atomic load).
func (ss *Stubs) Count() int { return int(ss.n.Load()) }
