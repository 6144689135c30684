package main

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// requestLines is the binary's log handler: slog's TextHandler, except that the request log's
// lines (message "request", with string, integer and duration attributes, none of whose keys or
// values needs quoting) are appended by hand, byte for byte what the TextHandler writes
// (TestRequestLinesMatchTextHandler); anything else is the TextHandler's. A fenced optimisation
// kept by BenchmarkFenceRequestLines (BENCHMARKS.md): the TextHandler was the largest part of
// the binary's own work per request left under load.
type requestLines struct {
	*slog.TextHandler
	out io.Writer // written with one Write per line, as the TextHandler does
}

// newLogHandler returns the binary's handler writing to out.
func newLogHandler(out io.Writer) slog.Handler {
	return &requestLines{TextHandler: slog.NewTextHandler(out, nil), out: out}
}

// lineBuffers hold lines while they are made.
var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// Handle writes r.
func (h *requestLines) Handle(ctx context.Context, r slog.Record) error {
	if r.Message != "request" || r.Time.IsZero() {
		return h.TextHandler.Handle(ctx, r)
	}
	bp := lineBuffers.Get().(*[]byte)
	defer lineBuffers.Put(bp)
	b := append((*bp)[:0], "time="...)
	b = appendRFC3339Millis(b, r.Time.Round(0))
	b = append(b, " level="...)
	b = append(b, r.Level.String()...)
	b = append(b, " msg=request"...)
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

// unquoted reports whether the TextHandler writes s as it is: not empty, and printable ASCII
// other than space, '=', '"' and '\' (a conservative subset of what it leaves unquoted).
func unquoted(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '=' || c == '"' || c == '\\' {
			return false
		}
	}
	return s != ""
}

// appendRFC3339Millis is how the TextHandler writes a record's time: RFC 3339, milliseconds.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10) // exactly 4 digits after the point
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...) // drop the 4th digit
}
