package client

import (
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/medspa/medspa-go/internal/safetext"
)

// Option configures a client: medspa.New takes Options. Every RequestOption is one too (given
// to New it sets the client's default for every call); the options that only New accepts —
// WithBaseURL, WithHTTPClient, WithTimeouts, WithClock, which describe the server and the
// transport rather than a call — are Options and not RequestOptions, so giving one to a call
// does not compile.
type Option interface {
	apply(*config)
}

// RequestOption configures a single call (given to a service method or medspa.Client.Do) and
// overrides the client's setting for that call only. It is also an Option: given to
// medspa.New, it sets the client's default.
type RequestOption func(*config)

func (o RequestOption) apply(c *config) { o(c) }

// clientOption is an Option that only New accepts. An option written as
// `func WithX(…) Option { return func(c *config) {…} }` becomes one by wrapping its literal:
// `return clientOption(func(c *config) {…})` (or, if it is also valid per call, by returning
// RequestOption instead of Option).
type clientOption func(*config)

func (o clientOption) apply(c *config) { o(c) }

// config is the effective configuration of one call: the client's settings with the call's
// options applied on top of a copy.
type config struct {
	baseURL     string
	apiKey      string
	tokenSource oauth2.TokenSource
	// oauth builds the token source of WithClientCredentials / WithOAuth2 once the base URL
	// and HTTP client are known.
	oauth            *oauthSetup
	httpClient       *http.Client
	timeouts         Timeouts
	maxRetries       int
	retryWaitMin     time.Duration
	retryWaitMax     time.Duration
	retryAfterMax    time.Duration
	maxResponseBytes int64
	maxPages         int
	logger           *slog.Logger
	userAgentSuffix  string
	header           http.Header
	idempotencyKey   *string
	tokenHook        func(TokenRefresh)
	signer           *signer
	rate             *rateSpec
	// now is the client's clock (WithClock): request signatures, the age of response signatures
	// and token lifetimes are judged by it. Waits (retries, the rate limiter) use real time.
	now func() time.Time
	// rootCAs are the roots the default transport trusts (WithRootCAs; nil: the system's).
	rootCAs *x509.CertPool
	// plainHTTPHosts are the non-loopback hosts plain http may go to (WithInsecurePlainHTTPHost).
	plainHTTPHosts []string
	// err is an invalid option's error, returned by New (or by the call).
	err error
}

// Defaults of the client's settings.
const (
	// DefaultBaseURL is used when neither WithBaseURL nor MEDSPA_BASE_URL is set.
	DefaultBaseURL       = "https://api.medspa.dev"
	DefaultMaxRetries    = 2
	DefaultRetryWaitMin  = 500 * time.Millisecond
	DefaultRetryWaitMax  = 8 * time.Second
	DefaultRetryAfterMax = 60 * time.Second
	// DefaultMaxResponseBytes bounds a response body read into memory (WithMaxResponseBytes).
	DefaultMaxResponseBytes = 32 << 20
	// DefaultMaxPages bounds the pages one All walks (WithMaxPages).
	DefaultMaxPages = 100_000
)

// defaultConfig is the configuration before any option: the environment's key and base URL and
// the defaults above.
func defaultConfig() config {
	cfg := config{
		baseURL:          strings.TrimRight(os.Getenv("MEDSPA_BASE_URL"), "/"),
		apiKey:           os.Getenv("MEDSPA_API_KEY"),
		maxRetries:       DefaultMaxRetries,
		retryWaitMin:     DefaultRetryWaitMin,
		retryWaitMax:     DefaultRetryWaitMax,
		retryAfterMax:    DefaultRetryAfterMax,
		maxResponseBytes: DefaultMaxResponseBytes,
		maxPages:         DefaultMaxPages,
		now:              time.Now,
	}
	if cfg.baseURL == "" {
		cfg.baseURL = DefaultBaseURL
	}
	return cfg
}

// WithAPIKey authenticates with an API key (Authorization: Bearer <key>). The default is the
// MEDSPA_API_KEY environment variable.
func WithAPIKey(key string) RequestOption {
	return func(c *config) { c.apiKey = key; c.tokenSource = nil; c.oauth = nil }
}

// WithTokenSource authenticates with OAuth 2.0 access tokens from ts (any golang.org/x/oauth2
// source). Tokens are cached by the client (see WithClientCredentials for how long); when the
// server still answers 401 token_expired, the call renews the token once and is resent.
func WithTokenSource(ts oauth2.TokenSource) RequestOption {
	return func(c *config) { c.tokenSource = ts; c.apiKey = ""; c.oauth = nil }
}

// WithBaseURL sets the API's base address, the host only, e.g. "https://api.medspa.dev" or
// "http://127.0.0.1:8080": the SDK adds /api/v1 itself, so a base URL holding /api/v1 is
// refused. The default is the MEDSPA_BASE_URL environment variable, else DefaultBaseURL. Plain
// http is refused except for loopback hosts. It configures the client (New only).
func WithBaseURL(u string) Option {
	return clientOption(func(c *config) { c.baseURL = strings.TrimRight(u, "/") })
}

// WithHTTPClient sends requests through hc: its Transport, Timeout and Jar are used as they are,
// and the SDK's redirect rules (see RedirectError) run before its CheckRedirect. WithTimeouts
// does not apply to it. The default client requires TLS 1.3 and has the DefaultTimeouts. It
// configures the client (New only).
func WithHTTPClient(hc *http.Client) Option {
	return clientOption(func(c *config) { c.httpClient = hc })
}

// WithMaxRetries sets how many times a failed call is retried (0 disables retries).
func WithMaxRetries(n int) RequestOption {
	return func(c *config) { c.maxRetries = max(n, 0) }
}

// WithRetryWait sets the bounds of the exponential backoff between retries (full jitter).
func WithRetryWait(minWait, maxWait time.Duration) RequestOption {
	return func(c *config) { c.retryWaitMin, c.retryWaitMax = minWait, max(minWait, maxWait) }
}

// WithMaxRetryAfter caps how long a server's Retry-After is honoured; a longer Retry-After
// ends the retries and returns the *Error with RetryAfter set, its message giving the wait and
// the cap.
func WithMaxRetryAfter(d time.Duration) RequestOption {
	return func(c *config) { c.retryAfterMax = d }
}

// WithMaxResponseBytes bounds how much of a response body the client reads into memory
// (default DefaultMaxResponseBytes); a larger answer fails with ErrResponseTooLarge after
// reading at most n+1 bytes. A report's CSV stream is not read into memory and is not bounded
// (unless WithSigning is on: a signed answer is verified whole before it is returned).
// n <= 0 keeps the default.
func WithMaxResponseBytes(n int64) RequestOption {
	return func(c *config) {
		if n > 0 {
			c.maxResponseBytes = n
		}
	}
}

// WithMaxPages bounds how many pages one All iteration fetches (default DefaultMaxPages): past
// it, the iteration ends with ErrPagination, so a server that never reaches its last page cannot
// keep a loop running. n <= 0 keeps the default.
func WithMaxPages(n int) RequestOption {
	return func(c *config) {
		if n > 0 {
			c.maxPages = n
		}
	}
}

// WithLogger logs the client's work with metadata only; bodies, query strings, header values
// and credentials are never logged:
//   - at Debug, one record per attempt: method, path, status, request id, attempt, duration;
//   - at Info, one record before every wait longer than 1 s ("medspa wait": method, route
//     pattern such as /api/v1/patients/{id}, wait, reason — retry_after, backoff or
//     rate_limit — and attempt), so a long Retry-After never stalls a program silently;
//   - at Info, one record per OAuth token fetch ("medspa token refresh", see TokenRefresh).
func WithLogger(l *slog.Logger) RequestOption {
	return func(c *config) { c.logger = l }
}

// WithUserAgent appends s to the User-Agent header, e.g. "myapp/1.2".
func WithUserAgent(s string) RequestOption {
	return func(c *config) { c.userAgentSuffix = s }
}

// WithHeader sets an extra request header.
func WithHeader(key, value string) RequestOption {
	return func(c *config) {
		h := c.header.Clone()
		if h == nil {
			h = http.Header{}
		}
		h.Set(key, value)
		c.header = h
	}
}

// WithIdempotencyKey sets the Idempotency-Key of a POST call instead of a generated one.
// An empty key sends none; such a POST is then never retried after a possible commit. It names
// one call's key: given to New, it makes New fail.
func WithIdempotencyKey(key string) RequestOption {
	return func(c *config) { c.idempotencyKey = &key }
}

// WithClock sets the client's clock (default time.Now): the created time of request signatures,
// the age allowed to response signatures (300 s either way) and the lifetime of OAuth tokens are
// judged by now, and webhooks receivers built from the client (Client.Webhooks.NewHandler,
// Verify) check delivery timestamps against it. Point it at a server's clock that is not the
// wall clock: mockserver's NewTest and NewClient set it to the mock's clock of the client's
// account, so a test that moves that clock keeps signing and refreshing tokens right. Waits
// (retry backoff, Retry-After, the rate limiter) always run on real time. A nil now is ignored.
// It configures the client (New only).
func WithClock(now func() time.Time) Option {
	return clientOption(func(c *config) {
		if now != nil {
			c.now = now
		}
	})
}

// WithRootCAs makes the default transport trust the CA certificates in pem (PEM, one or more)
// besides the system's roots: a mock server's exported CA (medspa-mock -tls -tls-ca-out FILE),
// or a test network's own CA. New fails when pem holds no certificate. It configures the
// client's transport, so it is a client option only (a call does not compile with it); New
// refuses it beside WithHTTPClient, whose transport is the caller's. Given more than once (or
// with WithCAFile), every CA given is trusted.
func WithRootCAs(pem []byte) Option {
	return clientOption(func(c *config) {
		pool := c.rootCAs // a second WithRootCAs or WithCAFile adds to the first
		if pool == nil {
			var err error
			if pool, err = x509.SystemCertPool(); err != nil || pool == nil {
				pool = x509.NewCertPool()
			}
		} else {
			pool = pool.Clone()
		}
		if !pool.AppendCertsFromPEM(pem) {
			c.err = errors.New("medspa: WithRootCAs: no PEM certificate found")
			return
		}
		c.rootCAs = pool
	})
}

// WithCAFile is WithRootCAs with the PEM read from the file at path. New fails when the file
// cannot be read or holds no certificate.
func WithCAFile(path string) Option {
	return clientOption(func(c *config) {
		b, err := os.ReadFile(path)
		if err != nil {
			c.err = fmt.Errorf("medspa: WithCAFile: %w", err)
			return
		}
		WithRootCAs(b).apply(c)
	})
}

// WithInsecurePlainHTTPHost allows plain http (no TLS: the API key and PHI travel in clear) to
// the named hosts besides loopback, for test networks only: a mock server reached by its
// container name, such as WithInsecurePlainHTTPHost("medspa-mock") with base URL
// "http://medspa-mock:8080". Names match a URL's host exactly (case-insensitive, no port).
// Without it, plain http goes to loopback hosts only; prefer https with WithRootCAs.
func WithInsecurePlainHTTPHost(hosts ...string) Option {
	return clientOption(func(c *config) {
		for _, h := range hosts {
			if h == "" || (net.ParseIP(h) == nil && strings.ContainsAny(h, ":/[]@?# ")) {
				c.err = fmt.Errorf("medspa: WithInsecurePlainHTTPHost: %q: give the host name or IP address only (no scheme, port or path)", safetext.Line(h))
				return
			}
			c.plainHTTPHosts = append(c.plainHTTPHosts, strings.ToLower(strings.TrimSuffix(h, ".")))
		}
	})
}
