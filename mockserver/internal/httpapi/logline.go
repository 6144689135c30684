package httpapi

import (
	"log/slog"
	"time"
)

// levelOf logs server errors and dropped connections as warnings.
func levelOf(status int) slog.Level {
	if status == 0 || status >= 500 {
		return slog.LevelWarn
	}
	return slog.LevelInfo
}

// slogAttrs is the request's log line: metadata only.
func slogAttrs(e JournalEntry, d time.Duration) []slog.Attr {
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
