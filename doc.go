// Package medspa is the Go SDK for the MedSpa API: patients, appointments, billing, inventory,
// reports and webhooks.
//
// Create one Client with New and reuse it; it is safe for concurrent use. Each area is a
// service field:
//
//	c, err := medspa.New(medspa.WithAPIKey(os.Getenv("MEDSPA_API_KEY")))
//	p, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
//	for p, err := range c.Patients.All(ctx, &patients.ListParams{Q: "love"}) { … }
//
// Without options, New reads MEDSPA_API_KEY and MEDSPA_BASE_URL.
//
// # Services
//
//   - Patients (package patients): create, get, update (JSON Merge Patch), list.
//   - Appointments (package appointments): book, reschedule, move through the visit's
//     states, cancel, list; overlapping bookings are refused.
//   - Invoices and Payments (package billing): invoices with computed tax and totals,
//     payments by card (test tokens in the mock), cash and more; declined cards.
//   - Products and Inventory (package inventory): products, stock per location and lot,
//     adjustments.
//   - Reports (package reports): revenue, appointments, patients and custom reports, JSON or CSV.
//   - Webhooks (package webhooks): register endpoints; the package also verifies deliveries
//     (webhooks.NewHandler, webhooks.Verify).
//
// Every method takes a context and per-call options, which override the client's for that call
// only: c.Patients.Get(ctx, id, medspa.WithMaxRetries(0)). Lists have List (one page with
// Meta) and All (an iter.Seq2 over every record, fetched page by page). Update params are merge
// patches: leave a field zero to keep it, Set(v) to change it, Null to clear it; Ptr(v) fills
// the optional pointer fields of create params. Client.Do (with Path) sends a call the services
// do not cover through the same path.
//
// # Errors
//
// Every non-2xx answer is an *Error (an RFC 9457 problem): test its code with errors.Is
// against the Err* sentinels, read its fields (Fields for every invalid field, ConflictingID,
// DeclineCode, RetryAfter, …) with errors.As. Transport failures are returned wrapped (a
// *url.Error underneath). What the SDK refuses itself has sentinels too: ErrInvalidArgument (an
// id that is not one path segment, nil params; nothing was sent), ErrResponseTooLarge,
// ErrPagination, ErrResponseSignature. Error messages are one line and hold no request data.
//
// # Retries, rate limits, security
//
// Connection errors, 429 and 502–504 are retried with backoff when resending is safe; every POST
// carries an Idempotency-Key, the same on every attempt. WithPlan paces calls to the plan's
// rate limit; WithResponseInto exposes the rate-limit state of a call. WithClientCredentials and
// WithOAuth2 (with OAuthEndpoint and golang.org/x/oauth2) authenticate with OAuth 2.0;
// WithSigning signs requests and verifies responses (RFC 9421). The SDK also holds any server to
// the protocol: TLS 1.3, plain http only to loopback, default timeouts (WithTimeouts),
// response bodies bounded (WithMaxResponseBytes), redirects that never carry credentials or a
// body to another origin. The call path behind all of this is package client.
//
// # Testing
//
// Package mockserver is a stateful, in-memory implementation of the whole API:
// mockserver.NewTest(t) returns an isolated server with a ready *Client, its key and account, with
// no network.
package medspa
