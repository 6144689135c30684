package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"time"
)

// journal records every request that passes it in the journal (docs/protocol.md §12 "GET
// /__admin/requests") and logs one metadata-only line for it: method, path, status, duration,
// request id (no query values, no PHI). It runs after the step below it answered, or when the
// connection was dropped (status 0).
func (a *API) journal(w http.ResponseWriter, rq *request, next handler) {
	start := time.Now()
	r := rq.Request
	e := JournalEntry{Method: r.Method, Path: loggedPath(r.URL.Path), QueryParams: queryNames(r), RequestID: rq.id}
	clk := a.store.Clock()
	if c := rq.caller.cred; c != nil {
		e.Account, e.CredentialID = c.Account, c.ID
		clk = a.store.Account(c.Account).Clock()
	}
	e.At = clk.Now().Truncate(time.Millisecond)
	if r.Method == http.MethodPost {
		e.IdempotencyKey = r.Header.Get("Idempotency-Key")
	}
	sw := &statusWriter{ResponseWriter: w}
	defer func() { // deferred: a dropped connection (a panic of http.ErrAbortHandler) is journalled too
		e.Status, e.Fault = sw.status, rq.fault
		d := time.Since(start)
		e.DurationMs = float64(d.Microseconds()) / 1000
		a.requests.add(e)
		if l := a.opts.Logger; l != nil {
			l.LogAttrs(context.Background(), levelOf(e.Status), "request", logAttrs(e, d)...)
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

// logAttrs is the request's log line: metadata only.
func logAttrs(e JournalEntry, d time.Duration) []slog.Attr {
	attrs := []slog.Attr{
		slog.String("method", e.Method), slog.String("path", e.Path), slog.Int("status", e.Status),
		slog.Duration("duration", d), slog.String("request_id", e.RequestID),
	}
	if e.Account != "" {
		attrs = append(attrs, slog.String("account", e.Account))
	}
	if e.Fault != "" {
		attrs = append(attrs, slog.String("fault", e.Fault))
	}
	return attrs
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
