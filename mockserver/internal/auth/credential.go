// Package auth is the mock server's credential registry: API keys (and OAuth clients and
// tokens), their plans, scopes, allowlists and signing secrets.
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"
)

// Plan limits of the protocol (docs/protocol.md §7). Daily 0 means unlimited.
type Plan struct {
	Name          string  `json:"plan"`
	RatePerMinute float64 `json:"ratePerMinute"`
	Burst         int     `json:"burst"`
	Daily         int     `json:"daily"`
}

// Plans are the named plans.
var Plans = map[string]Plan{
	"starter":      {Name: "starter", RatePerMinute: 60, Burst: 100, Daily: 10000},
	"professional": {Name: "professional", RatePerMinute: 300, Burst: 500, Daily: 100000},
	"enterprise":   {Name: "enterprise", RatePerMinute: 1000, Burst: 2000, Daily: 0},
}

// Credential is what a request authenticates as: an API key, or an OAuth client's token.
type Credential struct {
	// ID is the credential's public id: key_… for API keys, the client id for OAuth clients.
	ID      string
	Account string
	Plan    Plan
	Scopes  []string
	// AllowedIPs restricts caller addresses when non-empty.
	AllowedIPs []netip.Prefix
	// SigningRequired demands RFC 9421 signatures made with SigningKey.
	SigningRequired bool
	SigningSecret   string
	SigningKey      []byte
	// ExpiresAt ends the credential (zero: never).
	ExpiresAt time.Time
}

// Allows reports whether the credential's scopes grant scope ("area:read" or "area:write"):
// "*" grants all, and write implies read.
func (c *Credential) Allows(scope string) bool {
	area, level, _ := strings.Cut(scope, ":")
	for _, s := range c.Scopes {
		if s == "*" || s == scope {
			return true
		}
		if level == "read" && s == area+":write" {
			return true
		}
	}
	return false
}

// AllowsIP reports whether addr may use the credential.
func (c *Credential) AllowsIP(addr netip.Addr) bool {
	if len(c.AllowedIPs) == 0 {
		return true
	}
	addr = addr.Unmap()
	return slices.ContainsFunc(c.AllowedIPs, func(p netip.Prefix) bool { return p.Contains(addr) })
}

// Registry maps bearer secrets to credentials. Secrets are kept only as SHA-256 digests, so a
// lookup never compares secret bytes and a dump of the registry reveals no key.
//
// Every mutation ends in changedLocked, which hands the credential's new state to the change
// hook (OnChange): the data directory persists the registry through it, so a new kind of
// mutation (revoke, rotate) persists by calling it too.
type Registry struct {
	mu        sync.RWMutex
	bySecret  map[[32]byte]*Credential
	byID      map[string]*Credential
	secretsOf map[string][][32]byte // by credential id: the digests bySecret maps to it
	onChange  func(CredentialState)
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{bySecret: map[[32]byte]*Credential{}, byID: map[string]*Credential{}, secretsOf: map[string][][32]byte{}}
}

// Add registers c under the bearer secret.
func (r *Registry) Add(secret string, c *Credential) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bindLocked(sha256.Sum256([]byte(secret)), c)
	r.changedLocked(c.ID)
}

// bindLocked maps the secret digest d to c; the caller holds r.mu and calls changedLocked.
func (r *Registry) bindLocked(d [32]byte, c *Credential) {
	if old, ok := r.bySecret[d]; ok {
		r.unbindLocked(d, old.ID)
	}
	r.bySecret[d] = c
	r.byID[c.ID] = c
	r.secretsOf[c.ID] = append(r.secretsOf[c.ID], d)
}

// unbindLocked forgets the secret digest d of credential id; the caller holds r.mu.
func (r *Registry) unbindLocked(d [32]byte, id string) {
	delete(r.bySecret, d)
	r.secretsOf[id] = slices.DeleteFunc(r.secretsOf[id], func(x [32]byte) bool { return x == d })
}

// Lookup returns the credential of a bearer secret.
func (r *Registry) Lookup(secret string) (*Credential, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c, ok := r.bySecret[sha256.Sum256([]byte(secret))]
	return c, ok
}

// ByID returns the credential with the public id.
func (r *Registry) ByID(id string) (*Credential, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c, ok := r.byID[id]
	return c, ok
}

// Remove forgets the secret (revocation).
func (r *Registry) Remove(secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := sha256.Sum256([]byte(secret))
	if c, ok := r.bySecret[d]; ok {
		r.unbindLocked(d, c.ID)
		r.changedLocked(c.ID)
	}
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// RandomBase62 returns n random base62 characters (rejection sampling: no modulo bias).
func RandomBase62(n int) string { return RandomBase62From(rand.Reader, n) }
