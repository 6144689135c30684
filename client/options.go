package client

import (
	"log/slog"
	"net/http"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// Option configures a Client (given to New) or a single call (given to a service method).
// A per-call option overrides the client's setting for that call only.
type Option func(*config)

// config is the effective configuration of one call: the client's settings with the call's
// options applied on top of a copy.
type config struct {
	baseURL         string
	apiKey          string
	tokenSource     oauth2.TokenSource
	httpClient      *http.Client
	maxRetries      int
	retryWaitMin    time.Duration
	retryWaitMax    time.Duration
	retryAfterMax   time.Duration
	logger          *slog.Logger
	userAgentSuffix string
	header          http.Header
	idempotencyKey  *string
	response        **Response
	signer          *signer
	limiter         *limiter
	// oauth builds the token source of WithClientCredentials / WithOAuth2 once the base URL
	// and HTTP client are known.
	oauth *oauthSetup
	// err is an invalid option's error, returned by New (or by the call).
	err error
}

// Defaults for the retry policy.
const (
	DefaultMaxRetries    = 2
	DefaultRetryWaitMin  = 500 * time.Millisecond
	DefaultRetryWaitMax  = 8 * time.Second
	DefaultRetryAfterMax = 60 * time.Second
	// DefaultBaseURL is used when neither WithBaseURL nor MEDSPA_BASE_URL is set.
	DefaultBaseURL = "https://api.medspa.dev"
)

// WithAPIKey authenticates with an API key (Authorization: Bearer <key>). The default is the
// MEDSPA_API_KEY environment variable.
func WithAPIKey(key string) Option {
	return func(c *config) { c.apiKey = key; c.tokenSource = nil; c.oauth = nil }
}

// WithTokenSource authenticates with OAuth 2.0 access tokens from ts (any golang.org/x/oauth2
// source). Tokens are cached and refreshed by the source; when the server still answers
// 401 token_expired, the call refreshes once and is resent.
func WithTokenSource(ts oauth2.TokenSource) Option {
	return func(c *config) { c.tokenSource = ts; c.apiKey = ""; c.oauth = nil }
}

// WithBaseURL sets the API's base address, e.g. "https://api.medspa.dev" or "http://127.0.0.1:8080".
// The default is the MEDSPA_BASE_URL environment variable, else DefaultBaseURL. Plain http is
// refused except for loopback hosts.
func WithBaseURL(u string) Option {
	return func(c *config) { c.baseURL = strings.TrimRight(u, "/") }
}

// WithHTTPClient sends requests through hc. Its Transport is wrapped (never modified); its
// Timeout and CheckRedirect are kept. The default client requires TLS 1.3.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) { c.httpClient = hc }
}

// WithMaxRetries sets how many times a failed call is retried (0 disables retries).
func WithMaxRetries(n int) Option {
	return func(c *config) { c.maxRetries = max(n, 0) }
}

// WithRetryWait sets the bounds of the exponential backoff between retries (full jitter).
func WithRetryWait(minWait, maxWait time.Duration) Option {
	return func(c *config) { c.retryWaitMin, c.retryWaitMax = minWait, max(minWait, maxWait) }
}

// WithMaxRetryAfter caps how long a server's Retry-After is honoured; a longer Retry-After
// ends the retries and returns the *Error with RetryAfter set.
func WithMaxRetryAfter(d time.Duration) Option {
	return func(c *config) { c.retryAfterMax = d }
}

// WithLogger logs one debug record per attempt: method, path (never the query), status,
// request id, attempt and duration. Bodies, query strings and credentials are never logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithUserAgent appends s to the User-Agent header, e.g. "myapp/1.2".
func WithUserAgent(s string) Option {
	return func(c *config) { c.userAgentSuffix = s }
}

// WithHeader sets an extra request header.
func WithHeader(key, value string) Option {
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
// An empty key sends none; such a POST is then never retried after a possible commit.
func WithIdempotencyKey(key string) Option {
	return func(c *config) { c.idempotencyKey = &key }
}

// WithResponseInto stores the call's final HTTP response metadata (status, headers, request id,
// rate-limit state) in *dst, also when the call fails with an *Error.
func WithResponseInto(dst **Response) Option {
	return func(c *config) { c.response = dst }
}
