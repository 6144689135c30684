package client

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RateLimit is the server's rate-limit state after a call (docs/protocol.md §7).
type RateLimit struct {
	// Limit is the bucket size (burst); 0 when the server sent no rate-limit headers.
	Limit int
	// Remaining is the whole tokens left in the bucket.
	Remaining int
	// Reset is when the bucket is full again.
	Reset time.Time
	// DailyRemaining is the requests left today; -1 when the plan has no daily quota.
	DailyRemaining int
}

// parseRateLimit reads X-RateLimit-* and the daily item of the IETF RateLimit field. Keys are
// written canonically and absent fields skipped: reading an answer's state allocates nothing.
func parseRateLimit(h http.Header) RateLimit {
	rl := RateLimit{DailyRemaining: -1}
	if v := h.Get("X-Ratelimit-Limit"); v != "" {
		rl.Limit, _ = strconv.Atoi(v)
	}
	if v := h.Get("X-Ratelimit-Remaining"); v != "" {
		rl.Remaining, _ = strconv.Atoi(v)
	}
	if v := h.Get("X-Ratelimit-Reset"); v != "" {
		if s, err := strconv.ParseInt(v, 10, 64); err == nil {
			rl.Reset = time.Unix(s, 0).UTC()
		}
	}
	for item := range strings.SplitSeq(h.Get("Ratelimit"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(item), ";")
		if name != `"daily"` {
			continue
		}
		for p := range strings.SplitSeq(params, ";") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(p), "r="); ok {
				if n, err := strconv.Atoi(v); err == nil {
					rl.DailyRemaining = n
				}
			}
		}
	}
	return rl
}

// Response is the metadata of the last HTTP answer a call got, returned by every call with its
// result or its error (go-github style): status, request id, rate-limit state, attempts and
// idempotent replay. Calls that got no answer (refused before the wire, transport failures) or
// whose answer failed signature verification return a nil *Response.
type Response struct {
	// StatusCode is the HTTP status of the last answer.
	StatusCode int
	// Header is the header of the last answer.
	Header http.Header
	// RequestID is the server's X-Request-Id.
	RequestID string
	// Attempts counts the HTTP attempts the call made up to this answer (1 when it was not
	// retried).
	Attempts int
	// RateLimit is the rate-limit state the server reported.
	RateLimit RateLimit
	// Replayed reports an idempotent replay (Idempotent-Replayed: true).
	Replayed bool
}
