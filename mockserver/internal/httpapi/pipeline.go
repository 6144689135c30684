package httpapi

import (
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// The request path, in the protocol's order of checks (docs/protocol.md §4): credentials 401 →
// allowlist 403 → signature 401 → rate limit 429 → route 404/405 → scope 403 → media type and
// size 415/413 → JSON 400 → validation 422 → records and rules 404/409/402.
//
// One request value goes in (request.go) and one answer value comes out. A check is a step that
// either answers the request, ending it, or returns nil and passes it on, having noted what it
// learned in the request for the steps after it. Once a request is answered, the steps on the
// way out work on the answer value (idempotency capture, audit, durability, signature, journal);
// httpcore.Write puts it on the wire, once. Each step is a function in the file named beside it.

// check is a step on the way in: it answers the request, or returns nil to pass it on.
type check func(rq *request) *answer

// ServeHTTP serves one request: its answer, then the wire.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rq := newRequest(w, r)
	ans := a.serve(rq)
	httpcore.Write(w, rq.Request, ans)
	recycle(ans) // pools.go: its bytes, zeroed, serve the next answer
}

// buildPipeline lists the checks of each stage, in order.
func (a *API) buildPipeline() {
	a.gate = []check{
		limits,   // httpcore/request.go  request-size limits of docs/protocol.md §13
		a.health, // httpcore/health.go   /healthz, /readyz: no credentials, limits, journal or audit
		a.cors,   // cors.go              CORS on /api/v1 for the configured origins; preflights answered
	}
	a.apiChecks = []check{
		a.authenticate,    // mw_auth.go         401 unauthorized, token_expired
		a.allowlist,       // mw_allowlist.go    403 ip_not_allowed
		a.readBody,        // mw_body.go         the body, read once (at most 1 MiB + 1 byte)
		a.verifySignature, // mw_signature.go    401 invalid_signature
		a.rateLimit,       // mw_ratelimit.go    429 rate_limited, quota_exceeded; RateLimit headers
		a.route,           // routes.go          404 not_found, 405 method_not_allowed
		a.scope,           // mw_scope.go        403 insufficient_scope
		a.stubbed,         // stubs.go           an armed stub answers instead of the route (never the store)
		a.mediaType,       // mw_mediatype.go    415 unsupported_media_type, 413 payload_too_large
		a.strict,          // mw_strict.go       the OpenAPI document's findings, for validation to list
	}
}

// serve is the path of every request but /__admin/'s, which the server sends to the admin
// surface (mockserver/internal/admin) unless it is off.
func (a *API) serve(rq *request) *answer {
	if ans := runChecks(rq, a.gate); ans != nil {
		return ans
	}
	a.requestID(rq)          // mw_requestid.go  X-Request-Id
	a.identify(rq)           // mw_identify.go   the credential the request names, and its address
	fault := a.takeFault(rq) // mw_faults.go     an armed fault that matches the request, if any
	ans := faultBefore(rq, fault)
	if ans == nil {
		ans = a.surface(rq)
		ans = faultAfter(rq, fault, ans)
	}
	a.journal(rq, ans) // mw_journal.go  the request journal, the live stream and the log line
	return ans
}

// surface sends a request to the part of the server its path names: the public OpenAPI
// documents (no credentials, not rate limited: docs/protocol.md §4), the OAuth endpoints, or
// /api/v1; anything else is 404.
func (a *API) surface(rq *request) *answer {
	switch p := a.aliasV1(rq); {
	case p == "/api/v1/openapi.yaml" || p == "/api/v1/openapi.json":
		return serveOpenAPI(rq) // mw_surface.go
	case len(p) > 7 && p[:7] == "/oauth/":
		return a.serveOAuth(rq) // oauth.go
	case p == "/api/v1" || len(p) > 8 && p[:8] == "/api/v1/":
		return a.serveAPI(rq)
	}
	return rq.problem(problem.NotFound("route"))
}

// serveAPI is the path of an /api/v1 request: the checks, then the route; its answer is
// signed when the request was.
func (a *API) serveAPI(rq *request) *answer {
	ans := runChecks(rq, a.apiChecks)
	if ans == nil {
		ans = a.serveRoute(rq)
	}
	return a.signAnswer(rq, ans) // mw_signature.go
}

// serveRoute runs the route's handler and takes its answer out: a write with a data directory
// runs in a session whose changes commit with its audit event; a successful access is audited
// before its answer leaves; a write's answer waits until its changes are on disk.
func (a *API) serveRoute(rq *request) *answer {
	durable := a.beginDurable(rq)         // mw_durable.go
	ans := a.idempotent(rq, a.runHandler) // mw_idempotency.go  replay, 409, 422; or the handler (handler.go)
	audited := a.auditSuccess(rq, ans)    // mw_audit.go        the event of a successful read or write
	ans = a.awaitDurable(rq, durable, ans)
	return a.awaitAudit(rq, audited, ans)
}

// limits answers a request over the size limits (414, 431), before anything else.
func limits(rq *request) *answer { return httpcore.Limits(rq.Request) }

// health answers /healthz and /readyz (docs/mock-server.md "Health") before any other step sees
// the request: no credentials, no rate limit, no journal entry, no audit event.
func (a *API) health(rq *request) *answer { return httpcore.Health(rq.Request, a.opts.Ready) }

// runChecks runs checks in order until one answers.
func runChecks(rq *request, checks []check) *answer {
	for _, c := range checks {
		if ans := c(rq); ans != nil {
			return ans
		}
	}
	return nil
}
