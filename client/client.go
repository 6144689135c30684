package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/hashicorp/go-retryablehttp"
)

// Client is the engine every area service shares: one call path doing auth, idempotency keys,
// signing, rate limiting, retries, error decoding and paging. It is safe for concurrent use;
// create one and reuse it.
type Client struct {
	cfg   config
	creds credentials // built once so token caching and refreshes are shared by every call
	hc    *http.Client
	rc    *retryablehttp.Client // the retry engine for calls without options
}

// New returns a Client configured by opts on top of the defaults: MEDSPA_API_KEY,
// MEDSPA_BASE_URL (else DefaultBaseURL), DefaultMaxRetries and a TLS 1.3 transport.
// It fails when the base URL is invalid, or plain http to a host other than loopback.
func New(opts ...Option) (*Client, error) {
	cfg := config{
		baseURL:       strings.TrimRight(os.Getenv("MEDSPA_BASE_URL"), "/"),
		apiKey:        os.Getenv("MEDSPA_API_KEY"),
		maxRetries:    DefaultMaxRetries,
		retryWaitMin:  DefaultRetryWaitMin,
		retryWaitMax:  DefaultRetryWaitMax,
		retryAfterMax: DefaultRetryAfterMax,
	}
	if cfg.baseURL == "" {
		cfg.baseURL = DefaultBaseURL
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.err != nil {
		return nil, cfg.err
	}
	if err := checkBaseURL(cfg.baseURL); err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, creds: newCredentials(&cfg)}
	c.hc = wrapHTTPClient(cfg.httpClient)
	c.rc = newRetryClient(&c.cfg, c.hc)
	return c, nil
}

// checkBaseURL refuses what would leak credentials or PHI: non-http(s) schemes and plain http
// to anything but a loopback host.
func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("medspa: invalid base URL %q", raw)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
		return fmt.Errorf("medspa: refusing plain http to %s: only loopback hosts may use http", u.Hostname())
	default:
		return fmt.Errorf("medspa: unsupported base URL scheme %q", u.Scheme)
	}
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// defaultTransport is http.DefaultTransport's settings with TLS 1.3 as the minimum.
var defaultTransport = func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS13}
	t.MaxIdleConnsPerHost = 64
	return t
}()

// wrapHTTPClient returns a copy of hc whose transport runs the per-attempt stages (auth,
// rate limit, signing, logging) before hc's own transport.
func wrapHTTPClient(hc *http.Client) *http.Client {
	var w http.Client
	if hc != nil {
		w = *hc
	}
	base := w.Transport
	if base == nil {
		base = defaultTransport
	}
	w.Transport = &attemptTransport{base: base}
	return &w
}

// BaseURL returns the API base address the client sends to.
func (c *Client) BaseURL() string { return c.cfg.baseURL }

// userAgent is fixed per process; the suffix is per client or call.
var userAgent = "medspa-go/" + Version + " go/" + strings.TrimPrefix(runtime.Version(), "go")

// Response is the metadata of a call's final HTTP response (see WithResponseInto).
type Response struct {
	// StatusCode is the HTTP status of the final attempt.
	StatusCode int
	// Header is the response header of the final attempt.
	Header http.Header
	// RequestID is the server's X-Request-Id.
	RequestID string
	// Attempts counts the HTTP attempts the call made (1 when it was not retried).
	Attempts int
	// RateLimit is the rate-limit state the server reported.
	RateLimit RateLimit
	// Replayed reports an idempotent replay (Idempotent-Replayed: true).
	Replayed bool
}

// Path joins /api/v1 and the escaped segments: Path("patients", id) → "/api/v1/patients/<id>".
func Path(segments ...string) string {
	var b strings.Builder
	b.WriteString("/api/v1")
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return b.String()
}

// Do sends one logical API call and decodes the JSON answer into out (when out is non-nil).
// For GET and DELETE, params (a struct with `url` tags, or url.Values) become the query; for
// POST and PATCH they are the JSON body. A non-2xx answer returns an *Error; transport failures
// are returned wrapped (errors.As to *url.Error works).
func (c *Client) Do(ctx context.Context, method, path string, params, out any, opts ...Option) error {
	resp, err := c.send(ctx, method, path, params, "application/json", opts)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("medspa: reading response: %w", err)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("medspa: decoding %s %s response: %w", method, path, err)
	}
	return nil
}

// Stream sends a GET with the given Accept type and returns the body for the caller to read
// and close (e.g. a CSV report). Errors are decoded as in Do.
func (c *Client) Stream(ctx context.Context, path string, params any, accept string, opts ...Option) (io.ReadCloser, error) {
	resp, err := c.send(ctx, http.MethodGet, path, params, accept, opts)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// call is one logical call's state, shared by its attempts through the request context.
type call struct {
	cfg       *config
	creds     credentials
	body      []byte
	attempts  int
	retrySafe bool // resending cannot apply the call twice (method, or an idempotency key)
}

// newRetryClient is the retry engine for calls configured by cfg: the Client builds one for its
// own configuration, and a call with options builds its own.
func newRetryClient(cfg *config, hc *http.Client) *retryablehttp.Client {
	return &retryablehttp.Client{
		HTTPClient:   hc,
		RetryMax:     cfg.maxRetries,
		RetryWaitMin: cfg.retryWaitMin,
		RetryWaitMax: cfg.retryWaitMax,
		CheckRetry:   checkRetry(cfg),
		Backoff:      backoff(cfg),
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
	}
}

type callKey struct{}

// send runs the call path and returns a 2xx response with its body unread (already verified
// when signing is on), or an error.
func (c *Client) send(ctx context.Context, method, path string, params any, accept string, opts []Option) (*http.Response, error) {
	cfg := c.cfg
	for _, o := range opts {
		o(&cfg)
	}
	creds := c.creds
	hc := c.hc
	if len(opts) > 0 {
		if cfg.err != nil {
			return nil, cfg.err
		}
		if cfg.apiKey != c.cfg.apiKey || cfg.tokenSource != c.cfg.tokenSource || cfg.oauth != c.cfg.oauth {
			creds = newCredentials(&cfg)
		}
		if cfg.httpClient != c.cfg.httpClient {
			hc = wrapHTTPClient(cfg.httpClient)
		}
		if cfg.baseURL != c.cfg.baseURL {
			if err := checkBaseURL(cfg.baseURL); err != nil {
				return nil, err
			}
		}
	}

	target := cfg.baseURL + path
	var body []byte
	switch method {
	case http.MethodGet, http.MethodDelete, http.MethodHead:
		q, err := EncodeQuery(params)
		if err != nil {
			return nil, err
		}
		if len(q) > 0 {
			target += "?" + q.Encode()
		}
	default:
		if params != nil {
			b, err := json.Marshal(params)
			if err != nil {
				return nil, fmt.Errorf("medspa: encoding %s %s body: %w", method, path, err)
			}
			body = b
		}
	}

	var idemKey string
	if method == http.MethodPost {
		if cfg.idempotencyKey != nil {
			idemKey = *cfg.idempotencyKey
		} else {
			idemKey = uuid.NewString()
		}
	}
	st := &call{cfg: &cfg, creds: creds, body: body, retrySafe: retrySafe(method, idemKey != "")}
	ctx = context.WithValue(ctx, callKey{}, st)
	rc := c.rc
	if len(opts) > 0 {
		rc = newRetryClient(&cfg, hc)
	}

	for refreshed := false; ; refreshed = true {
		var rawBody any // a nil []byte would still get a body reader per attempt
		if body != nil {
			rawBody = body
		}
		req, err := retryablehttp.NewRequestWithContext(ctx, method, target, rawBody)
		if err != nil {
			return nil, fmt.Errorf("medspa: building request: %w", err)
		}
		for k, v := range cfg.header {
			req.Header[k] = v
		}
		req.Header.Set("Accept", accept)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		ua := userAgent
		if cfg.userAgentSuffix != "" {
			ua += " " + cfg.userAgentSuffix
		}
		req.Header.Set("User-Agent", ua)
		if idemKey != "" {
			req.Header.Set("Idempotency-Key", idemKey)
		}

		resp, err := rc.Do(req)
		if err != nil {
			if resp != nil {
				resp.Body.Close()
			}
			if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
				return nil, fmt.Errorf("medspa: %s %s: %w", method, path, ctxErr)
			}
			return nil, fmt.Errorf("medspa: %s %s: %w", method, path, err)
		}
		if err := st.verifyResponse(resp); err != nil {
			resp.Body.Close()
			return nil, err
		}
		st.record(resp)
		if resp.StatusCode < 300 {
			return resp, nil
		}
		errBody, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		apiErr := decodeError(resp, errBody)
		if apiErr.Code == "token_expired" && !refreshed && creds.refresh(ctx, resp.Request) {
			continue // the stale token was dropped: resend once with a fresh one
		}
		return nil, apiErr
	}
}

// record fills the caller's WithResponseInto target.
func (st *call) record(resp *http.Response) {
	if st.cfg.response == nil {
		return
	}
	*st.cfg.response = &Response{
		StatusCode: resp.StatusCode,
		Header:     resp.Header,
		RequestID:  resp.Header.Get("X-Request-Id"),
		Attempts:   st.attempts,
		RateLimit:  parseRateLimit(resp.Header),
		Replayed:   resp.Header.Get("Idempotent-Replayed") == "true",
	}
}

// attemptTransport runs the stages that must happen on every attempt: credentials (a token may
// have been refreshed), client-side rate limiting, signing (fresh created/nonce) and logging.
type attemptTransport struct{ base http.RoundTripper }

func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	st, _ := req.Context().Value(callKey{}).(*call)
	if st == nil {
		return t.base.RoundTrip(req)
	}
	// Only the header changes below: a shallow copy with its own header keeps the caller's
	// request untouched without Clone's deep copy of URL, trailers and the rest.
	r2 := *req
	r2.Header = req.Header.Clone()
	req = &r2
	st.attempts++
	authz, err := st.creds.authorization(req.Context())
	if err != nil {
		return nil, err
	}
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	if err := st.cfg.limiter.wait(req.Context()); err != nil {
		return nil, err
	}
	if err := st.cfg.signer.sign(req, st.body); err != nil {
		return nil, err
	}
	start := time.Now()
	resp, err := t.base.RoundTrip(req)
	if resp != nil {
		st.cfg.limiter.observe(resp, start)
	}
	st.log(req, resp, err, time.Since(start))
	return resp, err
}

// log writes metadata only: never bodies, query strings (they may hold PHI filters) or credentials.
func (st *call) log(req *http.Request, resp *http.Response, err error, d time.Duration) {
	l := st.cfg.logger
	if l == nil || !l.Enabled(req.Context(), slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", req.Method),
		slog.String("path", req.URL.Path),
		slog.Int("attempt", st.attempts),
		slog.Duration("duration", d),
	}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode), slog.String("request_id", resp.Header.Get("X-Request-Id")))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", errorClass(err)))
	}
	l.LogAttrs(req.Context(), slog.LevelDebug, "medspa request", attrs...)
}

// errorClass names a transport failure without echoing URLs (whose query may carry PHI).
func errorClass(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// readAll reads a response body fully and replaces it with an in-memory copy, so it can be
// verified and still be read by the caller.
func readAll(resp *http.Response) ([]byte, error) {
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return b, err
}

// Call is Do for a call that answers one T: it returns the decoded *T, or the error.
func Call[T any](ctx context.Context, c *Client, method, path string, params any, opts ...Option) (*T, error) {
	var v T
	if err := c.Do(ctx, method, path, params, &v, opts...); err != nil {
		return nil, err
	}
	return &v, nil
}
