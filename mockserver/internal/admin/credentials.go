package admin

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// credentialRoutes are POST /__admin/api-keys, DELETE /__admin/api-keys/{id}, POST
// /__admin/api-keys/{id}/rotate and POST /__admin/oauth-clients.
func (s *Surface) credentialRoutes() []route {
	return []route{
		{method: http.MethodPost, pattern: "/__admin/api-keys", handle: withBody(http.StatusCreated,
			func(_ *request, p APIKeyParams) (any, error) { return s.CreateAPIKey(p) })},
		{method: http.MethodDelete, pattern: "/__admin/api-keys/{id}", handle: func(rq *request) (int, any, error) {
			return http.StatusNoContent, nil, s.revokeAPIKey(rq.PathValue("id"), rq)
		}},
		{method: http.MethodPost, pattern: "/__admin/api-keys/{id}/rotate", handle: withBody(http.StatusOK,
			func(rq *request, p rotateBody) (any, error) {
				grace, err := p.grace()
				if err != nil {
					return nil, err
				}
				return s.rotateAPIKey(rq.PathValue("id"), grace, rq)
			})},
		{method: http.MethodPost, pattern: "/__admin/oauth-clients", handle: withBody(http.StatusCreated,
			func(_ *request, p OAuthClientParams) (any, error) { return s.CreateOAuthClient(p) })},
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
	// Key is the bearer secret to register (msk_test_ and 32 base62), for keys known before
	// the server starts; empty: a generated one. Go only: the admin body cannot set it.
	Key string `json:"-"`
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

// newAccountID returns a fresh account id.
func (s *Surface) newAccountID() string { return s.store.IDs().New("acct", s.store.Clock().Now()) }

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
func (s *Surface) checkScopes(errs *store.FieldErrors, scopes []string) {
	if len(scopes) == 0 {
		errs.Add("/scopes", "required", "is required")
	}
	for i, sc := range scopes {
		if !slices.Contains(s.api.Scopes(), sc) {
			errs.Add("/scopes/"+strconv.Itoa(i), "invalid_value", "must be one of "+strings.Join(s.api.Scopes(), ", "))
		}
	}
}

// accountName is the shape of an account a credential may name: the generated acct_<hex>, or
// the caller's own name of letters, digits, "_" and "-", at most 64, a letter or digit first.
// Account ids become keys of maps and files (an audit file per account, the reserved
// "_anonymous"): no dots, slashes, blanks, control characters or reserved names.
var accountName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// checkAccountName records an account a credential may not name ("": a fresh one, fine).
func checkAccountName(errs *store.FieldErrors, account string) {
	if account != "" && !accountName.MatchString(account) {
		errs.Add("/account", "invalid_format", "must be letters, digits, _ and -, at most 64, starting with a letter or digit")
	}
}

// CreateAPIKey validates p and registers a new key.
func (s *Surface) CreateAPIKey(p APIKeyParams) (APIKey, error) {
	var errs store.FieldErrors
	plan := resolvePlan(&errs, p.Plan, p.RatePerMinute, p.Burst, p.Daily)
	s.checkScopes(&errs, p.Scopes)
	checkAccountName(&errs, p.Account)
	if p.Key != "" {
		s.checkKnownKey(&errs, p.Key)
	}
	var prefixes []netip.Prefix
	for i, s := range p.AllowedIPs {
		pr, err := netip.ParsePrefix(s)
		if err != nil {
			ip, ierr := netip.ParseAddr(s)
			if ierr != nil {
				errs.Add("/allowedIps/"+strconv.Itoa(i), "invalid_format", "must be a CIDR such as 10.0.0.0/8 or an address")
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
		account = s.newAccountID()
	}
	secret := p.Key
	if secret == "" {
		secret = s.newAPIKeySecret()
	}
	signing := s.newSigningSecret()
	cred := &auth.Credential{
		ID: s.store.IDs().New("key", s.store.Clock().Now()), Account: account, Plan: plan, Scopes: slices.Clone(p.Scopes),
		AllowedIPs: prefixes, SigningRequired: p.SigningRequired, SigningSecret: signing,
	}
	cred.SigningKey, _ = base64.RawURLEncoding.DecodeString(strings.TrimPrefix(signing, "mss_"))
	if p.ExpiresAt != nil {
		cred.ExpiresAt = p.ExpiresAt.UTC()
		cred.RealExpiresAt = auth.RealDeadline(max(cred.ExpiresAt.Sub(s.accountNow(account)), 0))
	}
	s.store.Account(account) // exists from now on, empty
	s.keys.Add(secret, cred)
	out := apiKeyOf(cred, secret)
	out.AllowedIPs, out.ExpiresAt = p.AllowedIPs, p.ExpiresAt // as the caller wrote them
	if out.AllowedIPs == nil {
		out.AllowedIPs = []string{}
	}
	return out, nil
}

// checkKnownKey records what is wrong with a bearer secret a caller chose (APIKeyParams.Key):
// not the shape of a test key, or one already registered (a replaced secret still counts).
func (s *Surface) checkKnownKey(errs *store.FieldErrors, key string) {
	if !wire.IsAPIKey(key) {
		errs.Add("/key", "invalid_format", "must be msk_test_ followed by 32 letters and digits")
	} else if _, taken := s.keys.Lookup(key, func(string) time.Time { return time.Time{} }); taken {
		errs.Add("/key", "invalid_value", "is already registered")
	}
}

// apiKeyOf is the admin surface's view of a key with the bearer secret it was given.
func apiKeyOf(c *auth.Credential, bearer string) APIKey {
	k := APIKey{
		ID: c.ID, Key: bearer, Account: c.Account, SigningSecret: c.SigningSecret, Plan: c.Plan.Name, Scopes: c.Scopes,
		AllowedIPs: []string{}, SigningRequired: c.SigningRequired,
		RatePerMinute: c.Plan.RatePerMinute, Burst: c.Plan.Burst, Daily: c.Plan.Daily,
	}
	for _, p := range c.AllowedIPs {
		k.AllowedIPs = append(k.AllowedIPs, p.String())
	}
	if !c.ExpiresAt.IsZero() {
		t := c.ExpiresAt
		k.ExpiresAt = &t
	}
	return k
}

// newAPIKeySecret returns a fresh bearer secret, msk_test_<32 base62> (seeded servers:
// reproducible).
func (s *Surface) newAPIKeySecret() string {
	return "msk_test_" + auth.RandomBase62From(s.store.IDs().Rand(), 32)
}

// MaxKeyGrace is the longest a replaced secret keeps working after a rotation (docs/protocol.md §12).
const MaxKeyGrace = 24 * time.Hour

// APIKeyRotation is a key with its new bearer secret (Key) and when the secret it replaced
// stops working (nil: it already has).
type APIKeyRotation struct {
	APIKey
	PreviousKeyExpiresAt *time.Time `json:"previousKeyExpiresAt"`
}

// rotateBody is the body of POST /__admin/api-keys/{id}/rotate.
type rotateBody struct {
	GraceSeconds json.RawMessage `json:"graceSeconds"`
}

// grace is the body's grace period: an integer number of seconds, 0 to 86,400 (default 0).
func (b rotateBody) grace() (time.Duration, error) {
	if len(b.GraceSeconds) == 0 || string(b.GraceSeconds) == "null" {
		return 0, nil
	}
	n, err := strconv.ParseInt(string(b.GraceSeconds), 10, 64)
	if err != nil {
		if _, ferr := strconv.ParseFloat(string(b.GraceSeconds), 64); ferr == nil && !strings.ContainsAny(string(b.GraceSeconds), ".eE") {
			return 0, graceOutOfRange() // an integer beyond int64
		}
		return 0, store.InvalidField("/graceSeconds", "invalid_value", "must be an integer number of seconds")
	}
	if n < 0 || n > int64(MaxKeyGrace/time.Second) {
		return 0, graceOutOfRange()
	}
	return time.Duration(n) * time.Second, nil
}

func graceOutOfRange() error {
	return store.InvalidField("/graceSeconds", "out_of_range", "must be between 0 and 86400")
}

// RotateAPIKey gives the key a new bearer secret: same id, account, scopes, limits, signing
// secret and expiry. The old secret keeps working for grace (0 to 24 h, on the key's account
// clock; 0: it stops at once); a secret an earlier rotation left working stops at once. An
// unknown or revoked key is 404.
func (s *Surface) RotateAPIKey(id string, grace time.Duration) (APIKeyRotation, error) {
	return s.rotateAPIKey(id, grace, nil)
}

func (s *Surface) rotateAPIKey(id string, grace time.Duration, rq *request) (APIKeyRotation, error) {
	if grace < 0 || grace > MaxKeyGrace {
		return APIKeyRotation{}, graceOutOfRange()
	}
	if !wire.IsID(id, "key") { // the shape first: a malformed id never reaches the registry
		return APIKeyRotation{}, problem.NotFound("API key")
	}
	c, ok := s.keys.ByID(id)
	if !ok {
		return APIKeyRotation{}, problem.NotFound("API key")
	}
	var retires, retiresReal time.Time
	if grace > 0 {
		retires = ceilSecond(s.accountNow(c.Account).Add(grace)) // never less than asked
		retiresReal = auth.RealDeadline(grace)
	}
	bearer := s.newAPIKeySecret()
	if c, ok = s.keys.Rotate(id, bearer, retires, retiresReal); !ok {
		return APIKeyRotation{}, problem.NotFound("API key") // revoked meanwhile
	}
	if err := s.auditAdmin(c.Account, rq, "update", id); err != nil {
		return APIKeyRotation{}, err
	}
	out := APIKeyRotation{APIKey: apiKeyOf(c, bearer)}
	if !retires.IsZero() {
		out.PreviousKeyExpiresAt = &retires
	}
	return out, nil
}

// RevokeAPIKey ends the key at once, every secret of it: its next request is 401. Its account
// and records stay. An unknown or already revoked key is 404.
func (s *Surface) RevokeAPIKey(id string) error { return s.revokeAPIKey(id, nil) }

func (s *Surface) revokeAPIKey(id string, rq *request) error {
	if !wire.IsID(id, "key") { // the shape first: a malformed id never reaches the registry
		return problem.NotFound("API key")
	}
	c, ok := s.keys.ByID(id)
	if !ok || !s.keys.Revoke(id) {
		return problem.NotFound("API key")
	}
	return s.auditAdmin(c.Account, rq, "delete", id)
}

// ceilSecond rounds t up to a whole second (the protocol's times have no fractions).
func ceilSecond(t time.Time) time.Time {
	if s := t.Truncate(time.Second); !s.Equal(t) {
		return s.Add(time.Second)
	}
	return t
}

// newSigningSecret returns mss_<base64url of 32 random bytes> (seeded servers: reproducible).
func (s *Surface) newSigningSecret() string {
	b := make([]byte, 32)
	_, _ = io.ReadFull(s.store.IDs().Rand(), b)
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
func (s *Surface) CreateOAuthClient(p OAuthClientParams) (OAuthClient, error) {
	var errs store.FieldErrors
	plan := resolvePlan(&errs, p.Plan, p.RatePerMinute, p.Burst, p.Daily)
	s.checkScopes(&errs, p.Scopes)
	checkAccountName(&errs, p.Account)
	for i, s := range p.RedirectURIs {
		u, err := url.Parse(s)
		if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" || (u.Scheme != "https" && u.Scheme != "http") {
			errs.Add("/redirectUris/"+strconv.Itoa(i), "invalid_format", "must be an absolute http(s) URI without a fragment")
		}
	}
	if err := errs.Err(); err != nil {
		return OAuthClient{}, err
	}
	account := p.Account
	if account == "" {
		account = s.newAccountID()
	}
	cred := &auth.Credential{ID: s.store.IDs().New("cli", s.store.Clock().Now()), Account: account, Plan: plan, Scopes: slices.Clone(p.Scopes)}
	secret := "mcs_" + auth.RandomBase62From(s.store.IDs().Rand(), 40)
	s.store.Account(account)
	s.oauth.AddClient(cred, secret, p.RedirectURIs)
	out := OAuthClient{ClientID: cred.ID, ClientSecret: secret, Account: account, Plan: plan.Name,
		Scopes: cred.Scopes, RedirectURIs: slices.Clone(p.RedirectURIs)}
	if out.RedirectURIs == nil {
		out.RedirectURIs = []string{}
	}
	return out, nil
}

// accountNow is the time on an account's clock.
func (s *Surface) accountNow(account string) time.Time { return s.store.Account(account).Clock().Now() }
