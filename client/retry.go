package client

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/medspa/medspa-go/internal/wire"
)

// retrySafe reports whether resending the call cannot apply it twice: safe and idempotent
// methods (PATCH is a merge patch that sets state, so resending it is idempotent too) and POSTs
// that carry an Idempotency-Key (docs/protocol.md §8).
func (c *call) retrySafe() bool {
	switch c.method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete, http.MethodPatch:
		return true
	}
	return c.idemKey != ""
}

// retryable reports whether an attempt that got no answer is retried: only a transport failure
// (never a refused token, a refused redirect, a bad signature or an oversized body), only when
// resending is safe and retries are left, and only when go-retryablehttp's policy does not know
// it for one no retry can fix (bad certificates, unsupported schemes, invalid headers).
func (c *call) retryable(ctx context.Context, err error) bool {
	var ue *url.Error
	if ctx.Err() != nil || c.retries >= c.cfg.maxRetries || !c.retrySafe() || !errors.As(err, &ue) ||
		errors.As(err, new(*TokenError)) || errors.As(err, new(*RedirectError)) {
		return false
	}
	retry, _ := retryablehttp.DefaultRetryPolicy(ctx, nil, ue)
	return retry
}

// retryableAnswer reports an answer a retry can fix, while retries are left: 429 always (the
// server refused before doing anything), 502–504 when resending is safe; both only while the
// server's Retry-After is within the cap (a longer one is the caller's to see, as *Error).
func (c *call) retryableAnswer(ctx context.Context, resp *http.Response) bool {
	if ctx.Err() != nil || c.retries >= c.cfg.maxRetries {
		return false
	}
	if !c.retriedStatus(resp.StatusCode) {
		return false
	}
	return wire.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now(), 0) <= c.cfg.retryAfterMax
}

// explain adds to an answer that ends the call what its own text leaves out: a Retry-After
// over WithMaxRetryAfter that stopped the retries (the wait and the cap), and when a spent daily
// quota resets (by the client's clock, to the second).
func (c *call) explain(e *Error) {
	switch {
	case e.Code == "quota_exceeded" && e.RetryAfter > 0:
		reset := c.cfg.now().Add(e.RetryAfter).UTC().Truncate(time.Second)
		e.hint = fmt.Sprintf("the daily quota resets at %s (in %v)", reset.Format(time.RFC3339), e.RetryAfter)
	case e.RetryAfter > c.cfg.retryAfterMax && c.cfg.maxRetries > 0 && c.retriedStatus(e.Status):
		e.hint = fmt.Sprintf("Retry-After %v is over the configured cap of %v (WithMaxRetryAfter), so the call was not retried",
			e.RetryAfter, c.cfg.retryAfterMax)
	}
}

// retriedStatus reports an answer's status that the call retries while its Retry-After is within
// the cap: 429 always, 502–504 when resending is safe.
func (c *call) retriedStatus(status int) bool {
	switch status {
	case http.StatusTooManyRequests:
		return true
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return c.retrySafe()
	}
	return false
}

// backoff is the wait before retry number c.retries: the server's Retry-After when it sent one
// (capped), else exponential backoff with full jitter, a random duration in
// [0, min(retryWaitMax, retryWaitMin·2^(retry-1))].
func (c *call) backoff(retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, c.cfg.retryAfterMax)
	}
	ceiling := c.cfg.retryWaitMin << min(c.retries-1, 30)
	if ceiling <= 0 || ceiling > c.cfg.retryWaitMax {
		ceiling = c.cfg.retryWaitMax
	}
	if ceiling <= 0 {
		return 0
	}
	return rand.N(ceiling + 1)
}

// pause waits d before a retry, logged first when it is long (logWait). A wait that ctx ends, or
// that would outlast ctx's deadline (it fails at once then), ends the call with ctx's error
// joined to the failure it was to retry.
func (c *call) pause(ctx context.Context, d time.Duration, retried error) error {
	stop := func(ctxErr error) error {
		return &callError{msg: fmt.Sprintf("medspa: %s %s: %v before retrying (%s; %s)", c.method, c.path, ctxErr, describeTransport(retried), c.spent()),
			err: errors.Join(ctxErr, retried)}
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		return stop(context.DeadlineExceeded)
	}
	c.logWait(ctx, d, c.waitWhy)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return stop(ctx.Err())
	case <-t.C:
		return nil
	}
}
