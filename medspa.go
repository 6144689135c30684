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
//
// Each field is named after the API resource it serves (/patients → Patients, /inventory →
// Inventory); its type is Service in an area package of one service (patients.Service) and
// <Field>Service in a package of several (billing.InvoicesService, inventory.InventoryService).
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
	Inventory *inventory.InventoryService
	// Webhooks registers, lists, updates, tests and removes webhook endpoints, rotates their
	// signing secrets, and builds receivers on the client's clock.
	Webhooks *webhooks.Service
	// Reports runs revenue, appointments, patients and custom reports, as JSON or CSV.
	Reports *reports.Service

	engine *client.Engine
}

// New returns a client configured by opts (the With* options). Without options it reads
// MEDSPA_API_KEY and MEDSPA_BASE_URL (else DefaultBaseURL). It fails, with one line naming the
// fix, when an option is invalid; when there is no credential (no MEDSPA_API_KEY, WithAPIKey
// or OAuth option); when the base URL is not https (plain http is allowed to loopback hosts
// only) or holds /api/v1 (give the host only: the SDK adds /api/v1); and when
// WithIdempotencyKey, one call's option, is given to it.
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
		Inventory:    inventory.NewInventoryService(e),
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
// WithTimeouts does not apply to it. The default client requires TLS 1.3 and has the default
// Timeouts (see Timeouts). It configures the client: give it to New.
func WithHTTPClient(hc *http.Client) Option { return client.WithHTTPClient(hc) }

// WithTimeouts overrides the default transport's dial, TLS handshake, response-header and idle
// timeouts (zero fields keep their defaults, negative ones disable that timeout). It configures
// the client's transport: give it to New, not to a call.
func WithTimeouts(t Timeouts) Option { return client.WithTimeouts(t) }

// WithRootCAs makes the default transport trust the CA certificates in pem besides the
// system's roots: a mock server's exported CA (medspa-mock -tls -tls-ca-out FILE) or a test
// network's own. New fails when pem holds no certificate. Give it to New, not to a call; it
// does not apply to a client given with WithHTTPClient.
func WithRootCAs(pem []byte) Option { return client.WithRootCAs(pem) }

// WithCAFile is WithRootCAs with the PEM read from the file at path.
func WithCAFile(path string) Option { return client.WithCAFile(path) }

// WithInsecurePlainHTTPHost allows plain http (no TLS: the key and PHI travel in clear) to the
// named hosts besides loopback, for test networks only, e.g. WithInsecurePlainHTTPHost(
// "medspa-mock") with WithBaseURL("http://medspa-mock:8080"). Prefer https with WithRootCAs.
func WithInsecurePlainHTTPHost(hosts ...string) Option {
	return client.WithInsecurePlainHTTPHost(hosts...)
}

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
// RetryAfter set, its message giving the wait and the cap.
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
// after a possible commit. It names one call's key: given to New, it makes New fail.
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

// Route is the path of a call for Do, built by Path. A Route whose segments could not be sent
// as they are (an empty segment, one holding a slash) carries the reason instead, and the call
// fails with ErrInvalidArgument before anything is sent. Its String method returns the path;
// Pattern returns it with ids as {id} (as the wait log shows it); Err returns the reason a
// Route cannot be sent, or nil.
type Route = client.Route

// Ptr returns a pointer to v, for the optional pointer fields of params:
// billing.LineItemParams{UnitAmount: medspa.Ptr[int64](19900)}.
func Ptr[T any](v T) *T { return &v }

// Optional is a field of update params (JSON Merge Patch, RFC 7396): left zero it is absent and
// the field is unchanged; Set(v) sets it; Null() clears it. An Optional of an object (such as
// patients.AddressPatch) is itself a patch: only its set members are sent.
//
//	c.Patients.Update(ctx, id, &patients.UpdateParams{Phone: medspa.Set("+15550100"), Notes: medspa.Null[string]()})
//
// Its methods: IsZero (absent), IsNull (to be cleared), Get (the value to set and whether there
// is one), and the JSON (un)marshalers.
type Optional[T any] = client.Optional[T]

// Set returns an Optional that sets a field of an update to v.
func Set[T any](v T) Optional[T] { return client.Set(v) }

// Null returns an Optional that clears an optional field of an update (sends JSON null).
func Null[T any]() Optional[T] { return client.Null[T]() }

// Date is a calendar date without a time zone, written YYYY-MM-DD on the wire (date of birth,
// lot expiry); the zero Date is "no date" and is omitted from a request. Make one with NewDate,
// ParseDate or DateOf; its fields are Year, Month and Day. Its methods: String (YYYY-MM-DD),
// IsZero, Time (midnight UTC of the date), Before, and the text (un)marshalers.
type Date = client.Date

// NewDate returns the date y-m-d.
func NewDate(y int, m time.Month, d int) Date { return client.NewDate(y, m, d) }

// ParseDate parses YYYY-MM-DD, refusing impossible dates such as 2026-02-30.
func ParseDate(s string) (Date, error) { return client.ParseDate(s) }

// DateOf returns the date of t in t's location.
func DateOf(t time.Time) Date { return client.DateOf(t) }

// ListOptions are the paging parameters every list accepts; the areas' ListParams embed it:
//
//	Page    int // the 1-based page number (default 1)
//	PerPage int // the page size, 1–100 (default 25)
//
// All walks every page from Page on; List fetches the one page.
type ListOptions = client.ListOptions

// Page is one page of a list, as List returns it:
//
//	Data []T  // the records of this page
//	Meta Meta // Total, Page, PerPage
//
// HasMore reports whether pages follow this one.
type Page[T any] = client.Page[T]

// Meta is the paging information of a list answer:
//
//	Total   int // the number of records matching the filters
//	Page    int // the 1-based page number of this answer
//	PerPage int // the page size
type Meta = client.Meta

// Sort is the order of a reversible list: the Sort field of patients.ListParams,
// billing.InvoiceListParams, billing.PaymentListParams, billing.RefundListParams and
// inventory.ProductListParams. It is SortCreatedAsc (the default) or SortCreatedDesc; any other
// value fails the call with ErrInvalidArgument before anything is sent.
type Sort = client.Sort

// The sort orders of every reversible list (the area packages do not repeat them).
const (
	SortCreatedAsc  = client.SortCreatedAsc
	SortCreatedDesc = client.SortCreatedDesc
)

// Response is the metadata of the last HTTP answer a call got, returned by every call with its
// result or its error (also with an *Error); it is nil when no answer arrived (nothing was
// sent, the transport failed, or the answer failed signature verification):
//
//	StatusCode int         // the HTTP status
//	Header     http.Header // the answer's header
//	RequestID  string      // X-Request-Id, for support and the server's logs
//	Attempts   int         // HTTP attempts the call made (1 + retries)
//	RateLimit  RateLimit   // the rate-limit state after the call
//	Replayed   bool        // an idempotent replay of an earlier POST (Idempotent-Replayed: true)
type Response = client.Response

// RateLimit is the server's rate-limit state after a call, in every Response:
//
//	Limit          int       // the bucket size (burst); 0 when the server sent no rate-limit headers
//	Remaining      int       // whole tokens left in the bucket
//	Reset          time.Time // when the bucket is full again
//	DailyRemaining int       // requests left today; -1 when the plan has no daily quota
type RateLimit = client.RateLimit

// TokenRefresh describes one OAuth access-token fetch, for WithTokenRefreshHook; it never holds
// a token or secret:
//
//	Reason  TokenRefreshReason // TokenFirst, TokenExpiring or TokenRejected
//	Grant   string             // "client_credentials", "authorization_code" or "token_source"
//	At      time.Time          // when the fetch started, by the client's clock
//	Took    time.Duration      // how long it took
//	RenewAt time.Time          // when the next token is fetched unless the server rejects this one; zero on failure
//	Err     error              // the failure (a *TokenError), nil when a token was obtained
type TokenRefresh = client.TokenRefresh

// TokenRefreshReason says why a token was fetched (TokenRefresh.Reason): TokenFirst,
// TokenExpiring or TokenRejected.
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

// Plan is a MedSpa plan, for WithPlan: PlanStarter, PlanProfessional or PlanEnterprise, each
// with the rate limit and daily quota of docs/protocol.md §7. Any other value makes New fail.
type Plan = client.Plan

// The plans of the API and their rate limits.
const (
	PlanStarter      = client.PlanStarter      // 60/min, burst 100, 10,000 a day
	PlanProfessional = client.PlanProfessional // 300/min, burst 500, 100,000 a day
	PlanEnterprise   = client.PlanEnterprise   // 1,000/min, burst 2,000, no daily quota
)

// Timeouts are the default transport's timeouts, for WithTimeouts. A zero field keeps its
// default; a negative one disables that timeout. A whole call is bounded by its context.
//
//	Dial           time.Duration // opening the TCP connection (default 10 s)
//	TLSHandshake   time.Duration // the TLS handshake (default 10 s)
//	ResponseHeader time.Duration // waiting for the answer's headers once the request is sent (default 60 s)
//	Idle           time.Duration // keeping an idle keep-alive connection for reuse (default 90 s)
//	Body           time.Duration // reading the answer's body once its headers arrived (default 60 s): a server that stalls the body cannot hang a call made with context.Background()
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

// Error is an error answered by the API: an RFC 9457 problem document, decoded. Every non-2xx
// answer is one (a body that is not a problem document still gives the status and the status
// text). Test its code with errors.Is against the Err* sentinels; read its fields with
// errors.As:
//
//	var apiErr *medspa.Error
//	if errors.As(err, &apiErr) && errors.Is(err, medspa.ErrAppointmentConflict) {
//		log.Printf("conflicts with %s (request %s)", apiErr.ConflictingID, apiErr.RequestID)
//	}
//
// Its fields:
//
//	Status        int           // the HTTP status
//	Code          string        // the error code, e.g. "validation_error" (one Err* sentinel each)
//	Type          string        // the problem type URI, https://docs.medspa.dev/errors/<code>
//	Title         string        // a short summary of the problem type
//	Detail        string        // what went wrong this time
//	RequestID     string        // X-Request-Id, for support and the server's logs
//	Fields        []FieldError  // every invalid field of a validation_error
//	RetryAfter    time.Duration // the server's Retry-After (429, 503), when it sent one
//	ConflictingID string        // appointment_conflict: the record collided with
//	From, To      string        // invalid_state_transition: the refused move
//	Available     *int64        // insufficient_stock: the stock on hand
//	PaymentID     string        // card_declined: the failed payment recorded
//	DeclineCode   string        // card_declined: the processor's reason, e.g. "insufficient_funds"
//	Header        http.Header   // the answer's header, for anything not decoded above
//
// Its Error method gives one line without request data (no PHI): status, code, detail, the
// invalid fields, what the client adds (a Retry-After over WithMaxRetryAfter that stopped the
// retries, with the wait and the cap; when a spent daily quota resets) and the request id.
type Error = client.Error

// FieldError names one invalid field of a request (Error.Fields):
//
//	Pointer string // the field's JSON Pointer in the body, e.g. "/email", or a query parameter's name
//	Code    string // required, invalid_format, too_long, too_short, out_of_range, invalid_value,
//	               // unknown_field, unknown_parameter or not_found (a referenced id does not exist)
//	Detail  string // what is wrong; it never repeats the submitted value
type FieldError = client.FieldError

// TokenError is a failure to obtain an OAuth access token (the token endpoint refused, or could
// not be reached); calls fail with it (wrapped) and are not retried. Its one field, Err, is the
// token source's error, e.g. an *oauth2.RetrieveError; its message gives the endpoint's status,
// error code and description, never its body or URL.
type TokenError = client.TokenError

// RedirectError is a redirect the client refused to follow; the call fails with it, wrapped (in
// a *url.Error too), and is not retried:
//
//	Rule     RedirectRule // the rule that stopped it
//	From, To string       // the two origins (scheme://host:port), never paths or queries
//
// Besides refusing, the client never forwards Authorization, Signature, Signature-Input,
// Content-Digest or Idempotency-Key to another origin.
type RedirectError = client.RedirectError

// RedirectRule names the rule that stopped a redirect (RedirectError.Rule): RedirectTooMany,
// RedirectInsecure or RedirectCrossOriginBody.
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
// of its code), and ErrAPI, which every *Error matches. Each is named after its code
// (ErrNotFound for not_found); the comment gives the status and when the API answers it.
var (
	ErrAPI                     = client.ErrAPI                     // any *Error, whatever its code
	ErrMalformedJSON           = client.ErrMalformedJSON           // 400: the body is not JSON, or not an object
	ErrUnauthorized            = client.ErrUnauthorized            // 401: missing, malformed or unknown credentials
	ErrTokenExpired            = client.ErrTokenExpired            // 401: an expired OAuth access token (renewed once by the client)
	ErrInvalidSignature        = client.ErrInvalidSignature        // 401: the key requires request signing (WithSigning) and the signature is missing, wrong, stale or replayed
	ErrCardDeclined            = client.ErrCardDeclined            // 402: payment declined (Error.PaymentID, Error.DeclineCode)
	ErrInsufficientScope       = client.ErrInsufficientScope       // 403: the credential lacks the scope
	ErrIPNotAllowed            = client.ErrIPNotAllowed            // 403: the caller's address is not in the key's allowlist
	ErrNotFound                = client.ErrNotFound                // 404: unknown id or route
	ErrMethodNotAllowed        = client.ErrMethodNotAllowed        // 405: known path, other method
	ErrAppointmentConflict     = client.ErrAppointmentConflict     // 409: overlapping appointment (Error.ConflictingID)
	ErrInvalidStateTransition  = client.ErrInvalidStateTransition  // 409: a status move the state machine refuses (Error.From, Error.To)
	ErrAppointmentLocked       = client.ErrAppointmentLocked       // 409: time, provider or room changed outside scheduled/confirmed
	ErrInsufficientStock       = client.ErrInsufficientStock       // 409: not enough stock (Error.Available)
	ErrDuplicateSKU            = client.ErrDuplicateSKU            // 409: another product has the SKU
	ErrInvoiceNotPayable       = client.ErrInvoiceNotPayable       // 409: the invoice is paid or void
	ErrInvoiceNotVoidable      = client.ErrInvoiceNotVoidable      // 409: the invoice has payments, or is void
	ErrPaymentNotRefundable    = client.ErrPaymentNotRefundable    // 409: the payment failed or is refunded in full
	ErrIdempotencyKeyInUse     = client.ErrIdempotencyKeyInUse     // 409: a call with the same Idempotency-Key is still in flight
	ErrPayloadTooLarge         = client.ErrPayloadTooLarge         // 413: the body is too large
	ErrUnsupportedMediaType    = client.ErrUnsupportedMediaType    // 415: the body is not application/json
	ErrValidation              = client.ErrValidation              // 422: invalid fields, every one in Error.Fields
	ErrIdempotencyKeyReused    = client.ErrIdempotencyKeyReused    // 422: the Idempotency-Key was used for another request
	ErrAmountExceedsBalance    = client.ErrAmountExceedsBalance    // 422: a payment larger than the invoice's amount due
	ErrAmountExceedsRefundable = client.ErrAmountExceedsRefundable // 422: a refund larger than what is left to refund
	ErrRateLimited             = client.ErrRateLimited             // 429: rate limit; retried while Retry-After is within WithMaxRetryAfter
	ErrQuotaExceeded           = client.ErrQuotaExceeded           // 429: the daily quota is spent; the message says when it resets
	ErrInternal                = client.ErrInternal                // 500: the server failed
	ErrServiceUnavailable      = client.ErrServiceUnavailable      // 503: the server is unavailable; retried when resending is safe
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
