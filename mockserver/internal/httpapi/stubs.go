package httpapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"net/http"
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

// validate checks s against the API's routes, naming every invalid field, and returns it in its
// stored form: Method upper case, Route without the method.
func (s Stub) validate(routes *router) (Stub, error) {
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
	case s.Route != "" && s.Method != "" && !stubRouteKnown(routes, s.Method, s.Route):
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
			errs.Add("/body", "too_long", "must be at most "+itoa(MaxStubBody)+" bytes")
		case !json.Valid(s.Body):
			errs.Add("/body", "invalid_value", "must be JSON")
		case s.Status == http.StatusNoContent || s.Status == http.StatusNotModified:
			errs.Add("/body", "invalid_value", "a "+itoa(s.Status)+" answer has no body")
		}
	}
	if s.DelayMs < 0 || s.DelayMs > MaxStubDelayMs {
		errs.Add("/delayMs", "out_of_range", "must be 0–"+itoa(MaxStubDelayMs)+" milliseconds")
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
		errs.Add(at, "too_long", "must have at most "+itoa(MaxStubHeaders)+" entries")
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
			errs.Add(ptr, "invalid_value", "must be one line of at most "+itoa(maxStubValue)+" bytes")
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

// stubRouteKnown reports whether method and pattern are one of the API's routes.
func stubRouteKnown(routes *router, method, pattern string) bool {
	return slices.ContainsFunc(routes.routes, func(r route) bool { return r.method == method && r.pattern == pattern })
}

// stubPathKnown reports whether a route serves method and path.
func stubPathKnown(routes *router, method, path string) bool {
	if !strings.HasPrefix(path, "/api/v1/") || strings.ContainsAny(path, "?# ") {
		return false
	}
	r, _, _ := routes.match(method, path)
	return r != nil
}

// matches reports whether the stub answers a routed request.
func (s *Stub) matches(account string, rq *request) bool {
	if s.Account != "" && s.Account != account || s.Method != rq.Method {
		return false
	}
	if s.Route != "" && s.Route != rq.route.pattern || s.Path != "" && s.Path != rq.URL.Path {
		return false
	}
	if len(s.Query) > 0 {
		q := rq.queryValues()
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

// stubs are the armed stubs, oldest first: the first that matches answers.
type stubs struct {
	mu    sync.Mutex
	limit int // 0: DefaultArmedStubs
	now   func() time.Time
	seq   uint64
	armed []*armedStub
	n     atomic.Int64 // len(armed), written under mu: the pipeline step reads it without the lock
}

func (ss *stubs) add(s Stub) (StubState, error) {
	s.Headers, s.Query, s.Body = maps.Clone(s.Headers), maps.Clone(s.Query), bytes.Clone(s.Body)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if limit := cmp.Or(ss.limit, DefaultArmedStubs); len(ss.armed) >= limit {
		return StubState{}, problem.Field("/times", "out_of_range", "at most "+itoa(limit)+" stubs may be armed at once; delete some first")
	}
	ss.seq++
	a := &armedStub{Stub: s, id: "stb_" + strconv.FormatUint(ss.seq, 10), createdAt: nowOf(ss.now)}
	ss.armed = append(ss.armed, a)
	ss.n.Store(int64(len(ss.armed)))
	return a.state(), nil
}

func nowOf(now func() time.Time) time.Time {
	if now == nil {
		return time.Now().UTC().Truncate(time.Millisecond)
	}
	return now().UTC().Truncate(time.Millisecond)
}

func (ss *stubs) list(account string) []StubState {
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
func (ss *stubs) remove(drop func(*armedStub) bool) int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	before := len(ss.armed)
	ss.armed = slices.DeleteFunc(ss.armed, drop)
	ss.n.Store(int64(len(ss.armed)))
	return before - len(ss.armed)
}

// take returns the stub that answers rq and counts the use, or nil.
func (ss *stubs) take(account string, rq *request) (*armedStub, Stub) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for i, s := range ss.armed {
		if s.matches(account, rq) {
			s.used++
			s.lastUsedAt = nowOf(ss.now)
			if s.Times > 0 && s.used >= s.Times {
				ss.armed = append(ss.armed[:i:i], ss.armed[i+1:]...)
				ss.n.Store(int64(len(ss.armed)))
			}
			return s, s.Stub
		}
	}
	return nil, Stub{}
}

// AddStub validates and arms a stub, and returns it as listed.
func (a *API) AddStub(s Stub) (StubState, error) {
	s, err := s.validate(a.routes)
	if err != nil {
		return StubState{}, err
	}
	if s.Account != "" {
		if _, ok := a.store.LookupAccount(s.Account); !ok {
			return StubState{}, problem.Field("/account", "not_found", "no such account")
		}
	}
	return a.stubs.add(s)
}

// Stubs lists the armed stubs, oldest first; with an account, those that can answer its requests.
func (a *API) Stubs(account string) []StubState { return a.stubs.list(account) }

// DeleteStub disarms one stub; an unknown id is a 404.
func (a *API) DeleteStub(id string) error {
	if a.stubs.remove(func(s *armedStub) bool { return s.id == id }) == 0 {
		return problem.NotFound("stub")
	}
	return nil
}

// ClearStubs disarms the stubs of an account ("" = every stub).
func (a *API) ClearStubs(account string) {
	a.stubs.remove(func(s *armedStub) bool { return account == "" || s.Account == account })
}

// stubFault prefixes the id of the stub that answered a request in request.fault.
const stubFault = "stub:"

// stubbed answers a routed /api/v1 request with the first armed stub that matches it, in place
// of its handler and everything behind it (validation, idempotency, the store, the audit log):
// the request has passed authentication, the allowlist, its signature, the rate limit, routing
// and its scope, so a stub changes what the server answers, never who may ask. The journal
// names the stub (JournalEntry.Stub).
func (a *API) stubbed(rq *request) *answer {
	if a.stubs.count() == 0 {
		return nil
	}
	armed, s := a.stubs.take(rq.cred.Account, rq)
	if armed == nil {
		return nil
	}
	rq.fault = stubFault + armed.id
	if !delay(rq, s.DelayMs) {
		return &answer{} // the caller left: nothing to say
	}
	ans := &answer{status: s.Status, header: http.Header{}, body: s.Body}
	if len(s.Body) > 0 {
		ans.header.Set("Content-Type", "application/json")
	}
	for k, v := range s.Headers {
		ans.header.Set(k, v)
	}
	return ans
}

// delay waits ms milliseconds, or until the request is cancelled: it reports whether the wait
// ran its course.
func delay(rq *request, ms int) bool {
	if ms <= 0 {
		return true
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-rq.Context().Done():
		return false
	}
}

// count is how many stubs are armed (no lock: a request with none armed pays an atomic load).
func (ss *stubs) count() int { return int(ss.n.Load()) }
