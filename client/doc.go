// Package client is the engine every MedSpa API area shares. It does each cross-cutting job once,
// for every call:
//
//   - authentication: an API key, or OAuth 2.0 access tokens from any oauth2.TokenSource, with one
//     shared refresh when the server says a token expired;
//   - an Idempotency-Key on every POST (one per logical call, the same on every retry);
//   - retries through go-retryablehttp with our own policy: only what is safe to resend
//     (safe and idempotent methods, keyed POSTs), on connection errors, 429 and 502–504;
//     exponential backoff with full jitter; Retry-After honoured up to a cap; waits end as soon
//     as the context is done;
//   - error decoding: every non-2xx answer is an *Error (RFC 9457 problem details) matched with
//     errors.Is against the Err* sentinels;
//   - paging: List for one page, All for an iter.Seq2 over every record, fetched lazily;
//   - logging with log/slog: metadata only (method, path, status, request id, attempt, duration),
//     never bodies, query strings or credentials.
//
// Plain http is refused except to loopback hosts, and the default transport requires TLS 1.3.
// Most programs use the facade package medspa instead of this one directly; the area packages
// (patients, appointments, …) are thin typed layers over Client.
package client
