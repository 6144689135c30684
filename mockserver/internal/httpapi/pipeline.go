package httpapi

import "sync"

// buildPipeline composes the request path: every request runs these steps top to bottom, and
// the first that answers ends it. The order is the protocol's order of checks
// (docs/protocol.md §4): credentials 401 → allowlist 403 → signature 401 → rate limit 429 →
// route 404/405 → scope 403 → media type and size 415/413 → JSON 400 → validation 422 →
// records and rules 404/409/402. Each step is a function in the file named beside it; the
// state they share is one *request (request.go).
func (a *API) buildPipeline() {
	a.admin = sync.OnceValue(a.adminHandler) // built on first use: most tests never call /__admin/

	// After routing, each /api/v1 route runs behind these steps (mw_route.go builds one chain
	// per route, ending in the route's handler).
	a.routeSteps = steps{
		a.scope,       // mw_scope.go        403 insufficient_scope
		a.stubbed,     // stubs.go           an armed stub answers instead of the route (never the store)
		a.mediaType,   // mw_mediatype.go    415 unsupported_media_type, 413 payload_too_large
		a.strict,      // mw_strict.go       the OpenAPI document's findings, for validation to list (WithStrictValidation)
		a.auditAccess, // mw_audit.go        once answered: a successful read or write (or its replay) is audited
		a.durable,     // mw_durable.go      with a data directory: a write's answer waits until its changes are on disk
		a.idempotency, // mw_idempotency.go  replay; 409 idempotency_key_in_use, 422 idempotency_key_reused
	} //                  handler.go         decode, call the store, encode (400, 422, 404/409/402)
	a.mux = a.routeMux()

	// /api/v1 (and its /v1 alias).
	a.apiV1 = steps{
		a.authenticate,    // mw_auth.go         401 unauthorized, token_expired
		a.allowlist,       // mw_allowlist.go    403 ip_not_allowed
		a.readBody,        // mw_body.go         the body, read once (at most 1 MiB + 1 byte)
		a.verifySignature, // mw_signature.go    401 invalid_signature
		a.signResponse,    // mw_signature.go    the answer to a signed request is signed
		a.rateLimit,       // mw_ratelimit.go    429 rate_limited, quota_exceeded; RateLimit headers
	}.then(a.route) //        mw_route.go        404 not_found, 405 method_not_allowed; the route's steps

	// Every request.
	a.front = steps{
		a.limits,       // mw_limits.go       request-size limits of docs/protocol.md §13 (a slot)
		a.health,       // health.go          /healthz, /readyz: no credentials, limits, journal or audit
		a.cors,         // cors.go            CORS on /api/v1 for the configured origins; preflights answered
		a.adminSurface, // admin.go           /__admin/ leaves for the admin routes (unless off)
		a.requestID,    // mw_requestid.go    X-Request-Id
		a.identify,     // mw_identify.go     the credential the request names, and its address
		a.journal,      // mw_journal.go      the request journal and the log line
		a.faults,       // mw_faults.go       injected faults
	}.then(a.surface) //    mw_surface.go      OpenAPI documents | /oauth | /api/v1 | 404
}
