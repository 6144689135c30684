package client

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func TestLimiterObserve(t *testing.T) {
	t.Parallel()
	now := time.Now()
	resp := func(status int, h ...string) *http.Response {
		r := &http.Response{StatusCode: status, Header: http.Header{}}
		for i := 0; i+1 < len(h); i += 2 {
			r.Header.Set(h[i], h[i+1])
		}
		return r
	}
	reset := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	tests := []struct {
		name     string
		resp     *http.Response
		min, max time.Duration // expected hold, from now
	}{
		{"tokens left", resp(200, "X-RateLimit-Remaining", "3", "X-RateLimit-Reset", reset(time.Minute)), 0, 0},
		{"no headers", resp(200), 0, 0},
		{"empty bucket: one token at 10/s", resp(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", reset(time.Minute)), 50 * time.Millisecond, 100 * time.Millisecond},
		{"empty bucket, reset sooner", resp(200, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", reset(-time.Minute)), 0, 0},
		{"429 Retry-After", resp(429, "Retry-After", "2"), 1900 * time.Millisecond, 2 * time.Second},
		{"429 quota until midnight: not held", resp(429, "Retry-After", "40000"), 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg config
			WithRateLimit(600, 5)(&cfg)
			l := newLimiter(*cfg.rate)
			l.observe(tt.resp, now)
			hold := time.Until(l.until)
			if tt.max == 0 {
				if hold > 0 {
					t.Fatalf("held %v", hold)
				}
				return
			}
			if hold < tt.min || hold > tt.max {
				t.Fatalf("held %v, want %v–%v", hold, tt.min, tt.max)
			}
		})
	}
}
