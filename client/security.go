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

	"github.com/medspa/medspa-go/internal/httpsig"
)

// ErrResponseSignature is returned (wrapped) when signing is on and a response's signature is
// missing or does not verify: the response's data is never returned then.
var ErrResponseSignature = errors.New("medspa: response signature missing or invalid")

// WithSigning signs every request (RFC 9421, hmac-sha256, with Content-Digest) with the key's
// id (key_…) and signing secret (mss_…), and verifies the signature of every response. An
// invalid secret makes New (or the call) fail. Signing secrets belong to API keys: use it with
// WithAPIKey.
func WithSigning(keyID, secret string) Option {
	key, err := httpsig.ParseSecret(secret)
	if err == nil && keyID == "" {
		err = errors.New("httpsig: empty key id")
	}
	return func(c *config) {
		if err != nil {
			c.err = fmt.Errorf("medspa: WithSigning: %w", err)
			return
		}
		c.signer = &signer{keyID: keyID, key: key}
	}
}

// signer signs requests and verifies responses (RFC 9421); nil when signing is off.
type signer struct {
	keyID string
	key   []byte
}

// sign signs one attempt: every retry gets a fresh created time and nonce.
func (s *signer) sign(req *http.Request, body []byte) error {
	if s == nil {
		return nil
	}
	return httpsig.SignRequest(req, body, s.keyID, s.key, time.Now())
}

// verifyResponse checks the response signature when signing is on, reading the body into memory.
// Only a 401 or 403 without any signature passes unverified: the server refuses those before
// it checks the request's signature, so it cannot sign them; they become an *Error and carry no
// data.
func (st *call) verifyResponse(resp *http.Response) error {
	s := st.cfg.signer
	if s == nil {
		return nil
	}
	body, err := readAll(resp)
	if err != nil {
		return fmt.Errorf("medspa: reading response: %w", err)
	}
	unsigned := len(resp.Header.Values("Signature")) == 0 && len(resp.Header.Values("Signature-Input")) == 0
	if unsigned && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		return nil
	}
	if resp.Request == nil || resp.Request.URL == nil {
		return fmt.Errorf("%w: no request to bind the response to", ErrResponseSignature)
	}
	req := resp.Request
	uri, err := httpsig.TargetURI(req.URL)
	if err != nil {
		return err
	}
	if err := httpsig.VerifyResponse(resp.StatusCode, resp.Header, body, req.Method, uri, s.key); err != nil {
		return fmt.Errorf("%w (%s %s, status %d): %w", ErrResponseSignature, req.Method, req.URL.Path, resp.StatusCode, err)
	}
	return nil
}

// Plan is a MedSpa plan, for WithPlan.
type Plan string

// The plans of the API (docs/protocol.md §7).
const (
	PlanStarter      Plan = "starter"      // 60/min, burst 100
	PlanProfessional Plan = "professional" // 300/min, burst 500
	PlanEnterprise   Plan = "enterprise"   // 1,000/min, burst 2,000
)

var planLimits = map[Plan]struct {
	perMinute float64
	burst     int
}{
	PlanStarter:      {60, 100},
	PlanProfessional: {300, 500},
	PlanEnterprise:   {1000, 2000},
}

// WithPlan keeps the client within plan's rate limit before requests reach the wire (see
// WithRateLimit). An unknown plan makes New fail.
func WithPlan(p Plan) Option {
	l, ok := planLimits[p]
	if !ok {
		return func(c *config) { c.err = fmt.Errorf("medspa: WithPlan: unknown plan %q", p) }
	}
	return WithRateLimit(l.perMinute, l.burst)
}

// WithRateLimit keeps the client within perMinute requests a minute with bursts of burst (a
// token bucket, as the server's): calls wait (context-aware) instead of getting 429s. The
// client's bucket holds one token less than burst (when burst > 1): the server takes its token
// when a request arrives, not when it was sent, so a request that overtakes its predecessor on
// the way would otherwise find the server's bucket empty. The
// limiter also follows the server: after a 429 with Retry-After, or a response saying no
// tokens remain, further requests hold until a token is due. The limiter is shared by every
// call of the client.
func WithRateLimit(perMinute float64, burst int) Option {
	if perMinute <= 0 || burst < 1 {
		return func(c *config) {
			c.err = fmt.Errorf("medspa: WithRateLimit: perMinute must be > 0 and burst ≥ 1")
		}
	}
	l := &limiter{l: rate.NewLimiter(rate.Limit(perMinute/60), max(burst-1, 1))}
	return func(c *config) { c.limiter = l }
}

// limiter keeps a client under its plan's rate before requests reach the wire; nil when off.
type limiter struct {
	l     *rate.Limiter
	mu    sync.Mutex
	until time.Time // the server asked to hold requests until then
}

func (l *limiter) wait(ctx context.Context) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	until := l.until
	l.mu.Unlock()
	if d := time.Until(until); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
	return l.l.Wait(ctx)
}

// observe follows the server's view: a 429's Retry-After (up to DefaultRetryAfterMax) holds
// requests that long; a response reporting no tokens left holds them until one token is due at
// the configured rate (counted from when the request was sent, about when the server took its
// token), but never past the time the server says the bucket is full again.
func (l *limiter) observe(resp *http.Response, sent time.Time) {
	if l == nil {
		return
	}
	var hold time.Time
	if resp.StatusCode == http.StatusTooManyRequests {
		// A long Retry-After (a spent daily quota) is left to the caller as an *Error, rather
		// than silently stalling every later call for hours.
		if ra := retryAfter(resp); ra > 0 && ra <= DefaultRetryAfterMax {
			hold = time.Now().Add(ra)
		}
	} else if rem, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining")); err == nil && rem == 0 {
		hold = sent.Add(time.Duration(float64(time.Second) / float64(l.l.Limit())))
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
