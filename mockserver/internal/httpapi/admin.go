package httpapi

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// APIKeyParams create an API key through the admin surface (docs/protocol.md §12).
type APIKeyParams struct {
	// Plan is starter, professional, enterprise, or custom (with RatePerMinute, Burst, Daily).
	Plan string `json:"plan"`
	// Scopes such as "patients:read", "billing:write" or "*".
	Scopes []string `json:"scopes"`
	// Account names an existing account to share; empty makes a fresh, empty one.
	Account string `json:"account,omitempty"`
	// AllowedIPs is a CIDR allowlist (IPv4 and IPv6); empty allows every address.
	AllowedIPs []string `json:"allowedIps,omitempty"`
	// SigningRequired demands RFC 9421 request signatures.
	SigningRequired bool `json:"signingRequired,omitempty"`
	// ExpiresAt ends the key (on the server clock).
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
	// RatePerMinute, Burst and Daily (0 = unlimited) set a custom plan's limits.
	RatePerMinute float64 `json:"ratePerMinute,omitempty"`
	Burst         int     `json:"burst,omitempty"`
	Daily         int     `json:"daily,omitempty"`
}

// APIKey is a created key. Key and SigningSecret are shown only here.
type APIKey struct {
	ID              string     `json:"id"`
	Key             string     `json:"key"`
	Account         string     `json:"account"`
	SigningSecret   string     `json:"signingSecret"`
	Plan            string     `json:"plan"`
	Scopes          []string   `json:"scopes"`
	AllowedIPs      []string   `json:"allowedIps"`
	SigningRequired bool       `json:"signingRequired"`
	ExpiresAt       *time.Time `json:"expiresAt"`
	RatePerMinute   float64    `json:"ratePerMinute"`
	Burst           int        `json:"burst"`
	Daily           int        `json:"daily"`
}

// validScopes are the scopes of docs/protocol.md §5.
var validScopes = func() []string {
	s := []string{"*", "reports:read"}
	for _, area := range []string{"patients", "appointments", "billing", "inventory", "webhooks"} {
		s = append(s, area+":read", area+":write")
	}
	return s
}()

// NewAccountID returns a fresh account id.
func (a *API) NewAccountID() string { return a.store.IDs().New("acct", a.store.Clock().Now()) }

// resolvePlan validates a plan name and custom limits, recording errors in f.
func resolvePlan(f *form, name string, perMinute float64, burst, daily int) auth.Plan {
	if name == "custom" {
		if perMinute <= 0 {
			f.fail("ratePerMinute", "out_of_range", "must be greater than 0 for a custom plan")
		}
		if burst < 1 {
			f.fail("burst", "out_of_range", "must be at least 1 for a custom plan")
		}
		if daily < 0 {
			f.fail("daily", "out_of_range", "must be 0 (unlimited) or more")
		}
		return auth.Plan{Name: "custom", RatePerMinute: perMinute, Burst: burst, Daily: daily}
	}
	p, ok := auth.Plans[name]
	if !ok {
		f.fail("plan", "invalid_value", "must be one of starter, professional, enterprise, custom")
	}
	return p
}

// checkScopes records invalid scopes.
func checkScopes(f *form, scopes []string) {
	if len(scopes) == 0 {
		f.fail("scopes", "required", "is required")
	}
	for i, s := range scopes {
		if !slices.Contains(validScopes, s) {
			f.failItem("scopes", i, "invalid_value", "must be one of "+strings.Join(validScopes, ", "))
		}
	}
}

// CreateAPIKey validates p and registers a new key.
func (a *API) CreateAPIKey(p APIKeyParams) (APIKey, error) {
	f := &form{obj: map[string]json.RawMessage{}, errs: &[]problem.FieldError{}}
	plan := resolvePlan(f, p.Plan, p.RatePerMinute, p.Burst, p.Daily)
	checkScopes(f, p.Scopes)
	var prefixes []netip.Prefix
	for i, s := range p.AllowedIPs {
		pr, err := netip.ParsePrefix(s)
		if err != nil {
			ip, ierr := netip.ParseAddr(s)
			if ierr != nil {
				f.failItem("allowedIps", i, "invalid_format", "must be a CIDR such as 10.0.0.0/8 or an address")
				continue
			}
			pr = netip.PrefixFrom(ip, ip.BitLen())
		}
		prefixes = append(prefixes, pr.Masked())
	}
	if err := f.done(); err != nil {
		return APIKey{}, err
	}
	account := p.Account
	if account == "" {
		account = a.NewAccountID()
	}
	secret := "msk_test_" + auth.RandomBase62From(a.store.IDs().Rand(), 32)
	signing := a.newSigningSecret()
	cred := &auth.Credential{
		ID: a.store.IDs().New("key", a.store.Clock().Now()), Account: account, Plan: plan, Scopes: slices.Clone(p.Scopes),
		AllowedIPs: prefixes, SigningRequired: p.SigningRequired, SigningSecret: signing,
	}
	cred.SigningKey, _ = base64.RawURLEncoding.DecodeString(strings.TrimPrefix(signing, "mss_"))
	if p.ExpiresAt != nil {
		cred.ExpiresAt = p.ExpiresAt.UTC()
	}
	a.store.Account(account) // exists from now on, empty
	a.keys.Add(secret, cred)
	out := APIKey{
		ID: cred.ID, Key: secret, Account: account, SigningSecret: signing, Plan: plan.Name, Scopes: cred.Scopes,
		AllowedIPs: p.AllowedIPs, SigningRequired: p.SigningRequired, ExpiresAt: p.ExpiresAt,
		RatePerMinute: plan.RatePerMinute, Burst: plan.Burst, Daily: plan.Daily,
	}
	if out.AllowedIPs == nil {
		out.AllowedIPs = []string{}
	}
	return out, nil
}

// newSigningSecret returns mss_<base64url of 32 random bytes> (seeded servers: reproducible).
func (a *API) newSigningSecret() string {
	b := make([]byte, 32)
	_, _ = io.ReadFull(a.store.IDs().Rand(), b)
	return "mss_" + base64.RawURLEncoding.EncodeToString(b)
}

// Reset empties one account's data (or every account's when account is ""); keys survive.
func (a *API) Reset(account string) error {
	if account == "" {
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
	return nil
}

// AdminHandler serves /__admin/ (docs/protocol.md §12): JSON in, JSON or problem+json out.
func (a *API) AdminHandler() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern string, h func(rq *request) (int, any, error)) {
		rt := route{pattern: pattern, handle: h}
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			rq := &request{Request: r, id: a.store.IDs().New("req", a.store.Clock().Now())}
			body, err := readAdminBody(r)
			if err != nil {
				problem.Write(w, rq.id, problem.As(err))
				return
			}
			rq.body = body
			w.Header().Set("X-Request-Id", rq.id)
			a.respond(w, rq, rt)
		})
	}
	handle("POST /__admin/api-keys", func(rq *request) (int, any, error) {
		var p APIKeyParams
		if err := decodeAdmin(rq, &p); err != nil {
			return 0, nil, err
		}
		k, err := a.CreateAPIKey(p)
		return http.StatusCreated, k, err
	})
	handle("POST /__admin/reset", func(rq *request) (int, any, error) {
		var p struct {
			Account string `json:"account"`
		}
		if err := decodeAdmin(rq, &p); err != nil {
			return 0, nil, err
		}
		if err := a.Reset(p.Account); err != nil {
			return 0, nil, err
		}
		return http.StatusNoContent, nil, nil
	})
	for _, extra := range append(a.toolRoutes(), a.adminRoutes()...) {
		handle(extra.method+" "+extra.pattern, extra.handle)
	}
	mux.HandleFunc("/__admin/", func(w http.ResponseWriter, r *http.Request) {
		problem.Write(w, "", problem.NotFound("admin route"))
	})
	return mux
}

// adminRoutes are the admin endpoints added by other files (clock, faults, fixtures, …):
// one line per file.
func (a *API) adminRoutes() []route {
	var rs []route
	rs = append(rs, a.adminSecurityRoutes()...)
	rs = append(rs, a.webhookAdminRoutes()...)
	return rs
}

func readAdminBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	var b []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Body.Read(buf)
		b = append(b, buf[:n]...)
		if len(b) > 16*MaxBodyBytes {
			return nil, problem.New(http.StatusRequestEntityTooLarge, "payload_too_large", "the admin request body is too large")
		}
		if err != nil {
			return b, nil
		}
	}
}

// decodeAdmin decodes an admin body strictly (unknown fields are errors); an empty body is {}.
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
		return problem.New(http.StatusBadRequest, "malformed_json", "the request body is not a valid JSON object of the expected shape")
	}
	return nil
}
