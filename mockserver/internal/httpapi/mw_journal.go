package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/controls"
)

// journal records a request and its answer in the journal (docs/protocol.md §12 "GET
// /__admin/requests") and logs one metadata-only line for it: method, path, status, duration,
// request id (no query values, no PHI). A dropped connection is status 0.
func (a *API) journal(rq *request, ans *answer) {
	start := rq.arrived
	r := rq.Request
	// Strings of the request point into its request line, which a kept substring would keep
	// whole (a 4 KiB path for a method): the entry holds copies.
	e := controls.JournalEntry{Method: controls.MethodName(r.Method), Path: strings.Clone(JournalPath(r.URL.Path)), RequestID: rq.id}
	clk := a.store.Clock()
	if c := rq.caller.cred; c != nil {
		e.Account, e.CredentialID = c.Account, c.ID
		clk = a.store.Account(c.Account).Clock()
	}
	e.At = clk.At(start).Truncate(time.Millisecond)
	if k := r.Header.Get("Idempotency-Key"); k != "" && r.Method == http.MethodPost {
		e.IdempotencyKey = a.ctl.Journal.KeyDigest(k)
	}
	if !ans.Drop {
		e.Status = ans.Status
	}
	e.Fault = rq.fault
	if id, ok := strings.CutPrefix(rq.fault, controls.StubFault); ok {
		e.Fault, e.Stub = "", id
	}
	if c := rq.caller.cred; e.Account == "" && c != nil {
		// An OAuth client that authenticated at /oauth/token or /oauth/revoke (oauth.go's
		// clientAuth): its token requests show in its account's journal.
		e.Account, e.CredentialID = c.Account, c.ID
	}
	e.QueryParams = a.queryNames(rq)
	d := time.Since(start)
	e.DurationMs = float64(d.Microseconds()) / 1000
	a.ctl.Journal.Add(e)
	if a.ctl.Stream.Listening() { // checked here: e stays on the stack unless streamed
		a.ctl.Stream.Journalled(e)
	}
	if l := a.opts.Logger; l != nil {
		logRequest(l, &e, d)
	}
}

// levelOf logs server errors and dropped connections as warnings.
func levelOf(status int) slog.Level {
	if status == 0 || status >= 500 {
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

// logRequest writes the request's log line: metadata only. The record is made here and handed
// to the handler, as slog's documentation shows for a logging wrapper: Logger.LogAttrs would
// look up its caller's program counter for every line (runtime.Callers), which a request line
// never shows.
func logRequest(l *slog.Logger, e *controls.JournalEntry, d time.Duration) {
	ctx, level, h := context.Background(), levelOf(e.Status), l.Handler()
	if !h.Enabled(ctx, level) {
		return
	}
	r := slog.NewRecord(time.Now(), level, "request", 0)
	r.AddAttrs(slog.String("method", e.Method), slog.String("path", e.Path), slog.Int("status", e.Status),
		slog.Duration("duration", d), slog.String("request_id", e.RequestID))
	if e.Account != "" {
		r.AddAttrs(slog.String("account", e.Account))
	}
	switch {
	case e.Stub != "":
		r.AddAttrs(slog.String("fault", controls.StubFault+e.Stub)) // a stubbed answer shows as fault=stub:stb_N
	case e.Fault != "":
		r.AddAttrs(slog.String("fault", e.Fault))
	}
	_ = h.Handle(ctx, r) // a log that cannot be written does not fail the request
}

// JournalPath is a path as the journal keeps it (and the live stream shows an anonymous audit
// event's): redacted (loggedPath) and cut to controls.MaxJournalPath bytes, before and after
// redaction (which may lengthen it).
func JournalPath(p string) string {
	return controls.Cut(loggedPath(controls.Cut(p, controls.MaxJournalPath)), controls.MaxJournalPath)
}

// queryNames returns the names of the request's query parameters that its route knows, sorted
// (values may be PHI: never kept; so may names the server does not know, which count as one
// "other"). A routed request is judged by its route's parameters (route.query), any other by
// every name the API knows (API.knownQuery).
func (a *API) queryNames(rq *request) []string {
	if rq.query == nil && rq.URL.RawQuery == "" {
		return []string{} // none (and no map parsed for it)
	}
	q := rq.queryValues()
	names := make([]string, 0, len(q))
	other := false
	for k := range q {
		if rq.route != nil && slices.Contains(rq.route.query, k) || rq.route == nil && a.knownQuery[k] {
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
