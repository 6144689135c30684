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
	// ExpiresAt ends the credential (zero: never), on its account clock.
	ExpiresAt time.Time
	// RealExpiresAt ends it too, on real time (RealDeadline; zero: never): whichever comes
	// first, so a frozen or rewound clock cannot keep it for ever.
	RealExpiresAt time.Time `json:",omitzero"`
}

// Expired reports whether the credential has expired at now, its account clock's time, or on
// real time.
func (c *Credential) Expired(now time.Time) bool {
	return (!c.ExpiresAt.IsZero() && !now.Before(c.ExpiresAt)) || RealExpired(c.RealExpiresAt)
}

// realNow is the real time of RealDeadline and RealExpired (tests do not replace it: they wait).
var realNow = time.Now

// RealDeadline is when a lifetime of d that begins now ends in real time. Credentials that
// expire on their account clock (a key's expiresAt, a rotated secret's grace, OAuth access and
// refresh tokens) expire at their real deadline too, whichever comes first: a frozen clock (-start) or
// one set back cannot keep them working for ever.
func RealDeadline(d time.Duration) time.Time { return realNow().Add(d).UTC().Round(0) }

// RealExpired reports whether a real deadline (zero: none) has passed.
func RealExpired(deadline time.Time) bool { return !deadline.IsZero() && !realNow().Before(deadline) }

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
// A key has one secret, or two for a while after a rotation: the new one and the one it
// replaced, which works until its retirement time (on the key's account clock). Every change
// of the registry goes through its methods: Add, Rotate, Revoke, Remove, Import; each ends in
// changedLocked, which hands the credential's new state to the change hook (OnChange): the data
// directory persists the registry through it, so a new kind of change persists by calling it.
type Registry struct {
	mu       sync.RWMutex
	bySecret map[[32]byte]secret
	byID     map[string]*Credential
	// digests are each credential's secrets, its current one first (at most two for API keys).
	digests  map[string][][32]byte
	onChange func(CredentialState)
}

// secret is one bearer secret of a credential: its current one, or one a rotation replaced.
type secret struct {
	cred *Credential
	// retiresAt ends a replaced secret (zero: the credential's current secret), and
	// retiresReal on real time, whichever comes first.
	retiresAt, retiresReal time.Time
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{bySecret: map[[32]byte]secret{}, byID: map[string]*Credential{}, digests: map[string][][32]byte{}}
}

// Add registers c under the bearer secret.
func (r *Registry) Add(bearer string, c *Credential) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := sha256.Sum256([]byte(bearer))
	r.bySecret[d] = secret{cred: c}
	r.byID[c.ID] = c
	r.digests[c.ID] = append(r.digests[c.ID], d)
	r.changedLocked(c.ID)
}

// Lookup returns the credential of a bearer secret. A secret a rotation replaced counts only
// before its retirement, judged by now of the credential's account.
func (r *Registry) Lookup(bearer string, now func(account string) time.Time) (*Credential, bool) {
	var buf [128]byte // a secret's bytes, on the stack: a conversion's own buffer holds only 32
	sum := sha256.Sum256(append(buf[:0], bearer...))
	r.mu.RLock()
	s, ok := r.bySecret[sum]
	r.mu.RUnlock()
	if !ok || (!s.retiresAt.IsZero() && (!now(s.cred.Account).Before(s.retiresAt) || RealExpired(s.retiresReal))) {
		return nil, false
	}
	return s.cred, true
}

// ByID returns the credential with the public id.
func (r *Registry) ByID(id string) (*Credential, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c, ok := r.byID[id]
	return c, ok
}

// Revoke forgets the credential with the public id and every secret of it; false when there
// is none.
func (r *Registry) Revoke(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byID[id]; !ok {
		return false
	}
	for _, d := range r.digests[id] {
		delete(r.bySecret, d)
	}
	delete(r.byID, id)
	delete(r.digests, id)
	r.changedLocked(id)
	return true
}

// Rotate gives the credential with the public id a new bearer secret. Its current secret keeps
// working until retiresAt (zero: it stops at once) and retiresReal on real time (zero: no
// bound), whichever comes first; a secret an earlier rotation left working stops at once, so at
// most two work. It returns the credential, or false when there is none.
func (r *Registry) Rotate(id, bearer string, retiresAt, retiresReal time.Time) (*Credential, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.byID[id]
	if !ok {
		return nil, false
	}
	old := r.digests[id]
	for _, d := range old[min(1, len(old)):] {
		delete(r.bySecret, d)
	}
	d := sha256.Sum256([]byte(bearer))
	r.bySecret[d] = secret{cred: c}
	r.digests[id] = [][32]byte{d}
	if len(old) > 0 {
		if retiresAt.IsZero() {
			delete(r.bySecret, old[0])
		} else {
			r.bySecret[old[0]] = secret{cred: c, retiresAt: retiresAt, retiresReal: retiresReal}
			r.digests[id] = append(r.digests[id], old[0])
		}
	}
	r.changedLocked(id)
	return c, true
}

// Remove forgets one bearer secret (the credential stays under its other secrets, if any).
func (r *Registry) Remove(bearer string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := sha256.Sum256([]byte(bearer))
	s, ok := r.bySecret[d]
	if !ok {
		return
	}
	delete(r.bySecret, d)
	r.digests[s.cred.ID] = slices.DeleteFunc(r.digests[s.cred.ID], func(e [32]byte) bool { return e == d })
	r.changedLocked(s.cred.ID)
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// RandomBase62 returns n random base62 characters (rejection sampling: no modulo bias).
func RandomBase62(n int) string { return RandomBase62From(rand.Reader, n) }
