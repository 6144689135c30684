// Package reqlog is the request log's handler: slog's TextHandler, with the server's request
// lines appended by hand, byte for byte what the TextHandler writes.
package reqlog

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// Handler is slog's TextHandler, except for request lines (message "request", with string,
// integer and duration attributes, none of whose keys or values needs quoting): those are
// appended by hand, byte for byte what the TextHandler writes (TestHandlerMatchesTextHandler);
// anything else is the TextHandler's. The server's journal hands its lines to Request, with no
// slog.Record made for them. Retired (issue 28, BENCHMARKS.md "Retired"): neither the binary nor
// mockserver.NewLogHandler makes one any more; the package goes once the journal no longer
// recognises it.
type Handler struct {
	*slog.TextHandler
	out io.Writer // written with one Write per line, as the TextHandler does
}

// New returns a handler writing to out, at the TextHandler's default level (Info).
func New(out io.Writer) *Handler {
	return &Handler{TextHandler: slog.NewTextHandler(out, nil), out: out}
}

// Line is one request's log line: metadata only (the server's journal entry; never PHI).
type Line struct {
	Time      time.Time
	Level     slog.Level
	Method    string
	Path      string
	Status    int
	Duration  time.Duration
	RequestID string
	Account   string // omitted when empty
	Fault     string // omitted when empty
}

// Record is the line as a slog record, with pc as its source.
func (l *Line) Record(pc uintptr) slog.Record {
	r := slog.NewRecord(l.Time, l.Level, "request", pc)
	r.AddAttrs(slog.String("method", l.Method), slog.String("path", l.Path), slog.Int("status", l.Status),
		slog.Duration("duration", l.Duration), slog.String("request_id", l.RequestID))
	if l.Account != "" {
		r.AddAttrs(slog.String("account", l.Account))
	}
	if l.Fault != "" {
		r.AddAttrs(slog.String("fault", l.Fault))
	}
	return r
}

// lineBuffers hold lines while they are made.
var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// Request writes l as Handle writes l.Record: the caller has checked that the handler is
// enabled at l.Level.
func (h *Handler) Request(l *Line) error {
	if l.Time.IsZero() || !unquoted(l.Method) || !unquoted(l.Path) || !unquoted(l.RequestID) ||
		(l.Account != "" && !unquoted(l.Account)) || (l.Fault != "" && !unquoted(l.Fault)) {
		return h.TextHandler.Handle(context.Background(), l.Record(0))
	}
	bp := lineBuffers.Get().(*[]byte)
	defer lineBuffers.Put(bp)
	b := appendHead((*bp)[:0], l.Time, l.Level)
	b = append(b, " method="...)
	b = append(b, l.Method...)
	b = append(b, " path="...)
	b = append(b, l.Path...)
	b = append(b, " status="...)
	b = strconv.AppendInt(b, int64(l.Status), 10)
	b = append(b, " duration="...)
	b = append(b, l.Duration.String()...)
	b = append(b, " request_id="...)
	b = append(b, l.RequestID...)
	if l.Account != "" {
		b = append(b, " account="...)
		b = append(b, l.Account...)
	}
	if l.Fault != "" {
		b = append(b, " fault="...)
		b = append(b, l.Fault...)
	}
	*bp = append(b, '\n')
	_, err := h.out.Write(*bp)
	return err
}

// Handle writes r.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message != "request" || r.Time.IsZero() {
		return h.TextHandler.Handle(ctx, r)
	}
	bp := lineBuffers.Get().(*[]byte)
	defer lineBuffers.Put(bp)
	b := appendHead((*bp)[:0], r.Time, r.Level)
	plain := true
	r.Attrs(func(a slog.Attr) bool {
		v := a.Value
		if plain = unquoted(a.Key); !plain {
			return false
		}
		b = append(append(append(b, ' '), a.Key...), '=')
		switch v.Kind() {
		case slog.KindString:
			s := v.String()
			if plain = unquoted(s); plain {
				b = append(b, s...)
			}
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindDuration:
			b = append(b, v.Duration().String()...) // the TextHandler never quotes a duration
		default:
			plain = false
		}
		return plain
	})
	*bp = b
	if !plain {
		return h.TextHandler.Handle(ctx, r)
	}
	*bp = append(b, '\n')
	_, err := h.out.Write(*bp)
	return err
}

// appendHead appends what the TextHandler writes before a request line's attributes.
func appendHead(b []byte, t time.Time, level slog.Level) []byte {
	b = append(b, "time="...)
	b = appendRFC3339Millis(b, t.Round(0))
	b = append(b, " level="...)
	b = append(b, level.String()...)
	return append(b, " msg=request"...)
}

// unquoted reports whether the TextHandler writes s as it is: not empty, and printable ASCII
// other than space, '=', '"' and '\' (a conservative subset of what it leaves unquoted).
func unquoted(s string) bool {
	for i := 0; i < len(s); i++ {
		if !bare[s[i]] {
			return false
		}
	}
	return s != ""
}

// bare says which bytes unquoted lets through: one load a byte rather than five comparisons
// (every request line's method, path, request id and account pass here).
var bare = func() (t [256]bool) {
	for c := '!'; c < 0x7f; c++ {
		t[c] = c != '=' && c != '"' && c != '\\'
	}
	return t
}()

// appendRFC3339Millis is how the TextHandler writes a record's time: RFC 3339, milliseconds.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10) // exactly 4 digits after the point
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...) // drop the 4th digit
}
