// Package admin is the mock server's admin surface (docs/protocol.md §12, api/admin-openapi.yaml):
// /__admin/, apart from the API. Its own checks (Host, Origin, admin token), its route table
// (one file per topic), its handlers — credentials, the clock, event triggers, fixtures,
// snapshots, the audit log, the test controls' listings (mockserver/internal/controls) — the
// inspector page and its live stream. Records are made through the API's own decoders and the
// store's methods (httpapi.API.Create), so every rule applies.
package admin

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/mockserver/internal/controls"
	"github.com/medspa/medspa-go/mockserver/internal/httpapi"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// Options configure the admin surface.
type Options struct {
	// Off turns the HTTP surface off (its Go methods still work): /__admin/ is then the API's 404.
	Off bool
	// Token, when set, is the bearer token every /__admin/ request must carry.
	Token string
	// Hosts are further Host values (a name, or name:port) the admin surface answers to,
	// besides loopback names and addresses and the address a connection arrived at: the name
	// a server on a network is reached by.
	Hosts []string
	// Clock serves the admin clock endpoints (nil: none).
	Clock ClockControl
	// RestoreClock gives an account the clock setting a snapshot saved (nil st: the server's
	// clock); nil: snapshots leave clocks alone.
	RestoreClock func(account string, st *clock.State)
	// Logger receives the errors the surface cannot answer (nil: none).
	Logger *slog.Logger
}

// Surface is the admin surface: an http.Handler for /__admin/, and the Go controls of package
// mockserver, which its handlers call too.
type Surface struct {
	api   *httpapi.API
	store *store.Store
	keys  *auth.Registry
	oauth *auth.OAuth
	audit *audit.Log
	hooks *webhook.Dispatcher // deliveries, resends, what is pending for snapshots
	ctl   *controls.Controls
	opts  Options
	token *adminToken // the digest of Options.Token (nil: none)
	// snapshots keeps saved account states (UseDataDir; default: in memory).
	snapshots SnapshotStore
	// durability is the data directory (nil: none): an admin write is answered once durable.
	durability httpapi.Durability
	// router is the /__admin/ route table's, made on first use (most tests never call /__admin/).
	router func() *httpcore.Router[route]
}

// New returns the admin surface over api.
func New(api *httpapi.API, o Options) *Surface {
	s := &Surface{api: api, store: api.Store(), keys: api.Keys(), oauth: api.OAuth(), audit: api.Audit(),
		hooks: api.Webhooks(), ctl: api.Controls(), opts: o, token: newAdminToken(o.Token), snapshots: &memorySnapshots{byName: map[string][]byte{}}}
	s.router = sync.OnceValue(func() *httpcore.Router[route] {
		return httpcore.NewRouter(s.table(), func(r *route) (string, string) { return r.method, r.pattern })
	})
	s.watchStreams()
	return s
}

// UseDataDir makes admin writes wait until durable (d) and keeps named snapshots in snaps.
// Call it before the surface serves.
func (s *Surface) UseDataDir(d httpapi.Durability, snaps SnapshotStore) {
	s.durability, s.snapshots = d, snaps
}

// request is one admin request: its id, the caller's address (for the audit events of
// credential changes) and its body.
type request struct {
	*http.Request
	id   string
	addr netip.Addr
	body []byte
}

// route is one row of the admin route table.
type route struct {
	method, pattern string
	// handle answers the request: a status and a value to encode as JSON (or an answer the
	// handler made), or an error (a problem).
	handle func(rq *request) (int, any, error)
}

// Serves reports whether r is the admin surface's: under /__admin/, and the surface on.
func (s *Surface) Serves(r *http.Request) bool {
	return !s.opts.Off && strings.HasPrefix(r.URL.Path, adminPrefix)
}

// ServeHTTP serves one /__admin/ request: its answer, then the wire.
func (s *Surface) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rq := &request{Request: r}
	ans := s.serve(rq)
	if rq.id != "" {
		w.Header()["X-Request-Id"] = []string{rq.id}
	}
	httpcore.Write(w, rq.Request, ans)
}

// serve is an admin request's path: the size limits (414, 431) as on the API, then its own
// request id, guard (Host 403, Origin 403, admin token 401), routes (404, 405) and media type
// (415); no journal, no rate limit, no audit of its reads. An admin write's answer waits until
// the change is on disk (with a data directory).
func (s *Surface) serve(rq *request) *httpcore.Answer {
	if ans := httpcore.Limits(rq.Request); ans != nil {
		return ans
	}
	rq.id = s.store.IDs().New("req", s.store.Clock().Now())
	rq.addr = s.api.ClientAddr(rq.Request)
	if p := s.guard(rq.Request); p != nil {
		return rq.problem(p)
	}
	if rq.URL.Path+"/" == uiPrefix {
		return serveUI(rq) // its redirect to the page
	}
	if path.Clean(rq.URL.Path) != rq.URL.Path && rq.URL.Path != uiPrefix { // dot segments, double slashes: no route, no redirect
		return rq.problem(problem.NotFound("admin route"))
	}
	rt, p := s.router().Find(rq.Method, rq.URL.EscapedPath(), "admin route", rq.SetPathValue)
	if p == nil && rq.Method == http.MethodPost {
		p = httpcore.CheckMediaType(rq.Request)
	}
	if p != nil {
		return rq.problem(p)
	}
	body, tooBig, p := httpcore.ReadBody(rq.Request, 16*httpcore.MaxBodyBytes)
	switch {
	case p != nil:
		return rq.problem(p)
	case tooBig:
		return rq.problem(problem.New("payload_too_large", "the admin request body is too large"))
	}
	rq.body = body
	ans := s.run(rq, rt)
	if rq.Method != http.MethodGet {
		ans = s.awaitSync(rq, ans)
	}
	return ans
}

// run is the route's handler, its result encoded.
func (s *Surface) run(rq *request, rt *route) *httpcore.Answer {
	status, v, err := rt.handle(rq)
	if err != nil {
		p := httpcore.ProblemFor(err)
		if p.Status >= 500 && p.Code == "internal_error" && s.opts.Logger != nil {
			s.opts.Logger.Error("handler failed", "request_id", rq.id, "route", rt.pattern, "error_type", strconv.Quote(err.Error()))
		}
		return rq.problem(p)
	}
	switch b := v.(type) {
	case nil:
		return &httpcore.Answer{Status: status}
	case *httpcore.Answer:
		return b
	}
	out, err := json.Marshal(v)
	if err != nil {
		return rq.problem(httpcore.ProblemFor(err))
	}
	return httpcore.New(status, "application/json", out)
}

// awaitSync holds the answer of an admin write until everything changed so far is on disk
// (with a data directory): a failed or abandoned wait is 503.
func (s *Surface) awaitSync(rq *request, ans *httpcore.Answer) *httpcore.Answer {
	if s.durability == nil {
		return ans
	}
	if err := s.durability.Sync(rq.Context()); err != nil {
		if s.opts.Logger != nil {
			s.opts.Logger.Error("a change could not be made durable", "request_id", rq.id, "error", err)
		}
		return rq.problem(httpcore.NotDurable())
	}
	return ans
}

// problem is the answer of a problem document to rq.
func (rq *request) problem(p *problem.Problem) *httpcore.Answer { return httpcore.Problem(rq.id, p) }

// answered is the handler of a route that makes its answer itself.
func answered(serve func(*request) *httpcore.Answer) func(*request) (int, any, error) {
	return func(rq *request) (int, any, error) { return 0, serve(rq), nil }
}

// table is every /__admin/ route, topic by topic.
func (s *Surface) table() []route {
	return slices.Concat(
		s.credentialRoutes(), // credentials.go
		s.toolRoutes(),       // tools.go
		s.clockRoutes(),      // clock.go
		s.auditRoutes(),      // audit.go
		s.webhookRoutes(),    // webhooks.go
		s.inspectRoutes(),    // inspect.go: fault listing, stubs, event triggers, resend
		[]route{ // what does not answer one JSON value: the live stream and the inspector page's files
			{method: http.MethodGet, pattern: "/__admin/stream", handle: answered(s.serveStream)}, // stream.go
			{method: http.MethodGet, pattern: "/__admin/ui/{file...}", handle: answered(serveUI)}, // ui.go
		},
	)
}

const adminPrefix = "/__admin/"

// adminGuard checks what comes before routing on the admin surface: the Host, the Origin and
// the admin token (serve has the order).
func (s *Surface) guard(r *http.Request) *problem.Problem {
	if !s.hostAllowed(r) {
		return problem.New("host_not_allowed",
			"the admin surface answers only to a loopback host name or address, or the server's own address")
	}
	if !sameOrigin(r) {
		return problem.New("origin_not_allowed", "the admin surface is not for browsers: cross-origin requests are refused")
	}
	if s.token != nil && !isUIFile(r) && !s.token.matches(r.Header.Values("Authorization")) {
		return problem.New("unauthorized", "the admin surface needs Authorization: Bearer <admin token>").
			WithHeader("WWW-Authenticate", `Bearer realm="medspa-admin"`)
	}
	return nil
}

// hostAllowed reports whether the request's Host names this server: a loopback name or
// address ("localhost", 127.0.0.1, [::1], any port), the address the connection arrived at,
// or a host the server was told it is reached by (Options.Hosts). A page served from
// another name that resolves to this machine (DNS rebinding) carries that name, and is refused.
func (s *Surface) hostAllowed(r *http.Request) bool {
	host := r.Host
	if host == "" {
		return false // HTTP/1.1 requires one; an HTTP/1.0 request without it names nothing
	}
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.TrimSuffix(strings.TrimPrefix(name, "["), "]")
	if wire.IsLoopbackHost(name) {
		return true
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if ap, err := netip.ParseAddrPort(local.String()); err == nil {
			if ip, err := netip.ParseAddr(name); err == nil && ip.Unmap() == ap.Addr().Unmap() {
				return true
			}
		}
	}
	return slices.ContainsFunc(s.opts.Hosts, func(h string) bool {
		return strings.EqualFold(h, host) || strings.EqualFold(h, name)
	})
}

// sameOrigin reports whether the request carries no Origin (test code: curl, an SDK, a test
// runner) or exactly the server's own origin: scheme and the Host the request was sent to.
// "null" (sandboxed frames, file: pages, some redirects) is never this server.
func sameOrigin(r *http.Request) bool {
	origins := r.Header.Values("Origin")
	if len(origins) == 0 {
		return true
	}
	if len(origins) != 1 {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return strings.EqualFold(origins[0], scheme+"://"+r.Host)
}

// adminToken is the admin surface's bearer token, kept as its SHA-256 digest: comparing
// digests in constant time says nothing about the token's length or content.
type adminToken [sha256.Size]byte

func newAdminToken(token string) *adminToken {
	if token == "" {
		return nil
	}
	d := adminToken(sha256.Sum256([]byte(token)))
	return &d
}

// matches reports whether the Authorization values are exactly one "Bearer <token>".
func (t *adminToken) matches(values []string) bool {
	if len(values) != 1 {
		return false
	}
	scheme, secret, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	d := sha256.Sum256([]byte(secret))
	return subtle.ConstantTimeCompare(d[:], t[:]) == 1
}

// withBody is the handler of an admin route that takes a JSON body: the body decoded into B
// (strictly, decodeAdmin), then do, whose result is the answer's body (nil: none).
func withBody[B any](status int, do func(rq *request, b B) (any, error)) func(rq *request) (int, any, error) {
	return func(rq *request) (int, any, error) {
		var b B
		if err := decodeAdmin(rq, &b); err != nil {
			return 0, nil, err
		}
		v, err := do(rq, b)
		return status, v, err
	}
}

// accountBody is an admin body that names an account.
type accountBody struct {
	Account string `json:"account"`
}

// decodeAdmin decodes an admin body strictly (unknown fields are errors; a member of the wrong
// JSON type is 422 naming it, as on the API); an empty body is {}.
func decodeAdmin(rq *request, dst any) error {
	if len(strings.TrimSpace(string(rq.body))) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(rq.body)))
	dec.DisallowUnknownFields()
	dec.UseNumber() // free-form members (fixture items) keep their numbers exact
	if err := dec.Decode(dst); err != nil {
		if strings.HasPrefix(err.Error(), "json: unknown field") {
			name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return problem.Field("/"+name, "unknown_field", "is not a field of this request")
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return problem.Validation([]problem.FieldError{{Pointer: "/" + strings.ReplaceAll(te.Field, ".", "/"),
				Code: "invalid_value", Detail: "must be a JSON " + jsonTypeName(te.Type.Kind())}})
		}
		return problem.New("malformed_json", "the request body is not a valid JSON object of the expected shape")
	}
	return nil
}

// jsonTypeName names the JSON type a Go kind decodes from.
func jsonTypeName(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return "number"
}

// Reset empties one account's data (or every account's when account is ""), and disarms its
// stubs; keys survive.
func (s *Surface) Reset(account string) error {
	if account == "" {
		s.ctl.Stubs.Clear("")
		for _, acct := range s.store.Accounts() {
			acct.Reset()
		}
		return nil
	}
	acct, ok := s.store.LookupAccount(account)
	if !ok {
		return problem.NotFound("account")
	}
	acct.Reset()
	s.ctl.Stubs.Clear(account)
	return nil
}
