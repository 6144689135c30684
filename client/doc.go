// Package client is the call path every MedSpa API area shares: the Engine, and the types and
// options of every call. Programs use it through the facade package medspa, which documents and
// re-exports everything a caller needs (medspa.New builds the one Engine a client has); the area
// packages (patients, appointments, …) are thin typed layers over it. The path of one call is call.go, top to bottom (ARCHITECTURE.md draws it):
//
//	build → authorize → limit → sign → send → decide → decode
//
// Each cross-cutting job is done once, for every call:
//
//   - authentication: an API key, or OAuth 2.0 access tokens from any oauth2.TokenSource, cached
//     per credential (lifetimes taken between 30 s and 24 h, one fetch in flight) and renewed once
//     when the server says a token expired;
//   - an Idempotency-Key on every POST (one per logical call, the same on every retry);
//   - request signing and response verification (RFC 9421, WithSigning), a response signed more
//     than 300 s from the client's clock refused;
//   - rate limiting before the wire (WithPlan, WithRateLimit), one bucket per credential and plan;
//   - retries: only what is safe to resend (safe and idempotent methods, keyed POSTs), on the
//     transport failures a retry can fix (go-retryablehttp's policy), 429 and 502–504;
//     exponential backoff with full jitter; Retry-After honoured up to a cap; waits end as soon
//     as the context does;
//   - transport safety: TLS 1.3, plain http only to loopback, dial / TLS / response-header / idle
//     timeouts (WithTimeouts), redirects that never carry credentials or a body to another
//     origin (RedirectError), response bodies read into memory up to a limit
//     (WithMaxResponseBytes, ErrResponseTooLarge);
//   - arguments checked before the wire: ids that are empty or not one path segment, nil params,
//     and every Validator in params — the areas' closed sets (CheckEnum) and composite values
//     such as a report filter (ErrInvalidArgument); times written as the protocol's UTC "Z"
//     whole seconds;
//   - errors: every non-2xx answer is an *Error (RFC 9457 problem details) matched with errors.Is
//     against the Err* sentinels; every error message is one line without the query, body,
//     header values or secrets (a transport failure still unwraps to its *url.Error);
//   - paging: List for one page, All for an iter.Seq2 over every record, fetched lazily, stopped
//     with ErrPagination when the server's pages repeat, end early or never end;
//   - the metadata of every answer (*Response: status, request id, rate limit, attempts, replay)
//     returned with every result and error;
//   - one clock (WithClock) for signatures, token lifetimes and receivers, real time for waits;
//   - logging with log/slog: metadata only (method, route pattern, status, request id, attempt, duration;
//     before any wait over a second its route pattern, length and reason; every token fetch, also
//     to WithTokenRefreshHook), never bodies, query strings or credentials.
package client
