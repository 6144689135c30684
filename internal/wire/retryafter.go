package wire

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ParseRetryAfter reads a Retry-After value, delay-seconds or an HTTP date (RFC 9110 §10.2.3),
// as a wait from now, at most limit (limit <= 0: no cap). Anything unreadable, negative or in
// the past is 0.
func ParseRetryAfter(v string, now time.Time, limit time.Duration) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		const maxSecs = int64((1<<63 - 1) / time.Second)
		d = time.Duration(min(secs, maxSecs)) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	if d <= 0 {
		return 0
	}
	if limit > 0 && d > limit {
		return limit
	}
	return d
}
