package httpapi

import (
	"encoding/base64"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// adminCredentialRoutes are POST /__admin/api-keys and POST /__admin/oauth-clients.
func (a *API) adminCredentialRoutes() []route {
	return []route{
		{method: http.MethodPost, pattern: "/__admin/api-keys", handle: withBody(http.StatusCreated,
			func(_ *request, p APIKeyParams) (any, error) { return a.CreateAPIKey(p) })},
		{method: http.MethodPost, pattern: "/__admin/oauth-clients", handle: withBody(http.StatusCreated,
			func(_ *request, p OAuthClientParams) (any, error) { return a.CreateOAuthClient(p) })},
	}
}

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
func resolvePlan(errs *store.FieldErrors, name string, perMinute float64, burst, daily int) auth.Plan {
	if name == "custom" {
		if perMinute <= 0 {
			errs.Add("/ratePerMinute", "out_of_range", "must be greater than 0 for a custom plan")
		}
		if burst < 1 {
			errs.Add("/burst", "out_of_range", "must be at least 1 for a custom plan")
		}
		if daily < 0 {
			errs.Add("/daily", "out_of_range", "must be 0 (unlimited) or more")
		}
		return auth.Plan{Name: "custom", RatePerMinute: perMinute, Burst: burst, Daily: daily}
	}
	p, ok := auth.Plans[name]
	if !ok {
		errs.Add("/plan", "invalid_value", "must be one of starter, professional, enterprise, custom")
	}
	return p
}

// checkScopes records invalid scopes.
func checkScopes(errs *store.FieldErrors, scopes []string) {
	if len(scopes) == 0 {
		errs.Add("/scopes", "required", "is required")
	}
	for i, s := range scopes {
		if !slices.Contains(validScopes, s) {
			errs.Add("/scopes/"+itoa(i), "invalid_value", "must be one of "+strings.Join(validScopes, ", "))
		}
	}
}

// CreateAPIKey validates p and registers a new key.
func (a *API) CreateAPIKey(p APIKeyParams) (APIKey, error) {
	var errs store.FieldErrors
	plan := resolvePlan(&errs, p.Plan, p.RatePerMinute, p.Burst, p.Daily)
	checkScopes(&errs, p.Scopes)
	var prefixes []netip.Prefix
	for i, s := range p.AllowedIPs {
		pr, err := netip.ParsePrefix(s)
		if err != nil {
			ip, ierr := netip.ParseAddr(s)
			if ierr != nil {
				errs.Add("/allowedIps/"+itoa(i), "invalid_format", "must be a CIDR such as 10.0.0.0/8 or an address")
				continue
			}
			pr = netip.PrefixFrom(ip, ip.BitLen())
		}
		prefixes = append(prefixes, pr.Masked())
	}
	if err := errs.Err(); err != nil {
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

// OAuthClientParams create an OAuth client through the admin surface (docs/protocol.md §12).
type OAuthClientParams struct {
	// Plan is starter, professional, enterprise, or custom (with RatePerMinute, Burst, Daily).
	Plan string `json:"plan"`
	// Scopes the client may ask for.
	Scopes []string `json:"scopes"`
	// Account names an existing account to share; empty makes a fresh, empty one.
	Account string `json:"account,omitempty"`
	// RedirectURIs are the registered redirect URIs of the authorization-code flow.
	RedirectURIs []string `json:"redirectUris,omitempty"`
	// RatePerMinute, Burst and Daily (0 = unlimited) set a custom plan's limits.
	RatePerMinute float64 `json:"ratePerMinute,omitempty"`
	Burst         int     `json:"burst,omitempty"`
	Daily         int     `json:"daily,omitempty"`
}

// OAuthClient is a created OAuth client. ClientSecret is shown only here.
type OAuthClient struct {
	ClientID     string   `json:"clientId"`
	ClientSecret string   `json:"clientSecret"`
	Account      string   `json:"account"`
	Plan         string   `json:"plan"`
	Scopes       []string `json:"scopes"`
	RedirectURIs []string `json:"redirectUris"`
}

// CreateOAuthClient validates p and registers a new OAuth client.
func (a *API) CreateOAuthClient(p OAuthClientParams) (OAuthClient, error) {
	var errs store.FieldErrors
	plan := resolvePlan(&errs, p.Plan, p.RatePerMinute, p.Burst, p.Daily)
	checkScopes(&errs, p.Scopes)
	for i, s := range p.RedirectURIs {
		u, err := url.Parse(s)
		if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" || (u.Scheme != "https" && u.Scheme != "http") {
			// (The item's pointer escapes its slash: /redirectUris~10, a slip kept for now.)
			errs.Add("/"+store.EscapePointer("redirectUris/"+itoa(i)), "invalid_format", "must be an absolute http(s) URI without a fragment")
		}
	}
	if err := errs.Err(); err != nil {
		return OAuthClient{}, err
	}
	account := p.Account
	if account == "" {
		account = a.NewAccountID()
	}
	cred := &auth.Credential{ID: a.store.IDs().New("cli", a.store.Clock().Now()), Account: account, Plan: plan, Scopes: slices.Clone(p.Scopes)}
	secret := "mcs_" + auth.RandomBase62From(a.store.IDs().Rand(), 40)
	a.store.Account(account)
	a.oauth.AddClient(cred, secret, p.RedirectURIs)
	out := OAuthClient{ClientID: cred.ID, ClientSecret: secret, Account: account, Plan: plan.Name,
		Scopes: cred.Scopes, RedirectURIs: slices.Clone(p.RedirectURIs)}
	if out.RedirectURIs == nil {
		out.RedirectURIs = []string{}
	}
	return out, nil
}
