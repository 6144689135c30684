package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// retrySafe reports whether resending a request cannot apply it twice: safe and idempotent
// methods (PATCH is a merge patch that sets state, so resending it is idempotent too) and POSTs
// that carry an Idempotency-Key.
func retrySafe(method string, hasIdempotencyKey bool) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete, http.MethodPatch:
		return true
	}
	return hasIdempotencyKey
}

// checkRetry is the retry policy: never once ctx is done; 429 always (the server refused the
// request before doing anything) unless Retry-After is beyond the cap; connection errors and
// 502–504 only when resending is safe. Every other answer is final.
// Whether resending is safe is the call's (its method and idempotency key), read from ctx.
func checkRetry(cfg *config) retryablehttp.CheckRetry {
	return func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		st, _ := ctx.Value(callKey{}).(*call)
		safe := st != nil && st.retrySafe
		if err != nil {
			// A token the token endpoint refused will not come on a resend.
			if !safe || errors.As(err, new(*TokenError)) {
				return false, err
			}
			// The library's policy knows the transport errors no retry can fix (bad
			// certificates, unsupported schemes, redirect loops).
			retry, perr := retryablehttp.DefaultRetryPolicy(ctx, nil, err)
			if perr != nil {
				return false, perr
			}
			return retry, err
		}
		switch resp.StatusCode {
		case http.StatusTooManyRequests:
			return retryAfter(resp) <= cfg.retryAfterMax, nil
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return safe && retryAfter(resp) <= cfg.retryAfterMax, nil
		}
		return false, nil
	}
}

func retryAfter(resp *http.Response) time.Duration {
	return parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
}

// backoff waits Retry-After when the server sent one (capped), else exponential backoff with
// full jitter: a random duration in [0, min(maxWait, minWait·2^attempt)].
func backoff(cfg *config) retryablehttp.Backoff {
	return func(minWait, maxWait time.Duration, attempt int, resp *http.Response) time.Duration {
		if resp != nil {
			if ra := retryAfter(resp); ra > 0 {
				return min(ra, cfg.retryAfterMax)
			}
		}
		ceiling := minWait << min(attempt, 30)
		if ceiling <= 0 || ceiling > maxWait {
			ceiling = maxWait
		}
		if ceiling <= 0 {
			return 0
		}
		return rand.N(ceiling + 1)
	}
}
