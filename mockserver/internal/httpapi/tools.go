package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// tools are the mock's test controls that are not part of the API (docs/protocol.md §12): faults, the request
// journal and snapshots.
type tools struct {
	faults  faults
	journal journal

	fixtureMu sync.Mutex

	snapMu    sync.Mutex
	snapshots map[string][]byte // account + "\x00" + name → Account.Export
}

func newTools(journalSize int) *tools {
	if journalSize == 0 {
		journalSize = DefaultJournalSize
	}
	return &tools{journal: journal{size: journalSize, byAccount: map[string]*ring{}}, snapshots: map[string][]byte{}}
}

// callerOf resolves the bearer credential of r (API key or OAuth access token) without side
// effects (no audit, no expiry check), for fault scoping and the journal; nil when there is none.
func (a *API) callerOf(r *http.Request) *auth.Credential {
	scheme, secret, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return nil
	}
	if c, ok := a.keys.Lookup(secret); ok {
		return c
	}
	if strings.HasPrefix(secret, "mat_") { // an OAuth access token, valid or expired
		t, _ := a.sec.oauth.Access(secret, func(c *auth.OAuthClient) time.Time { return a.sec.accountNow(c.Credential.Account) })
		if t != nil {
			return t.Client.Credential
		}
	}
	return nil
}

// OAuth returns the OAuth registry (clients, codes, tokens), for persistence.
func (a *API) OAuth() *auth.OAuth { return a.sec.oauth }

// statusWriter remembers the status written through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// ServeFront serves a non-admin request behind the test tools: an armed fault that matches
// answers instead of (or after) the API, every request is journalled, and the logger gets one
// line per request (method, path, status, duration, request id: no query values, no PHI).
func (a *API) ServeFront(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	e := JournalEntry{Method: r.Method, Path: loggedPath(r.URL.Path), QueryParams: queryNames(r)}
	if c := a.callerOf(r); c != nil {
		e.Account, e.CredentialID = c.Account, c.ID
	}
	e.At = a.store.Clock().Now()
	if e.Account != "" {
		e.At = a.store.Account(e.Account).Clock().Now()
	}
	e.At = e.At.Truncate(time.Millisecond)
	if r.Method == http.MethodPost {
		e.IdempotencyKey = r.Header.Get("Idempotency-Key")
	}
	sw := &statusWriter{ResponseWriter: w}
	defer func() {
		e.Status = sw.status
		if e.RequestID == "" {
			e.RequestID = sw.Header().Get("X-Request-Id")
		}
		a.record(e, start)
	}()
	var f *Fault
	if !strings.HasPrefix(r.URL.Path, "/__admin/") { // reached here only with the admin surface off
		f = a.tools.faults.take(e.Account, r.Method, r.URL.Path)
	}
	if f == nil {
		a.ServeHTTP(sw, r)
		return
	}
	if f.DelayMs > 0 {
		e.Fault = "delay"
		t := time.NewTimer(time.Duration(f.DelayMs) * time.Millisecond)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	suffix := ""
	if f.AfterCommit {
		rec := httptest.NewRecorder()
		a.ServeHTTP(rec, r)
		e.RequestID, suffix = rec.Header().Get("X-Request-Id"), "-after-commit"
	}
	switch {
	case f.DropConnection:
		e.Fault = "drop" + suffix
		if e.RequestID == "" {
			e.RequestID = a.newRequestID()
		}
		panic(http.ErrAbortHandler) // the deferred record still runs; net/http closes the connection
	case f.Status != 0:
		e.Fault = "status" + suffix
		e.RequestID = a.newRequestID()
		sw.Header().Set("X-Request-Id", e.RequestID)
		problem.Write(sw, e.RequestID, f.problem())
	default:
		a.ServeHTTP(sw, r)
	}
}

// record journals e and logs its line.
func (a *API) record(e JournalEntry, start time.Time) {
	d := time.Since(start)
	e.DurationMs = float64(d.Microseconds()) / 1000
	a.tools.journal.add(e)
	if l := a.opts.Logger; l != nil {
		l.LogAttrs(context.Background(), levelOf(e.Status), "request", slogAttrs(e, d)...)
	}
}

func (a *API) newRequestID() string { return a.store.IDs().New("req", a.store.Clock().Now()) }

// routeWords are the literal segments of every route: the words a logged path may keep.
var routeWords = sync.OnceValue(func() map[string]bool {
	words := map[string]bool{"v1": true, "oauth": true, "token": true, "authorize": true, "revoke": true, "__admin": true}
	for _, rt := range (&API{}).routes() {
		for w := range strings.SplitSeq(rt.pattern, "/") {
			words[w] = true
		}
	}
	return words
})

// wellFormedID reports whether s has the shape of a server id: 3–4 lowercase letters, "_", 32
// lowercase hex digits.
func wellFormedID(s string) bool {
	prefix, digits, ok := strings.Cut(s, "_")
	if !ok || len(prefix) < 3 || len(prefix) > 4 || len(digits) != 32 {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if prefix[i] < 'a' || prefix[i] > 'z' {
			return false
		}
	}
	for i := 0; i < len(digits); i++ {
		if c := digits[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// keptSegment reports whether a path segment may be logged as is.
func keptSegment(s string) bool { return s == "" || routeWords()[s] || wellFormedID(s) }

// loggedPath is a request path as the journal and the log keep it: route words and well-formed
// ids stay, any other segment becomes "{redacted}" (a mistyped id may be an email or a name).
func loggedPath(p string) string {
	clean := true
	for s := range strings.SplitSeq(p, "/") {
		clean = clean && keptSegment(s)
	}
	if clean {
		return p // the usual case: nothing to redact, nothing to allocate
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if !keptSegment(s) {
			segs[i] = "{redacted}"
		}
	}
	return strings.Join(segs, "/")
}

// queryNames returns the query parameter names, sorted (values may be PHI: never kept).
func queryNames(r *http.Request) []string {
	q := r.URL.Query()
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
