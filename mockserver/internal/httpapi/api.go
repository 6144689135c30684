// Package httpapi is the mock server's HTTP layer: the check pipeline of the protocol (docs/protocol.md §4
// "Order of checks"), strict decoding and validation, and thin handlers over the store.
package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path"
	"strings"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// MaxBodyBytes is the request body limit (1 MiB).
const MaxBodyBytes = 1 << 20

// Options configure the API.
type Options struct {
	// Logger receives one metadata-only line per request (nil: none).
	Logger *slog.Logger
	// TrustProxy makes X-Forwarded-For the caller address (for IP allowlists).
	TrustProxy bool
	// Strict validates every /api/v1 request against the OpenAPI document before its handler.
	Strict bool
	// JournalSize bounds the request journal per account (0: DefaultJournalSize; < 0: off).
	JournalSize int
	// AccessTokenTTL and RefreshTokenTTL are the OAuth token lifetimes (0: 1 h and 30 days).
	AccessTokenTTL, RefreshTokenTTL time.Duration
	// Clock serves the admin clock endpoints (nil: none).
	Clock ClockControl
	// Webhooks delivers events and checks endpoint URLs (default: one with the default policy).
	Webhooks *webhook.Dispatcher
}

// API serves /api/v1 (and its /v1 alias) and /oauth.
type API struct {
	store *store.Store
	keys  *auth.Registry
	opts  Options
	mux   *http.ServeMux
	sec   *security
	tools *tools
}

// New returns the API over st and keys.
func New(st *store.Store, keys *auth.Registry, opts Options) *API {
	if opts.Webhooks == nil {
		opts.Webhooks = webhook.New(st, webhook.Options{})
	}
	a := &API{store: st, keys: keys, opts: opts, mux: http.NewServeMux(), tools: newTools(opts.JournalSize)}
	a.sec = newSecurity(a)
	for _, rt := range a.routes() {
		a.mux.Handle(rt.method+" "+rt.pattern, a.handler(rt))
	}
	// Everything no route matches lands here, so a request is routed once (a lookup first,
	// then ServeHTTP, routed it twice).
	a.mux.Handle(unroutedPattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		problem.Write(w, RequestID(r), a.unrouted(r))
	}))
	return a
}

// Store returns the API's store.
func (a *API) Store() *store.Store { return a.store }

// Keys returns the credential registry.
func (a *API) Keys() *auth.Registry { return a.keys }

// request is one API request as the handlers see it.
type request struct {
	*http.Request
	id      string
	started time.Time
	cred    *auth.Credential
	acct    *store.Account
	body    []byte // read once, at most MaxBodyBytes+1 bytes
	tooBig  bool
	addr    netip.Addr
	// audit is for the audit log: the resource touched.
	audit auditInfo
	// signed is set when the request's signature verified: its answer is signed too.
	signed *signedRequest
	// backdate is the createdAt a fixture asks for (zero: now); handlers pass it to the store.
	backdate time.Time
}

type auditInfo struct {
	action, resourceType, resourceID string
}

type requestKey struct{}

func requestFrom(ctx context.Context) *request {
	rq, _ := ctx.Value(requestKey{}).(*request)
	return rq
}

// RequestID returns the request id assigned to r by ServeHTTP ("" outside it).
func RequestID(r *http.Request) string {
	if rq := requestFrom(r.Context()); rq != nil {
		return rq.id
	}
	return ""
}

// ServeHTTP runs the protocol's order of checks: credentials → IP allowlist → signature → rate
// limit → route → scope → media type and size → JSON → validation → rules.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rq := &request{id: a.store.IDs().New("req", a.store.Clock().Now()), started: time.Now()}
	w.Header().Set("X-Request-Id", rq.id)
	if rest, ok := strings.CutPrefix(r.URL.Path, "/v1/"); ok || r.URL.Path == "/v1" {
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/api/v1/" + rest
		r2.URL.RawPath = ""
		r = r2
	}
	rq.addr = a.clientAddr(r)
	r = r.WithContext(context.WithValue(r.Context(), requestKey{}, rq))
	rq.Request = r

	p := r.URL.Path
	switch {
	case p == "/api/v1/openapi.yaml" || p == "/api/v1/openapi.json":
		a.serveOpenAPI(w, r)
	case strings.HasPrefix(p, "/oauth/"):
		a.sec.serveOAuth(w, rq)
	case p == "/api/v1" || strings.HasPrefix(p, "/api/v1/"):
		a.serveAPI(w, rq)
	default:
		problem.Write(w, rq.id, problem.NotFound("route"))
	}
}

func (a *API) serveAPI(w http.ResponseWriter, rq *request) {
	r := rq.Request
	cred, p := a.authenticate(rq)
	if p != nil {
		a.sec.deny(rq, p)
		problem.Write(w, rq.id, p)
		return
	}
	rq.cred = cred
	rq.acct = a.store.Account(cred.Account)
	if !cred.AllowsIP(rq.addr) {
		p := problem.New(http.StatusForbidden, "ip_not_allowed", "the caller's address is not in the credential's allowlist")
		a.sec.deny(rq, p)
		problem.Write(w, rq.id, p)
		return
	}
	if r.Body != nil && r.Body != http.NoBody {
		b, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
		if err != nil {
			problem.Write(w, rq.id, problem.New(http.StatusBadRequest, "malformed_json", "the request body could not be read"))
			return
		}
		rq.body, rq.tooBig = b, len(b) > MaxBodyBytes
	}
	if p := a.sec.verifySignature(rq); p != nil {
		a.sec.deny(rq, p)
		problem.Write(w, rq.id, p)
		return
	}
	sw := a.sec.signingWriter(w, rq)
	defer sw.finish()
	w = sw
	if p := a.sec.rateLimit(w, rq); p != nil {
		problem.Write(w, rq.id, p)
		return
	}
	// A path that is not clean (dot segments, double slashes) names no resource: ServeMux would
	// answer it with an HTML redirect, the protocol wants a problem.
	if path.Clean(r.URL.Path) != r.URL.Path {
		problem.Write(w, rq.id, problem.NotFound("route"))
		return
	}
	a.mux.ServeHTTP(w, r)
}

// unroutedPattern is the mux's catch-all.
const unroutedPattern = "/"

// routed reports whether a route (not the catch-all) matches r.
func (a *API) routed(r *http.Request) bool {
	_, pattern := a.mux.Handler(r)
	return pattern != "" && pattern != unroutedPattern
}

// unrouted answers 405 with Allow when the path exists under other methods, else 404.
func (a *API) unrouted(r *http.Request) *problem.Problem {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if a.routed(probe) {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		return problem.NotFound("route")
	}
	return problem.New(http.StatusMethodNotAllowed, "method_not_allowed", r.Method+" is not allowed here").
		WithHeader("Allow", strings.Join(allow, ", "))
}

// authenticate resolves the bearer credential.
func (a *API) authenticate(rq *request) (*auth.Credential, *problem.Problem) {
	h := rq.Header.Values("Authorization")
	if len(h) != 1 {
		return nil, unauthorized()
	}
	scheme, secret, ok := strings.Cut(h[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || secret == "" || strings.ContainsAny(secret, " \t") {
		return nil, unauthorized()
	}
	if c, p := a.sec.authenticateToken(rq, secret); c != nil || p != nil {
		return c, p
	}
	c, ok := a.keys.Lookup(secret)
	if !ok {
		return nil, unauthorized()
	}
	if !c.ExpiresAt.IsZero() && !a.store.Account(c.Account).Clock().Now().Before(c.ExpiresAt) {
		return nil, unauthorized()
	}
	return c, nil
}

// unauthorized is the 401 of missing or unknown credentials (made only when needed).
func unauthorized() *problem.Problem {
	return problem.New(http.StatusUnauthorized, "unauthorized", "missing or unknown credentials").
		WithHeader("WWW-Authenticate", `Bearer realm="medspa"`)
}

// clientAddr is the peer address, or the last X-Forwarded-For hop when the proxy is trusted.
func (a *API) clientAddr(r *http.Request) netip.Addr {
	if a.opts.TrustProxy {
		// The trusted proxy appends the address it saw; earlier hops come from the client and
		// could be forged to pass an allowlist, so only the last one counts.
		if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
			hops := strings.Split(xff[len(xff)-1], ",")
			if ip, err := netip.ParseAddr(strings.TrimSpace(hops[len(hops)-1])); err == nil {
				return ip.Unmap()
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return ip.Unmap()
}
