package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// adminSurface serves /__admin/ (docs/protocol.md §12) apart from the API: its own request id,
// guard (Host 403, Origin 403, admin token 401), routes (404, 405) and media type (415); no
// journal, no rate limit, no audit of its reads. An admin write's answer waits until the
// change is on disk (with a data directory).
func (a *API) adminSurface(rq *request) *answer {
	if a.opts.NoAdmin || !strings.HasPrefix(rq.URL.Path, adminPrefix) {
		return nil
	}
	rq.id = a.newRequestID(a.store.Clock().Now())
	rq.header["X-Request-Id"] = []string{rq.id}
	rq.addr = a.clientAddr(rq.Request)
	if p := a.adminGuard(rq.Request); p != nil {
		return rq.problem(p)
	}
	if rq.URL.Path+"/" == uiPrefix {
		return serveUI(rq) // its redirect to the page
	}
	if path.Clean(rq.URL.Path) != rq.URL.Path && rq.URL.Path != uiPrefix { // dot segments, double slashes: no route, no redirect
		return rq.problem(problem.NotFound("admin route"))
	}
	if ans := a.adminRouter().find(rq, "admin route"); ans != nil {
		return ans
	}
	if rq.Method == http.MethodPost {
		if p := checkMediaType(rq.Request); p != nil {
			return rq.problem(p)
		}
	}
	body, err := readAdminBody(rq.Request)
	if err != nil {
		return rq.problem(problemFor(err))
	}
	rq.body = body
	ans := a.runHandler(rq)
	if rq.Method != http.MethodGet {
		ans = a.awaitSync(rq, ans)
	}
	return ans
}

// answered is the handler of a route that makes its answer itself.
func answered(serve func(*request) *answer) func(*request) (int, any, error) {
	return func(rq *request) (int, any, error) { return 0, serve(rq), nil }
}

// adminTable is every /__admin/ route, topic by topic.
func (a *API) adminTable() []route {
	return slices.Concat(
		a.adminCredentialRoutes(), // admin_credentials.go
		a.adminToolRoutes(),       // admin_tools.go
		a.adminClockRoutes(),      // admin_clock.go
		a.adminAuditRoutes(),      // admin_audit.go
		a.adminWebhookRoutes(),    // admin_webhooks.go
		a.adminInspectRoutes(),    // admin_inspect.go: fault listing, stubs, event triggers, resend
		[]route{ // what does not answer one JSON value: the live stream and the inspector page's files
			{method: http.MethodGet, pattern: "/__admin/stream", handle: answered(a.serveStream)}, // admin_stream.go
			{method: http.MethodGet, pattern: "/__admin/ui/{file...}", handle: answered(serveUI)}, // admin_ui.go
		},
	)
}

const adminPrefix = "/__admin/"

// adminGuard checks what comes before routing on the admin surface: the Host, the Origin and
// the admin token (adminHandler has the order and the reasons).
func (a *API) adminGuard(r *http.Request) *problem.Problem {
	if !a.adminHostAllowed(r) {
		return problem.New("host_not_allowed",
			"the admin surface answers only to a loopback host name or address, or the server's own address")
	}
	if !sameOrigin(r) {
		return problem.New("origin_not_allowed", "the admin surface is not for browsers: cross-origin requests are refused")
	}
	if a.adminToken != nil && !isUIFile(r) && !a.adminToken.matches(r.Header.Values("Authorization")) {
		return problem.New("unauthorized", "the admin surface needs Authorization: Bearer <admin token>").
			WithHeader("WWW-Authenticate", `Bearer realm="medspa-admin"`)
	}
	return nil
}

// adminHostAllowed reports whether the request's Host names this server: a loopback name or
// address ("localhost", 127.0.0.1, [::1], any port), the address the connection arrived at,
// or a host the server was told it is reached by (Options.AdminHosts). A page served from
// another name that resolves to this machine (DNS rebinding) carries that name, and is refused.
func (a *API) adminHostAllowed(r *http.Request) bool {
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
	return slices.ContainsFunc(a.opts.AdminHosts, func(h string) bool {
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

func readAdminBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, 16*MaxBodyBytes+1))
	switch {
	case err != nil:
		return nil, problem.New("malformed_json", "the request body could not be read")
	case len(b) > 16*MaxBodyBytes:
		return nil, problem.New("payload_too_large", "the admin request body is too large")
	}
	return b, nil
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

// Reset empties one account's data (or every account's when account is ""); keys survive.
func (a *API) Reset(account string) error {
	if account == "" {
		a.ClearStubs("")
		for _, acct := range a.store.Accounts() {
			acct.Reset()
		}
		return nil
	}
	acct, ok := a.store.LookupAccount(account)
	if !ok {
		return problem.NotFound("account")
	}
	acct.Reset()
	a.ClearStubs(account)
	return nil
}
