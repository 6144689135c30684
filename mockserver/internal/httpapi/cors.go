package httpapi

import (
	"net/http"
	"slices"
	"strings"
)

// corsAllowHeaders are the request headers a browser may send to /api/v1 cross-origin: the
// API's own (docs/protocol.md).
const corsAllowHeaders = "Authorization, Content-Type, Idempotency-Key, Signature, Signature-Input, Content-Digest, X-Request-Id"

// corsExposeHeaders are the response headers a cross-origin page may read.
const corsExposeHeaders = "X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Signature, Signature-Input, Content-Digest, Idempotency-Replayed, Location"

// cors serves browsers on the origins the server was given (Options.CORSOrigins, exact
// matches; none by default), on /api/v1 (and /v1) only — never /__admin/, /oauth or anything
// else. A preflight (OPTIONS with Access-Control-Request-Method) from an allowed origin is
// answered 204 here, without credentials; any other request from one gets
// Access-Control-Allow-Origin and goes on. Requests from other origins go on untouched: the
// browser refuses them their answer.
func (a *API) cors(rq *request) *answer {
	origin := rq.Header.Get("Origin")
	p := rq.URL.Path
	if origin == "" || len(a.opts.CORSOrigins) == 0 || !slices.Contains(a.opts.CORSOrigins, origin) ||
		!(p == "/api/v1" || p == "/v1" || strings.HasPrefix(p, "/api/v1/") || strings.HasPrefix(p, "/v1/")) {
		return nil
	}
	h := rq.header // every answer to the request carries these
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	if rq.Method == http.MethodOptions && rq.Header.Get("Access-Control-Request-Method") != "" {
		h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE")
		h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
		h.Set("Access-Control-Max-Age", "600")
		return &answer{Status: http.StatusNoContent}
	}
	h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	return nil
}
