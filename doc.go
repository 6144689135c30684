// Package medspa is the Go SDK for the MedSpa API: patients, appointments, billing, inventory,
// reports and webhooks.
//
// Create one Client with New and reuse it; it is safe for concurrent use. Each area is a
// service field:
//
//	c, err := medspa.New(medspa.WithAPIKey(os.Getenv("MEDSPA_API_KEY")))
//	p, resp, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
//	for p, err := range c.Patients.All(ctx, &patients.ListParams{Q: "love"}) { … }
//
// Without options, New reads MEDSPA_API_KEY and MEDSPA_BASE_URL (the host only: the SDK adds
// /api/v1). New fails, in one line naming the fix, without a credential or with a base URL
// holding /api/v1. This package and the area
// packages a program calls are the whole SDK: every option, type and sentinel a caller needs is
// here (package client, underneath, is the call path they share).
//
// # Services
//
//   - Patients (package patients): create, get, update (JSON Merge Patch), list.
//   - Appointments (package appointments): book, reschedule, move through the visit's
//     states, cancel with a reason, list; overlapping bookings are refused.
//   - Invoices and Payments (package billing): invoices with computed tax and totals,
//     payments by card (test tokens in the mock), cash and more; declined cards.
//   - Products and Inventory (package inventory): products, stock per location and lot,
//     adjustments.
//   - Reports (package reports): revenue, appointments, patients and custom reports, JSON or CSV.
//   - Webhooks (package webhooks): register endpoints; the package also verifies deliveries
//     (webhooks.NewHandler, webhooks.Verify; c.Webhooks.NewHandler on the client's clock).
//
// Every method takes a context and per-call options (RequestOption), which override the
// client's for that call only: c.Patients.Get(ctx, id, medspa.WithMaxRetries(0)). A
// RequestOption is also an Option, so the same With* sets the client's default when given to
// New; WithBaseURL, WithHTTPClient, WithTimeouts and WithClock are Options only, and a call
// given one does not compile. Every method returns its result, the
// *Response of the server's answer (status, request id, RateLimit, attempts, idempotent replay;
// also with an error, nil when no answer came) and the error. Lists have List (one page with
// Meta) and All (an iter.Seq2 over every record, fetched page by page). Update params are merge
// patches (RFC 7396): leave a field zero to keep it, Set(v) to change it, Null to clear it; an
// object field such as patients.AddressPatch is a patch of its own. Ptr(v) fills optional
// pointer fields. Statuses, sort orders, report names and the like are typed constants, and a
// value outside its set, or one the wire cannot carry, is refused with ErrInvalidArgument
// before anything is sent. Client.Do (with Path) sends a call the services do not cover
// through the same path.
//
// # Errors
//
// Every non-2xx answer is an *Error (an RFC 9457 problem): test its code with errors.Is
// against the Err* sentinels, read its fields (Fields for every invalid field, ConflictingID,
// DeclineCode, RetryAfter, …) with errors.As. Transport failures are returned wrapped (a
// *url.Error underneath). What the SDK refuses itself has sentinels too: ErrInvalidArgument (an
// id that is not one path segment, nil params; nothing was sent), ErrResponseTooLarge,
// ErrPagination, ErrResponseSignature. Error messages are one line and hold no request data.
// A failure to get an OAuth token is a *TokenError; a refused redirect a *RedirectError.
//
// # Retries, rate limits, security
//
// Connection errors, 429 and 502–504 are retried with backoff when resending is safe; every POST
// carries an Idempotency-Key, the same on every attempt. WithPlan paces calls to the plan's
// rate limit; every Response carries the rate-limit state the server reported. WithLogger logs
// metadata only, including a record before every wait longer than a second and one per token
// fetch. WithClientCredentials and WithOAuth2 (with OAuthEndpoint and golang.org/x/oauth2)
// authenticate with OAuth 2.0, WithTokenRefreshHook sees every token fetch; WithSigning signs
// requests and verifies responses (RFC 9421). WithClock sets the clock signatures, token
// lifetimes and webhook receivers are judged by (default time.Now). The SDK also holds any server to
// the protocol: TLS 1.3, plain http only to loopback, default timeouts (WithTimeouts),
// response bodies bounded (WithMaxResponseBytes), redirects that never carry credentials or a
// body to another origin. The call path behind all of this is package client.
//
// # Testing
//
// Package mockserver is a stateful, in-memory implementation of the whole API:
// mockserver.NewTest(t) returns an isolated server with a ready *Client, its key and account, with
// no network. That client (and those of Server.NewClient and ClientFor) runs on the mock's
// clock, so tests that move it keep signing and refreshing tokens right.
package medspa
