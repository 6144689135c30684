package client

// The call path. Every request of every area goes through Engine.run, in this order; each
// step is one function below, and each cross-cutting job it calls on lives in the file named:
//
//	build       newCall   config (client + call options), params checked, URL and query, JSON body,
//	                      Idempotency-Key
//	authorize ┐           Authorization from the credential's token cache       credentials.go
//	limit     │ attempt   wait for the credential's rate-limit bucket            limiter.go
//	sign      │ (each     RFC 9421 signature: fresh created and nonce            signing.go
//	send      ┘ attempt)  http.Client: timeouts, TLS 1.3, redirect rules         transport.go
//	decide      decide    retry after a backoff; else verify the answer's signature (body read
//	                      whole, bounded), then done, resend with a new token, or fail
//	                                                                  retry.go, signing.go, body.go
//	decode      decode    JSON into the result (bounded), or the problem: *Error body.go, errors.go
//
// Every call hands back the metadata of the last answer it got (*Response: status, request id,
// rate limit, attempts, replay), with its result or its error. List and All (page.go) are calls
// of this path; nothing else sends API requests.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"runtime"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/medspa/medspa-go/internal/safetext"
)

// userAgent is fixed per process; WithUserAgent appends to it.
var userAgent = "medspa-go/" + Version + " go/" + strings.TrimPrefix(runtime.Version(), "go")

// call is one logical API call: what each of its attempts sends, and what they met.
type call struct {
	cfg      config
	method   string
	path     string // for errors and logs: never the query
	route    Route  // the path, whose Pattern the wait log shows
	url      string
	body     []byte // the JSON body; nil sends none
	accept   string
	idemKey  string // POST: one per call, the same on every attempt
	hc       *http.Client
	creds    credentials
	limiter  *limiter
	attempts int       // HTTP attempts made
	start    time.Time // when the first attempt began, for the errors that say how long the call took
	retries  int       // of cfg.maxRetries
	renewed  bool      // the token was renewed once already
	waitWhy  string    // why the next pause: retry_after or backoff
	authz    string    // the Authorization value of the last attempt
	respBody []byte    // the last answer's body, when verify read it
	resp     *Response // the metadata of the last answer, for the caller
}

// run runs the call path and returns the final 2xx response, its body unread (or in memory
// when signing read it), or the error that ended the call. The call (nil when it could not be
// built) holds the metadata of the last answer.
func (e *Engine) run(ctx context.Context, method string, route Route, params any, accept string, opts []RequestOption) (*http.Response, *call, error) {
	c, err := e.newCall(method, route, params, accept, opts)
	if err != nil {
		return nil, nil, err
	}
	c.start = time.Now()
	for {
		resp, err := c.attempt(ctx)
		again, wait, err := c.decide(ctx, resp, err)
		if !again {
			if err != nil {
				return nil, c, err
			}
			return resp, c, nil
		}
		if err := c.pause(ctx, wait, err); err != nil {
			return nil, c, err
		}
	}
}

// newCall builds the call: its configuration, URL, body and idempotency key. Nothing is sent
// yet; arguments that cannot be sent as they are end the call here with ErrInvalidArgument.
func (e *Engine) newCall(method string, route Route, params any, accept string, opts []RequestOption) (*call, error) {
	if route.err != nil {
		return nil, route.err
	}
	if route.path == "" {
		return nil, fmt.Errorf("%w: no path (use Path)", ErrInvalidArgument)
	}
	if err := checkParams(params); err != nil {
		return nil, err
	}
	c := &call{cfg: e.cfg, method: method, path: route.path, route: route, accept: accept, hc: e.hc,
		creds: e.defaultCreds, limiter: e.defaultLimiter}
	if len(opts) > 0 {
		if err := c.configure(e, opts); err != nil {
			return nil, err
		}
	}
	c.url = c.cfg.baseURL + route.path
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodDelete:
		q, err := EncodeQuery(params)
		if err != nil {
			return nil, err
		}
		if len(q) > 0 {
			c.url += "?" + q.Encode()
		}
	default:
		if isNilPointer(params) {
			return nil, fmt.Errorf("%w: %s %s needs params, got nil", ErrInvalidArgument, method, route.path)
		}
		if params != nil {
			b, err := json.Marshal(params)
			if err != nil {
				return nil, &callError{msg: "medspa: encoding the body of " + method + " " + route.path + ": " + safetext.JSONError(err), err: err}
			}
			c.body = b
		}
	}
	if method == http.MethodPost {
		if c.cfg.idempotencyKey != nil {
			c.idemKey = *c.cfg.idempotencyKey
		} else {
			c.idemKey = uuid.NewString()
		}
	}
	return c, nil
}

// configure applies a call's options on top of the client's configuration, and finds the
// credential and rate-limit bucket they name.
func (c *call) configure(e *Engine, opts []RequestOption) error {
	for _, o := range opts {
		o(&c.cfg)
	}
	if c.cfg.err != nil {
		return c.cfg.err
	}
	c.creds, c.limiter = e.credentials(&c.cfg, c.hc), e.limiter(&c.cfg)
	return nil
}

// attempt sends the call once: authorize → limit → sign → send. Every attempt runs every step
// again: the token may have been renewed, the limiter decides when this one leaves, and a
// signature is good for one send only.
func (c *call) attempt(ctx context.Context) (*http.Response, error) {
	c.attempts++
	c.respBody = nil
	req, err := c.request(ctx)
	if err != nil {
		return nil, err
	}
	if c.authz, err = c.creds.authorization(ctx, &c.cfg); err != nil {
		return nil, err
	}
	if c.authz != "" {
		req.Header.Set("Authorization", c.authz)
	}
	if err := c.limiter.wait(ctx, func(d time.Duration) { c.logWait(ctx, d, "rate_limit") }); err != nil {
		return nil, err
	}
	if err := c.cfg.signer.sign(req, c.body, c.cfg.now()); err != nil {
		return nil, err
	}
	start := time.Now()
	resp, err := c.hc.Do(req)
	c.limiter.observe(resp, start)
	c.log(ctx, req, resp, err, time.Since(start))
	return resp, err
}

// request builds one attempt's request: URL, a fresh body reader, the call's headers.
func (c *call) request(ctx context.Context) (*http.Request, error) {
	var body io.Reader
	if c.body != nil {
		body = bytes.NewReader(c.body)
	}
	req, err := http.NewRequestWithContext(ctx, c.method, c.url, body)
	if err != nil {
		return nil, err
	}
	for k, v := range c.cfg.header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", c.accept)
	if c.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	ua := userAgent
	if c.cfg.userAgentSuffix != "" {
		ua += " " + c.cfg.userAgentSuffix
	}
	req.Header.Set("User-Agent", ua)
	if c.idemKey != "" {
		req.Header.Set("Idempotency-Key", c.idemKey)
	}
	return req, nil
}

// verify checks the response's signature when signing is on. It reads the body whole first
// (bounded by WithMaxResponseBytes), for the digest, and leaves it in memory for decode.
func (c *call) verify(resp *http.Response) error {
	if c.cfg.signer == nil {
		return nil
	}
	body, err := readBody(resp.Body, resp.ContentLength, c.cfg.maxResponseBytes)
	resp.Body.Close()
	if err != nil {
		return err
	}
	resp.Body, c.respBody = io.NopCloser(bytes.NewReader(body)), body
	return c.cfg.signer.verify(resp, body, c.cfg.now())
}

// decide says what follows an attempt: again=false ends the call, with err nil for a 2xx answer
// (resp is the result) or the error that ends it; again=true sends another attempt after wait,
// err being the failure retried. The rules (retry.go has the details):
//   - a transport failure is retried when resending is safe and a retry can fix it;
//   - 429 is retried for every method, 502–504 when resending is safe, both while Retry-After
//     is within the cap; such an answer is not verified, since nothing of it is used but its wait;
//   - any other answer is verified (signing.go) before it counts: a 2xx is the result, a
//     401 token_expired is resent at once with a renewed token (once per call), the rest fail
//     as *Error;
//   - nothing is retried once ctx is done or the retries are spent.
func (c *call) decide(ctx context.Context, resp *http.Response, err error) (again bool, wait time.Duration, _ error) {
	if err != nil {
		if !c.retryable(ctx, err) {
			return false, 0, c.failAfter(err)
		}
		c.retries++
		c.waitWhy = "backoff"
		return true, c.backoff(0), err
	}
	c.record(resp)
	if c.retryableAnswer(ctx, resp) {
		apiErr := c.problem(resp)
		c.retries++
		c.waitWhy = "backoff"
		if apiErr.RetryAfter > 0 {
			c.waitWhy = "retry_after"
		}
		return true, c.backoff(apiErr.RetryAfter), apiErr
	}
	if err := c.verify(resp); err != nil {
		resp.Body.Close()
		c.resp = nil // an answer that failed verification tells the caller nothing
		return false, 0, c.fail(err)
	}
	if resp.StatusCode < 300 {
		return false, 0, nil
	}
	apiErr := c.problem(resp)
	if apiErr.Code == "token_expired" && !c.renewed && c.creds.renew(c.authz) {
		c.renewed = true
		return true, 0, apiErr
	}
	c.explain(apiErr)
	return false, 0, apiErr
}

// decode reads a 2xx answer, bounded by WithMaxResponseBytes, and decodes its JSON into out.
func (c *call) decode(resp *http.Response, out any) error {
	defer resp.Body.Close()
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	body := c.respBody
	if body == nil {
		var err error
		if body, err = readBody(resp.Body, resp.ContentLength, c.cfg.maxResponseBytes); err != nil {
			return c.fail(err)
		}
	}
	if err := json.Unmarshal(body, out); err != nil {
		return &callError{msg: "medspa: decoding the answer to " + c.method + " " + c.path + ": " + safetext.JSONError(err), err: err}
	}
	return nil
}

// problem reads a non-2xx answer's body (a problem document is small: at most maxErrorBody is
// read) and decodes it into an *Error.
func (c *call) problem(resp *http.Response) *Error {
	body := c.respBody
	if body == nil {
		body, _ = io.ReadAll(io.LimitReader(resp.Body, min(maxErrorBody, c.cfg.maxResponseBytes)))
	}
	resp.Body.Close()
	return decodeError(resp, body)
}

// fail wraps what ended the call with its method and path, in a message safe to log.
func (c *call) fail(err error) error {
	return &callError{msg: "medspa: " + c.method + " " + c.path + ": " + describeTransport(err), err: err}
}

// failAfter is fail for a call that got no answer: the message adds how many attempts were
// made and how long the call took, so a retried network failure never looks like a single one.
func (c *call) failAfter(err error) error {
	return &callError{msg: "medspa: " + c.method + " " + c.path + ": " + describeTransport(err) + " (" + c.spent() + ")", err: err}
}

// spent says how many attempts the call made and how long it has taken.
func (c *call) spent() string {
	unit := "attempts"
	if c.attempts == 1 {
		unit = "attempt"
	}
	return fmt.Sprintf("%d %s in %v", c.attempts, unit, time.Since(c.start).Round(time.Millisecond))
}

// record keeps the metadata of an answer for the caller: the last one is the call's.
func (c *call) record(resp *http.Response) {
	c.resp = &Response{
		StatusCode: resp.StatusCode,
		Header:     resp.Header,
		RequestID:  resp.Header.Get("X-Request-Id"), // canonical keys: Get allocates nothing
		Attempts:   c.attempts,
		RateLimit:  parseRateLimit(resp.Header),
		Replayed:   resp.Header.Get("Idempotent-Replayed") == "true",
	}
}

// response returns the metadata of the call's last answer; nil when the call was never built
// or got no answer.
func (c *call) response() *Response {
	if c == nil {
		return nil
	}
	return c.resp
}

// waitLogAbove is the shortest wait that is logged before it starts: a program should never
// stall for longer without a trace of why.
const waitLogAbove = time.Second

// logWait writes one Info record before a wait longer than waitLogAbove: metadata only (the
// route's pattern, never its ids or query).
func (c *call) logWait(ctx context.Context, d time.Duration, reason string) {
	l := c.cfg.logger
	if d <= waitLogAbove || l == nil || !l.Enabled(ctx, slog.LevelInfo) {
		return
	}
	l.LogAttrs(ctx, slog.LevelInfo, "medspa wait", slog.String("method", c.method), slog.String("route", c.route.Pattern()),
		slog.Duration("wait", d), slog.String("reason", reason), slog.Int("attempt", c.attempts))
}

// log writes metadata only: the route's pattern, never its ids, query strings (they may hold
// PHI filters), bodies or credentials.
func (c *call) log(ctx context.Context, req *http.Request, resp *http.Response, err error, d time.Duration) {
	l := c.cfg.logger
	if l == nil || !l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("route", c.route.Pattern()),
		slog.Int("attempt", c.attempts),
		slog.Duration("duration", d),
	}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode), slog.String("request_id", resp.Header.Get("X-Request-Id")))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", describeTransport(err)))
	}
	l.LogAttrs(ctx, slog.LevelDebug, "medspa request", attrs...)
}

// isNilPointer reports a nil pointer in an interface: params a caller forgot.
func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}
