package medspa

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"golang.org/x/oauth2"

	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/reports"
	"github.com/medspa/medspa-go/webhooks"
)

// Client is the MedSpa API client: one service per area, all sharing one call path. It is safe
// for concurrent use; create one and reuse it.
type Client struct {
	// Patients creates, fetches, updates and lists patients.
	Patients *patients.Service
	// Appointments books, reschedules, moves through their states, cancels and lists appointments.
	Appointments *appointments.Service
	// Invoices creates, fetches, lists and voids invoices.
	Invoices *billing.InvoicesService
	// Payments pays invoices, fetches and lists payments.
	Payments *billing.PaymentsService
	// Refunds refunds payments, fetches and lists refunds.
	Refunds *billing.RefundsService
	// Products creates, fetches, updates and lists products.
	Products *inventory.ProductsService
	// Inventory lists stock records and adjusts stock.
	Inventory *inventory.StockService
	// Webhooks registers, lists, updates, tests and removes webhook endpoints, rotates their
	// signing secrets, and builds receivers on the client's clock.
	Webhooks *webhooks.Service
	// Reports runs revenue, appointments, patients and custom reports, as JSON or CSV.
	Reports *reports.Service

	engine *client.Engine
}

// New returns a client configured by opts (the With* options). Without options it reads
// MEDSPA_API_KEY and MEDSPA_BASE_URL (else DefaultBaseURL). It fails when an option is invalid,
// or the base URL is not https (plain http is allowed to loopback hosts only).
func New(opts ...Option) (*Client, error) {
	e, err := client.NewEngine(opts...)
	if err != nil {
		return nil, err
	}
	return &Client{
		Patients:     patients.NewService(e),
		Appointments: appointments.NewService(e),
		Invoices:     billing.NewInvoicesService(e),
		Payments:     billing.NewPaymentsService(e),
		Refunds:      billing.NewRefundsService(e),
		Products:     inventory.NewProductsService(e),
		Inventory:    inventory.NewStockService(e),
		Webhooks:     webhooks.NewService(e),
		Reports:      reports.NewService(e),
		engine:       e,
	}, nil
}

// Do sends a call the services do not cover, through the same call path (auth, signing, rate
// limits, retries, bounded reads, errors): method to path (built with Path), params as the
// query (GET, DELETE) or the JSON body (POST, PATCH), the JSON answer decoded into out when out
// is not nil. Errors are as for every call: an *Error for a non-2xx answer, ErrInvalidArgument
// before anything is sent. The *Response describes the last answer (nil when none arrived).
//
//	var doc map[string]any // the API's own OpenAPI document, GET /api/v1/openapi.json
//	resp, err := c.Do(ctx, http.MethodGet, medspa.Path("openapi.json"), nil, &doc)
func (c *Client) Do(ctx context.Context, method string, path Route, params, out any, opts ...RequestOption) (*Response, error) {
	return c.engine.Do(ctx, method, path, params, out, opts...)
}

// BaseURL returns the API base address the client sends to.
func (c *Client) BaseURL() string { return c.engine.BaseURL() }

// Now returns the time by the client's clock (WithClock; the wall clock by default). Receivers
// of webhooks check delivery timestamps against it when built by c.Webhooks.
func (c *Client) Now() time.Time { return c.engine.Now() }

// Option configures a client: New takes Options. The With* functions of this package make
// them. Every RequestOption is also an Option (given to New, it sets the default of every
// call); WithBaseURL, WithHTTPClient, WithTimeouts and WithClock describe the server and the
// transport, so they are Options only: giving one to a call does not compile.
//
//	c, err := medspa.New(medspa.WithAPIKey(key), medspa.WithTimeouts(medspa.Timeouts{Dial: 3 * time.Second}))
type Option = client.Option

// RequestOption configures one call: every service method and Do take them after their
// arguments, and they override the client's setting for that call only. A RequestOption is
// also an Option, so the same With* function serves New and a call:
//
//	p, _, err := c.Patients.Get(ctx, id, medspa.WithMaxRetries(0), medspa.WithHeader("X-Trace", t))
type RequestOption = client.RequestOption

// WithAPIKey authenticates with an API key (Authorization: Bearer <key>). The default is the
// MEDSPA_API_KEY environment variable.
func WithAPIKey(key string) RequestOption { return client.WithAPIKey(key) }

// WithBaseURL sets the API's base address, e.g. "https://api.medspa.dev" or
// "http://127.0.0.1:8080". The default is MEDSPA_BASE_URL, else DefaultBaseURL. Plain http is
// refused except to loopback hosts.
func WithBaseURL(u string) Option { return client.WithBaseURL(u) }

// WithHTTPClient sends requests through hc: its Transport, Timeout and Jar are used as they
// are, and the SDK's redirect rules (see RedirectError) run before its CheckRedirect.
// WithTimeouts does not apply to it. The default client requires TLS 1.3 and has
// DefaultTimeouts.
func WithHTTPClient(hc *http.Client) Option { return client.WithHTTPClient(hc) }

// WithTimeouts overrides the default transport's dial, TLS handshake, response-header and idle
// timeouts (zero fields keep their defaults, negative ones disable that timeout). It configures
// the client's transport: give it to New, not to a call.
func WithTimeouts(t Timeouts) Option { return client.WithTimeouts(t) }

// WithMaxRetries sets how many times a failed call is retried (default DefaultMaxRetries; 0
// disables retries). Only what is safe to resend is retried: GET, PATCH, DELETE and POSTs,
// which carry an Idempotency-Key.
func WithMaxRetries(n int) RequestOption { return client.WithMaxRetries(n) }

// WithRetryWait sets the bounds of the exponential backoff between retries (full jitter;
// defaults DefaultRetryWaitMin and DefaultRetryWaitMax).
func WithRetryWait(minWait, maxWait time.Duration) RequestOption {
	return client.WithRetryWait(minWait, maxWait)
}

// WithMaxRetryAfter caps how long a server's Retry-After is honoured (default
// DefaultRetryAfterMax); a longer Retry-After ends the retries and returns the *Error with
// RetryAfter set.
func WithMaxRetryAfter(d time.Duration) RequestOption { return client.WithMaxRetryAfter(d) }

// WithMaxResponseBytes bounds how much of a response body the client reads into memory
// (default DefaultMaxResponseBytes); a larger answer fails with ErrResponseTooLarge after at
// most n+1 bytes were read. A report's CSV stream is not read into memory and not bounded
// (unless signing is on). n <= 0 keeps the default.
func WithMaxResponseBytes(n int64) RequestOption { return client.WithMaxResponseBytes(n) }

// WithMaxPages bounds how many pages one All iteration fetches (default DefaultMaxPages); past
// it, the iteration ends with ErrPagination. n <= 0 keeps the default.
func WithMaxPages(n int) RequestOption { return client.WithMaxPages(n) }

// WithLogger logs the client's work with metadata only — never bodies, query strings, header
// values or credentials: at Debug one record per attempt (method, path, status, request id,
// attempt, duration); at Info one record before every wait longer than 1 s ("medspa wait":
// method, route pattern, wait, reason retry_after, backoff or rate_limit, attempt) and one per
// OAuth token fetch ("medspa token refresh", see TokenRefresh).
func WithLogger(l *slog.Logger) RequestOption { return client.WithLogger(l) }

// WithUserAgent appends s to the User-Agent header, e.g. "myapp/1.2".
func WithUserAgent(s string) RequestOption { return client.WithUserAgent(s) }

// WithHeader sets an extra request header.
func WithHeader(key, value string) RequestOption { return client.WithHeader(key, value) }

// WithIdempotencyKey sets the Idempotency-Key of a POST call instead of a generated one (to
// resume a call after a crash, say). An empty key sends none; such a POST is then never retried
// after a possible commit.
func WithIdempotencyKey(key string) RequestOption { return client.WithIdempotencyKey(key) }

// WithClock sets the client's clock (default time.Now). Request signatures are created at its
// time, response signatures must be within 300 s of it, OAuth token lifetimes run on it, and
// webhook receivers built by Client.Webhooks check delivery timestamps against it. Use it when
// the server's clock is not the wall clock: mockserver.NewTest and Server.NewClient set it to
// the mock's clock of the client's account, so tests that move that clock keep working. Waits
// (backoff, Retry-After, rate limits) always run on real time. A nil now is ignored.
func WithClock(now func() time.Time) Option { return client.WithClock(now) }

// WithClientCredentials authenticates with the OAuth 2.0 client-credentials grant against the
// API's /oauth/token (HTTP Basic client authentication), asking for scopes (none: all of the
// client's). Tokens are cached and shared by every call naming the same client and scopes, and
// renewed when their lifetime is over (by the client's clock, taken as 30 s to 24 h whatever the
// server says) or when the server answers 401 token_expired: one request for every concurrent
// call.
func WithClientCredentials(clientID, clientSecret string, scopes ...string) RequestOption {
	return client.WithClientCredentials(clientID, clientSecret, scopes...)
}

// WithOAuth2 authenticates with tokens of the authorization-code flow: tok (from
// cfg.Exchange) is used until it expires, then refreshed with its refresh token (rotated
// refresh tokens are kept). When the server answers 401 token_expired the token is refreshed
// even if it still looks valid locally, once for every concurrent call. Use OAuthEndpoint for
// cfg.Endpoint.
func WithOAuth2(cfg *oauth2.Config, tok *oauth2.Token) RequestOption {
	return client.WithOAuth2(cfg, tok)
}

// WithTokenSource authenticates with OAuth 2.0 access tokens from ts (any golang.org/x/oauth2
// source), cached and renewed as with WithClientCredentials.
func WithTokenSource(ts oauth2.TokenSource) RequestOption { return client.WithTokenSource(ts) }

// WithTokenRefreshHook calls hook after every OAuth access-token fetch (the first token, one
// whose lifetime is over, one the server rejected as expired), successful or not, with metadata
// only (TokenRefresh). It runs in the goroutine of the call that needed the token; it must be
// quick and safe for concurrent use. Each fetch is also logged at Info (WithLogger).
func WithTokenRefreshHook(hook func(TokenRefresh)) RequestOption {
	return client.WithTokenRefreshHook(hook)
}

// WithSigning signs every request (RFC 9421 HTTP Message Signatures, hmac-sha256, with a
// Content-Digest and a fresh nonce per attempt) with the key's id (key_…) and signing secret
// (mss_…), and verifies the server's signature on every response: a response that fails is
// ErrResponseSignature and its data is never returned. An invalid secret makes New fail. Use it
// with WithAPIKey for keys created with signing required.
func WithSigning(keyID, secret string) RequestOption { return client.WithSigning(keyID, secret) }

// WithPlan keeps the client within plan's rate limit before requests reach the wire (see
// WithRateLimit). An unknown plan makes New fail.
func WithPlan(p Plan) RequestOption { return client.WithPlan(p) }

// WithRateLimit keeps the client within perMinute requests a minute with bursts of burst (a
// token bucket like the server's): calls wait, context-aware, instead of getting 429s. There is
// one bucket per credential and rate, shared by every call naming them; it also follows the
// server's rate-limit headers and Retry-After. A wait that would outlast the context's deadline
// fails at once with an error matching context.DeadlineExceeded.
func WithRateLimit(perMinute float64, burst int) RequestOption {
	return client.WithRateLimit(perMinute, burst)
}

// OAuthEndpoint returns the API's OAuth 2.0 endpoints at baseURL for an oauth2.Config:
// /oauth/authorize and /oauth/token, client authentication by HTTP Basic.
func OAuthEndpoint(baseURL string) oauth2.Endpoint { return client.OAuthEndpoint(baseURL) }

// Path builds the path of a call for Do: /api/v1 and the segments, each escaped as one path
// segment; a segment that is empty or not one segment makes the call fail with
// ErrInvalidArgument before anything is sent.
func Path(segments ...string) Route { return client.Path(segments...) }

// Route is the path of a call, built by Path.
type Route = client.Route

// Ptr returns a pointer to v, for the optional pointer fields of params:
// billing.LineItemParams{UnitAmount: medspa.Ptr[int64](19900)}.
func Ptr[T any](v T) *T { return &v }

// Optional is a field of update params (JSON Merge Patch, RFC 7396): left zero it is absent and
// the field is unchanged; Set(v) sets it; Null() clears it. An Optional of an object (such as
// patients.AddressPatch) is itself a patch: only its set members are sent.
type Optional[T any] = client.Optional[T]

// Set returns an Optional that sets a field of an update to v.
func Set[T any](v T) Optional[T] { return client.Set(v) }

// Null returns an Optional that clears an optional field of an update (sends JSON null).
func Null[T any]() Optional[T] { return client.Null[T]() }

// Date is a calendar date without a time zone, written YYYY-MM-DD (date of birth, lot expiry);
// the zero Date is "no date".
type Date = client.Date

// NewDate returns the date y-m-d.
func NewDate(y int, m time.Month, d int) Date { return client.NewDate(y, m, d) }

// ParseDate parses YYYY-MM-DD, refusing impossible dates such as 2026-02-30.
func ParseDate(s string) (Date, error) { return client.ParseDate(s) }

// DateOf returns the date of t in t's location.
func DateOf(t time.Time) Date { return client.DateOf(t) }

// ListOptions are the paging parameters every list accepts (Page, PerPage); the areas'
// ListParams embed it.
type ListOptions = client.ListOptions

// Page is one page of a list: Data and the paging Meta; HasMore reports whether pages follow.
type Page[T any] = client.Page[T]

// Meta is the paging information of a list answer: Total, Page, PerPage.
type Meta = client.Meta

// Sort is the order of a reversible list (patients, invoices, products).
type Sort = client.Sort

// Sort orders, also named by each area package (patients.SortCreatedDesc, …).
const (
	SortCreatedAsc  = client.SortCreatedAsc
	SortCreatedDesc = client.SortCreatedDesc
)

// Response is the metadata of the last HTTP answer a call got, returned by every call with its
// result or error: StatusCode, Header, RequestID, Attempts, RateLimit and Replayed (an
// idempotent replay). It is nil when no answer arrived.
type Response = client.Response

// RateLimit is the server's rate-limit state after a call (Limit, Remaining, Reset,
// DailyRemaining), in every Response.
type RateLimit = client.RateLimit

// TokenRefresh describes one OAuth access-token fetch (reason, grant, times, error), for
// WithTokenRefreshHook; it never holds a token or secret.
type TokenRefresh = client.TokenRefresh

// TokenRefreshReason says why a token was fetched.
type TokenRefreshReason = client.TokenRefreshReason

// Why a token is fetched.
const (
	// TokenFirst is the first token of a credential.
	TokenFirst = client.TokenFirst
	// TokenExpiring replaces a token whose lifetime, by the client's clock, is over.
	TokenExpiring = client.TokenExpiring
	// TokenRejected replaces a token the server answered 401 token_expired to.
	TokenRejected = client.TokenRejected
)

// Plan is a MedSpa plan, for WithPlan.
type Plan = client.Plan

// The plans of the API and their rate limits.
const (
	PlanStarter      = client.PlanStarter      // 60/min, burst 100, 10,000 a day
	PlanProfessional = client.PlanProfessional // 300/min, burst 500, 100,000 a day
	PlanEnterprise   = client.PlanEnterprise   // 1,000/min, burst 2,000, no daily quota
)

// Timeouts are the default transport's timeouts, for WithTimeouts: Dial, TLSHandshake,
// ResponseHeader and Idle. A zero field keeps its default (10 s, 10 s, 60 s, 90 s); a negative
// one disables that timeout.
type Timeouts = client.Timeouts

// Defaults of the client's settings.
const (
	// DefaultBaseURL is used when neither WithBaseURL nor MEDSPA_BASE_URL is set.
	DefaultBaseURL = client.DefaultBaseURL
	// DefaultMaxRetries is the retries of a failed call (WithMaxRetries).
	DefaultMaxRetries = client.DefaultMaxRetries
	// DefaultRetryWaitMin and DefaultRetryWaitMax bound the backoff (WithRetryWait).
	DefaultRetryWaitMin = client.DefaultRetryWaitMin
	DefaultRetryWaitMax = client.DefaultRetryWaitMax
	// DefaultRetryAfterMax caps an honoured Retry-After (WithMaxRetryAfter).
	DefaultRetryAfterMax = client.DefaultRetryAfterMax
	// DefaultMaxResponseBytes bounds a body read into memory (WithMaxResponseBytes).
	DefaultMaxResponseBytes = client.DefaultMaxResponseBytes
	// DefaultMaxPages bounds the pages of one All (WithMaxPages).
	DefaultMaxPages = client.DefaultMaxPages
	// Version is the SDK's version, sent in the User-Agent.
	Version = client.Version
)

// Error is an error answered by the API: an RFC 9457 problem, decoded. Every non-2xx answer is
// one; test its code with errors.Is against the Err* sentinels, read its fields (Status, Code,
// Detail, RequestID, Fields, RetryAfter, ConflictingID, From, To, Available, PaymentID,
// DeclineCode) with errors.As.
type Error = client.Error

// FieldError names one invalid field of a request (Error.Fields): its JSON Pointer, a code
// such as required or invalid_format, and a detail that never repeats the value.
type FieldError = client.FieldError

// TokenError is a failure to obtain an OAuth access token; calls fail with it (wrapped) and are
// not retried. Err is the token source's error, e.g. an *oauth2.RetrieveError.
type TokenError = client.TokenError

// RedirectError is a redirect the client refused to follow (its Rule, and the From and To
// origins); the call fails with it, wrapped, and is not retried.
type RedirectError = client.RedirectError

// RedirectRule names the rule that stopped a redirect.
type RedirectRule = client.RedirectRule

// The redirect rules.
const (
	// RedirectTooMany: more than 5 redirects.
	RedirectTooMany = client.RedirectTooMany
	// RedirectInsecure: to plain http from https, or to plain http off loopback.
	RedirectInsecure = client.RedirectInsecure
	// RedirectCrossOriginBody: a 307 or 308 would send the body to another origin.
	RedirectCrossOriginBody = client.RedirectCrossOriginBody
)

// Error sentinels for errors.Is: one per error code of the API (an *Error matches the sentinel
// of its code), and ErrAPI, which every *Error matches.
var (
	ErrAPI                     = client.ErrAPI
	ErrMalformedJSON           = client.ErrMalformedJSON
	ErrUnauthorized            = client.ErrUnauthorized
	ErrTokenExpired            = client.ErrTokenExpired
	ErrInvalidSignature        = client.ErrInvalidSignature
	ErrCardDeclined            = client.ErrCardDeclined
	ErrInsufficientScope       = client.ErrInsufficientScope
	ErrIPNotAllowed            = client.ErrIPNotAllowed
	ErrNotFound                = client.ErrNotFound
	ErrMethodNotAllowed        = client.ErrMethodNotAllowed
	ErrAppointmentConflict     = client.ErrAppointmentConflict
	ErrInvalidStateTransition  = client.ErrInvalidStateTransition
	ErrAppointmentLocked       = client.ErrAppointmentLocked
	ErrInsufficientStock       = client.ErrInsufficientStock
	ErrDuplicateSKU            = client.ErrDuplicateSKU
	ErrInvoiceNotPayable       = client.ErrInvoiceNotPayable
	ErrInvoiceNotVoidable      = client.ErrInvoiceNotVoidable
	ErrPaymentNotRefundable    = client.ErrPaymentNotRefundable
	ErrIdempotencyKeyInUse     = client.ErrIdempotencyKeyInUse
	ErrPayloadTooLarge         = client.ErrPayloadTooLarge
	ErrUnsupportedMediaType    = client.ErrUnsupportedMediaType
	ErrValidation              = client.ErrValidation
	ErrIdempotencyKeyReused    = client.ErrIdempotencyKeyReused
	ErrAmountExceedsBalance    = client.ErrAmountExceedsBalance
	ErrAmountExceedsRefundable = client.ErrAmountExceedsRefundable
	ErrRateLimited             = client.ErrRateLimited
	ErrQuotaExceeded           = client.ErrQuotaExceeded
	ErrInternal                = client.ErrInternal
	ErrServiceUnavailable      = client.ErrServiceUnavailable
)

// Sentinels of what the SDK refuses itself, for errors.Is.
var (
	// ErrInvalidArgument: a call's arguments cannot be sent as they are — an id that is empty
	// or not one path segment, nil params, a value outside its closed set (an unknown status,
	// sort order or report name), a report filter value holding a comma or a control
	// character. Nothing was sent.
	ErrInvalidArgument = client.ErrInvalidArgument
	// ErrResponseTooLarge: a response body over WithMaxResponseBytes.
	ErrResponseTooLarge = client.ErrResponseTooLarge
	// ErrPagination: an All iteration whose pages repeat, end early or never end.
	ErrPagination = client.ErrPagination
	// ErrResponseSignature: with WithSigning, a response whose signature is missing, wrong or
	// more than 300 s from the client's clock; its data is never returned.
	ErrResponseSignature = client.ErrResponseSignature
)
