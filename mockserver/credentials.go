package mockserver

import (
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/admin"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
)

// APIKeyParams describe an API key to create (CreateAPIKey, or the body of POST
// /__admin/api-keys; docs/protocol.md §12).
type APIKeyParams struct {
	// Plan is starter, professional, enterprise, or custom (with RatePerMinute, Burst, Daily).
	Plan string `json:"plan"`
	// Scopes such as "patients:read", "billing:write" or "*" (docs/protocol.md §5).
	Scopes []string `json:"scopes"`
	// Account names an existing account to share; empty makes a fresh, empty one.
	Account string `json:"account,omitempty"`
	// AllowedIPs is a CIDR allowlist (IPv4 and IPv6; a bare address is a /32 or /128); empty
	// allows every address.
	AllowedIPs []string `json:"allowedIps,omitempty"`
	// SigningRequired demands RFC 9421 request signatures (docs/protocol.md §6).
	SigningRequired bool `json:"signingRequired,omitempty"`
	// ExpiresAt ends the key (on its account's clock): after it, requests are 401.
	ExpiresAt *time.Time `json:"expiresAt,omitempty"`
	// RatePerMinute, Burst and Daily (0 = unlimited) set a custom plan's limits.
	RatePerMinute float64 `json:"ratePerMinute,omitempty"`
	Burst         int     `json:"burst,omitempty"`
	Daily         int     `json:"daily,omitempty"`
	// Key is the bearer secret to register (msk_test_ and 32 base62 characters), for keys a
	// test or CI job knows before the server starts (medspa-mock -api-key); empty: a generated
	// one. Only Go callers set it: the admin body cannot.
	Key string `json:"-"`
}

// APIKey is a created API key: what CreateAPIKey returns (and POST /__admin/api-keys answers).
// Key and SigningSecret are shown only here.
type APIKey struct {
	// ID is the key's public id (key_…): the actor of its audit events, the keyid of its
	// signatures.
	ID string `json:"id"`
	// Key is the bearer secret, msk_test_….
	Key string `json:"key"`
	// Account is the account the key acts on.
	Account string `json:"account"`
	// SigningSecret is the RFC 9421 HMAC secret (mss_…), for signed requests.
	SigningSecret   string     `json:"signingSecret"`
	Plan            string     `json:"plan"`
	Scopes          []string   `json:"scopes"`
	AllowedIPs      []string   `json:"allowedIps"`
	SigningRequired bool       `json:"signingRequired"`
	ExpiresAt       *time.Time `json:"expiresAt"`
	// RatePerMinute, Burst and Daily are the plan's limits (Daily 0: unlimited).
	RatePerMinute float64 `json:"ratePerMinute"`
	Burst         int     `json:"burst"`
	Daily         int     `json:"daily"`
}

// CreateAPIKey creates an API key; without Account it gets a fresh, empty account. An invalid
// p is refused with the problem POST /__admin/api-keys answers, every invalid field named.
func (s *Server) CreateAPIKey(p APIKeyParams) (APIKey, error) {
	k, err := s.admin.CreateAPIKey(admin.APIKeyParams(p))
	return APIKey(k), s.durableAfter(httpcore.AsProblem(err))
}

// RevokeAPIKey ends the key with the given id (key_…) at once, every secret of it: its next
// request is 401 unauthorized. Its account and records stay. An unknown or already revoked key
// is refused with the 404 problem DELETE /__admin/api-keys/{id} answers.
func (s *Server) RevokeAPIKey(id string) error { return httpcore.AsProblem(s.admin.RevokeAPIKey(id)) }

// APIKeyRotation is a key after RotateAPIKey: every field as before but Key, the new bearer
// secret (shown only here), and when the secret it replaced stops working.
type APIKeyRotation struct {
	APIKey
	// PreviousKeyExpiresAt is when the replaced secret stops working (on the key's account
	// clock); nil when it already has (no grace period).
	PreviousKeyExpiresAt *time.Time `json:"previousKeyExpiresAt"`
}

// RotateAPIKey gives the key a new bearer secret; its id, account, scopes, limits, signing
// secret and expiry stay. The old secret keeps working for grace (0 to 24 h, rounded up to a
// whole second, on the key's account clock; 0 ends it at once); a secret an earlier rotation
// left working ends at once, so at most two work. Both count against the key's rate limits.
// An unknown or revoked key, or a grace out of range, is refused with the problem POST
// /__admin/api-keys/{id}/rotate answers.
func (s *Server) RotateAPIKey(id string, grace time.Duration) (APIKeyRotation, error) {
	r, err := s.admin.RotateAPIKey(id, grace)
	if err != nil {
		return APIKeyRotation{}, httpcore.AsProblem(err)
	}
	return APIKeyRotation{APIKey: APIKey(r.APIKey), PreviousKeyExpiresAt: r.PreviousKeyExpiresAt}, nil
}

// OAuthClientParams describe an OAuth client to create (CreateOAuthClient, or the body of POST
// /__admin/oauth-clients; docs/protocol.md §5, §12).
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
	// ClientID is the client's id (cli_…): its rate limits and audit events count under it.
	ClientID     string   `json:"clientId"`
	ClientSecret string   `json:"clientSecret"`
	Account      string   `json:"account"`
	Plan         string   `json:"plan"`
	Scopes       []string `json:"scopes"`
	RedirectURIs []string `json:"redirectUris"`
}

// CreateOAuthClient registers an OAuth client; without Account it gets a fresh, empty account.
// An invalid p is refused with the problem POST /__admin/oauth-clients answers.
func (s *Server) CreateOAuthClient(p OAuthClientParams) (OAuthClient, error) {
	c, err := s.admin.CreateOAuthClient(admin.OAuthClientParams(p))
	return OAuthClient(c), s.durableAfter(httpcore.AsProblem(err))
}

// WithTokenLifetimes sets the OAuth access and refresh token lifetimes (defaults 1 h and 30
// days; zero keeps a default). Expiry follows the client's account clock.
func WithTokenLifetimes(access, refresh time.Duration) Option {
	return func(o *options) { o.accessTTL, o.refreshTTL = access, refresh }
}

// APIKeyAccount reports the account of an API key that would authenticate now: known, not
// revoked, not expired on the server clock.
func (s *Server) APIKeyAccount(key string) (account string, ok bool) {
	c, found := s.api.Keys().Lookup(key, s.Now)
	if !found || c.Expired(s.clock.Now()) {
		return "", false
	}
	return c.Account, true
}
