package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/medspa/medspa-go/internal/wire"
)

// Plan is a MedSpa plan, for WithPlan.
type Plan string

// The plans of the API (docs/protocol.md §7).
const (
	PlanStarter      Plan = "starter"      // 60/min, burst 100
	PlanProfessional Plan = "professional" // 300/min, burst 500
	PlanEnterprise   Plan = "enterprise"   // 1,000/min, burst 2,000
)

// rateSpec is a token bucket: WithPlan's or WithRateLimit's.
type rateSpec struct {
	perMinute float64
	burst     int
}

var planLimits = map[Plan]rateSpec{
	PlanStarter:      {60, 100},
	PlanProfessional: {300, 500},
	PlanEnterprise:   {1000, 2000},
}

// WithPlan keeps the client within plan's rate limit before requests reach the wire (see
// WithRateLimit). An unknown plan makes New fail.
func WithPlan(p Plan) RequestOption {
	l, ok := planLimits[p]
	if !ok {
		return func(c *config) { c.err = fmt.Errorf("medspa: WithPlan: unknown plan %q", p) }
	}
	return WithRateLimit(l.perMinute, l.burst)
}

// WithRateLimit keeps the client within perMinute requests a minute with bursts of burst (a
// token bucket, as the server's): calls wait (context-aware) instead of getting 429s. There is
// one bucket per credential and rate, shared by every call of the client that names them, on
// the client or per call. The client's bucket holds one token less than burst (when burst > 1):
// the server takes its token when a request arrives, not when it was sent, so a request that
// overtakes its predecessor on the way would otherwise find the server's bucket empty. The
// limiter also follows the server: after a 429 with Retry-After, or a response saying no
// tokens remain, further requests hold until a token is due. A wait that would outlast the
// context's deadline fails at once with an error matching context.DeadlineExceeded.
func WithRateLimit(perMinute float64, burst int) RequestOption {
	if perMinute <= 0 || burst < 1 {
		return func(c *config) {
			c.err = errors.New("medspa: WithRateLimit: perMinute must be > 0 and burst ≥ 1")
		}
	}
	spec := &rateSpec{perMinute, burst}
	return func(c *config) { c.rate = spec }
}

// limiter keeps one credential under its plan's rate before requests reach the wire; nil when
// off. Waits run on real time, whatever the client's clock.
type limiter struct {
	bucket *rate.Limiter
	mu     sync.Mutex
	until  time.Time // the server asked to hold requests until then
}

func newLimiter(s rateSpec) *limiter {
	return &limiter{bucket: rate.NewLimiter(rate.Limit(s.perMinute/60), max(s.burst-1, 1))}
}

// wait blocks until the call may be sent: past any hold the server asked for, then a token of
// the bucket; before blocking it tells before how long it will wait. It returns ctx's error if
// ctx ends first, and an error wrapping context.DeadlineExceeded at once if the wait would
// outlast ctx's deadline.
func (l *limiter) wait(ctx context.Context, before func(time.Duration)) error {
	if l == nil {
		return nil
	}
	now := time.Now()
	l.mu.Lock()
	from := now
	if l.until.After(now) {
		from = l.until
	}
	l.mu.Unlock()
	r := l.bucket.ReserveN(from, 1)
	d := r.DelayFrom(now)
	if d <= 0 {
		return nil
	}
	if deadline, ok := ctx.Deadline(); ok && now.Add(d).After(deadline) {
		r.CancelAt(now)
		return fmt.Errorf("medspa: the rate limit's wait of %v outlasts the context: %w", d.Round(time.Millisecond), context.DeadlineExceeded)
	}
	before(d)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		r.Cancel()
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// observe follows the server's view: a 429's Retry-After (up to DefaultRetryAfterMax) holds
// requests that long; a response reporting no tokens left holds them until one token is due at
// the configured rate (counted from when the request was sent, about when the server took its
// token), but never past the time the server says the bucket is full again.
func (l *limiter) observe(resp *http.Response, sent time.Time) {
	if l == nil || resp == nil {
		return
	}
	var hold time.Time
	if resp.StatusCode == http.StatusTooManyRequests {
		// A long Retry-After (a spent daily quota) is left to the caller as an *Error, rather
		// than silently stalling every later call for hours.
		if ra := wire.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now(), 0); ra > 0 && ra <= DefaultRetryAfterMax {
			hold = time.Now().Add(ra)
		}
	} else if rem, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining")); err == nil && rem == 0 {
		hold = sent.Add(time.Duration(float64(time.Second) / float64(l.bucket.Limit())))
		if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			if r := time.Unix(reset, 0); r.Before(hold) {
				hold = r
			}
		}
	}
	l.mu.Lock()
	if hold.After(l.until) {
		l.until = hold
	}
	l.mu.Unlock()
}
