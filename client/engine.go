package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Engine is the call path every area service shares: it does auth, idempotency keys, signing,
// rate limiting, retries, bounded reads, error decoding and paging once, for every call (see
// call.go). Programs do not use it directly: medspa.New builds one and hands it to each
// service, and medspa.Client.Do reaches it for calls the services do not cover. It is safe for
// concurrent use.
type Engine struct {
	cfg config
	hc  *http.Client // calls without WithHTTPClient of their own
	// The credential and rate-limit bucket of calls without options that change them.
	defaultCreds   credentials
	defaultLimiter *limiter

	mu       sync.Mutex
	creds    map[string]credentials // by credentialKey: one token cache per credential
	limiters map[string]*limiter    // by credentialKey and rate: one bucket per credential and plan
}

// maxShared bounds the credentials and limiters an Engine keeps for per-call options; past it,
// a call with a credential never seen gets its own (a program naming more credentials than
// this per call pays for it, rather than the process's memory).
const maxShared = 256

// NewEngine returns an Engine configured by opts on top of the defaults: MEDSPA_API_KEY,
// MEDSPA_BASE_URL (else DefaultBaseURL), DefaultMaxRetries, DefaultTimeouts and a TLS 1.3
// transport. It fails when an option is invalid, when there is no credential, when the base URL
// is invalid, holds /api/v1 or is plain http to a host other than loopback, and when
// WithIdempotencyKey (one call's option) is given to it. Use medspa.New.
func NewEngine(opts ...Option) (*Engine, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o.apply(&cfg)
	}
	if err := cfg.check(); err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, hc: httpClient(&cfg), creds: map[string]credentials{}, limiters: map[string]*limiter{}}
	e.defaultCreds, e.defaultLimiter = e.credentials(&e.cfg, e.hc), e.limiter(&e.cfg)
	return e, nil
}

// BaseURL returns the API base address the client sends to.
func (e *Engine) BaseURL() string { return e.cfg.baseURL }

// Do sends one logical API call to route and decodes the JSON answer into out (when out is
// non-nil). For GET and DELETE, params (a struct with `url` tags, or url.Values) become the
// query; for POST and PATCH they are the JSON body, and a nil pointer there is refused as
// ErrInvalidArgument, as is a value in params that fails its Validate (see Validator). A non-2xx
// answer returns an *Error; transport failures are returned wrapped (errors.As to *url.Error
// works).
//
// The *Response describes the last answer the call got, also when the call fails with an
// *Error; it is nil when no answer arrived (nothing was sent, or the transport failed) or the
// answer failed signature verification.
func (e *Engine) Do(ctx context.Context, method string, route Route, params, out any, opts ...RequestOption) (*Response, error) {
	resp, c, err := e.run(ctx, method, route, params, "application/json", opts)
	if err != nil {
		return c.response(), err
	}
	return c.response(), c.decode(resp, out)
}

// Stream sends a GET with the given Accept type and returns the body for the caller to read
// and close (e.g. a CSV report). The body is not bounded by WithMaxResponseBytes, except when
// signing is on (a signed answer is verified whole first). Errors and the *Response are as in
// Do.
func (e *Engine) Stream(ctx context.Context, route Route, params any, accept string, opts ...RequestOption) (io.ReadCloser, *Response, error) {
	resp, c, err := e.run(ctx, http.MethodGet, route, params, accept, opts)
	if err != nil {
		return nil, c.response(), err
	}
	return resp.Body, c.response(), nil
}

// Call is Do for a call that answers one T: it returns the decoded *T (nil on failure) and the
// *Response, as Do.
func Call[T any](ctx context.Context, e *Engine, method string, route Route, params any, opts ...RequestOption) (*T, *Response, error) {
	var v T
	resp, err := e.Do(ctx, method, route, params, &v, opts...)
	if err != nil {
		return nil, resp, err
	}
	return &v, resp, nil
}

// OptionalBody is the params of a POST whose body the protocol makes optional (voiding an
// invoice, rotating a webhook secret): p itself, or no params at all when p is nil, so that a nil
// p sends a bare POST (no body, no Content-Type) instead of being refused as nil params.
func OptionalBody[T any](p *T) any {
	if p == nil {
		return nil
	}
	return p
}

// Now returns the time by the client's clock (WithClock; time.Now by default).
func (e *Engine) Now() time.Time { return e.cfg.now() }

// credentials returns the token cache (or API key) of cfg's credential, shared by every call
// that names it.
func (e *Engine) credentials(cfg *config, hc *http.Client) credentials {
	key := credentialKey(cfg)
	e.mu.Lock()
	defer e.mu.Unlock()
	if c, ok := e.creds[key]; ok {
		return c
	}
	c := newCredentials(cfg, hc)
	if len(e.creds) < maxShared {
		e.creds[key] = c
	}
	return c
}

// limiter returns the bucket of cfg's credential and rate (nil without WithPlan or
// WithRateLimit), shared by every call that names them.
func (e *Engine) limiter(cfg *config) *limiter {
	if cfg.rate == nil {
		return nil
	}
	key := fmt.Sprintf("%s %g/min burst %d", credentialKey(cfg), cfg.rate.perMinute, cfg.rate.burst)
	e.mu.Lock()
	defer e.mu.Unlock()
	if l, ok := e.limiters[key]; ok {
		return l
	}
	l := newLimiter(*cfg.rate)
	if len(e.limiters) < maxShared {
		e.limiters[key] = l
	}
	return l
}

// configured returns the client's configuration with opts applied.
func (e *Engine) configured(opts []RequestOption) config {
	cfg := e.cfg
	for _, o := range opts {
		o(&cfg)
	}
	return cfg
}
