package httpapi

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/medspa/medspa-go/mockserver/internal/reqlog"
)

// journal records every request that passes it in the journal (docs/protocol.md §12 "GET
// /__admin/requests") and logs one metadata-only line for it: method, path, status, duration,
// request id (no query values, no PHI). It runs after the step below it answered, or when the
// connection was dropped (status 0).
func (a *API) journal(w http.ResponseWriter, rq *request, next handler) {
	start := rq.arrived
	r := rq.Request
	// Strings of the request point into its request line, which a kept substring would keep
	// whole (a 4 KiB path for a method): the entry holds copies.
	e := JournalEntry{Method: methodName(r.Method), Path: strings.Clone(journalPath(r.URL.Path)), RequestID: rq.id}
	clk := a.store.Clock()
	if c := rq.caller.cred; c != nil {
		e.Account, e.CredentialID = c.Account, c.ID
		clk = a.store.Account(c.Account).Clock()
	}
	e.At = clk.At(start).Truncate(time.Millisecond)
	if k := r.Header.Get("Idempotency-Key"); k != "" && r.Method == http.MethodPost {
		e.IdempotencyKey = a.keyDigest(k)
	}
	rq.statusW = statusWriter{ResponseWriter: w}
	sw := &rq.statusW
	defer func() { // deferred: a dropped connection (a panic of http.ErrAbortHandler) is journalled too
		e.Status, e.Fault = sw.status, rq.fault
		if id, ok := strings.CutPrefix(rq.fault, stubFault); ok {
			e.Fault, e.Stub = "", id
		}
		if c := rq.caller.cred; e.Account == "" && c != nil {
			// An OAuth client that authenticated at /oauth/token or /oauth/revoke (oauth.go's
			// clientAuth): its token requests show in its account's journal.
			e.Account, e.CredentialID = c.Account, c.ID
		}
		e.QueryParams = queryNames(rq)
		end := time.Now()
		d := end.Sub(start)
		e.DurationMs = float64(d.Microseconds()) / 1000
		a.requests.add(e)
		if a.stream.listening() { // checked here: e stays on the stack unless streamed
			a.stream.journalled(e)
		}
		if l := a.opts.Logger; l != nil {
			logRequest(l, &e, end, d)
		}
	}()
	next(sw, rq)
}

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

// levelOf logs server errors and dropped connections as warnings.
func levelOf(status int) slog.Level {
	if status == 0 || status >= 500 {
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

// logRequest writes the request's log line: metadata only. The server's own handler
// (reqlog.Handler: the binary's, and NewLogHandler's) takes the line's fields as they are; any
// other gets a record made here rather than by Logger.LogAttrs, which would look up the
// caller's program counter for every line (it is always this function's: journalPC) and build
// the attributes in a slice of their own. Fenced optimisations kept by BenchmarkFenceRequestLog
// and reqlog's BenchmarkFenceRequestLines (BENCHMARKS.md).
func logRequest(l *slog.Logger, e *JournalEntry, end time.Time, d time.Duration) {
	ctx, level, h := context.Background(), levelOf(e.Status), l.Handler()
	if !h.Enabled(ctx, level) {
		return
	}
	fault := e.Fault
	if e.Stub != "" {
		fault = stubFault + e.Stub // a stubbed answer shows as fault=stub:stb_N
	}
	line := reqlog.Line{Time: end, Level: level, Method: e.Method, Path: e.Path, Status: e.Status, Duration: d,
		RequestID: e.RequestID, Account: e.Account, Fault: fault}
	if rh, ok := h.(*reqlog.Handler); ok {
		_ = rh.Request(&line) // a log that cannot be written does not fail the request
		return
	}
	_ = h.Handle(ctx, line.Record(journalPC))
}

// journalPC is the source a handler with AddSource shows for request lines: this file.
var journalPC = func() uintptr {
	pc, _, _, _ := runtime.Caller(0)
	return pc
}()

// journalPath is a path as the journal keeps it: redacted (loggedPath) and cut to
// MaxJournalPath bytes, before and after redaction (which may lengthen it).
func journalPath(p string) string {
	return cut(loggedPath(cut(p, MaxJournalPath)), MaxJournalPath)
}

// cut returns s cut to at most n bytes, on a UTF-8 boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// queryNames returns the names of the request's query parameters that its route knows, sorted
// (values may be PHI: never kept; so may names the server does not know, which count as one
// "other"). A route's handler names the parameters it knows (parseQuery); a request no handler
// read is judged by every name the API knows.
func queryNames(rq *request) []string {
	if rq.query == nil && rq.URL.RawQuery == "" {
		return []string{} // none (and no map parsed for it)
	}
	q := rq.queryValues()
	names := make([]string, 0, len(q))
	other := false
	for k := range q {
		if known := rq.knownQuery; known != nil && slices.Contains(known, k) || known == nil && knownQueryNames[k] {
			names = append(names, k)
		} else {
			other = true
		}
	}
	if other {
		names = append(names, "other")
	}
	slices.Sort(names)
	for i, n := range names {
		names[i] = strings.Clone(n) // not a piece of the request line
	}
	return names
}

// methodName is the method as the journal keeps it: the constant for a standard method, else a
// copy cut to 32 bytes.
func methodName(m string) string {
	for _, std := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete, http.MethodPut,
		http.MethodHead, http.MethodOptions} {
		if m == std {
			return std
		}
	}
	return strings.Clone(cut(m, 32))
}

// knownQueryNames are the query parameters of every route, the OAuth endpoints and the admin
// surface.
var knownQueryNames = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range []string{
		"page", "perPage", "sort", "q", "email", "createdFrom", "createdTo", "patientId", "providerId", "status", "from", "to",
		"category", "active", "productId", "location", "lowStock", "expiringBefore", "timezone", "groupBy", "source", "metrics",
		"filter", "response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method",
		"account", "after",
	} {
		m[n] = true
	}
	return m
}()

// keyDigest is what the journal keeps of an Idempotency-Key: 16 hex digits of an HMAC-SHA-256
// under a key drawn once per server, so equal keys match within one server and the key cannot be
// read back or tried against another server's journal.
func (a *API) keyDigest(key string) string {
	m := hmac.New(sha256.New, a.journalSalt[:])
	m.Write([]byte(key))
	return hex.EncodeToString(m.Sum(nil)[:8])
}
