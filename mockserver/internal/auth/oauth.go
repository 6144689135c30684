package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"io"
	"slices"
	"strconv"
	"sync"
	"time"
)

// OAuthClient is a registered OAuth 2.0 client. Its Credential (ID = client id) carries the
// account, plan and scopes, so rate limits and the audit log count per client.
type OAuthClient struct {
	Credential   *Credential
	RedirectURIs []string
	secret       [32]byte // SHA-256 of the client secret
}

// CheckSecret reports whether secret is the client's, in constant time.
func (c *OAuthClient) CheckSecret(secret string) bool {
	sum := sha256.Sum256([]byte(secret))
	return subtle.ConstantTimeCompare(sum[:], c.secret[:]) == 1
}

// Code is an authorization code: single use, bound to its client, redirect URI and PKCE challenge.
type Code struct {
	ClientID    string
	RedirectURI string
	Challenge   string // base64url(SHA-256(verifier)), S256 only
	Scopes      []string
	ExpiresAt   time.Time
	used        bool
	family      *family // tokens issued from the code, revoked if the code is replayed
}

// family groups every token issued from one authorization (one code, or one client-credentials
// grant) with its refreshes; revoking it ends them all at once. Its id names it in a data
// directory.
type family struct {
	id      string
	revoked bool
}

// Token is an access token (mat_…) or a refresh token (mrt_…).
type Token struct {
	Client    *OAuthClient
	Scopes    []string
	ExpiresAt time.Time
	Refresh   bool
	revoked   bool
	rotated   bool // a refresh token already exchanged
	family    *family
}

// OAuth holds the OAuth clients, codes and tokens. Secrets are kept only as SHA-256 digests.
// It is safe for concurrent use.
//
// Every mutation hands what it changed to the change hook (OnChange, persist.go): the data
// directory keeps the clients, codes, tokens and families through it.
type OAuth struct {
	mu       sync.Mutex
	clients  map[string]*OAuthClient
	codes    map[[32]byte]*Code
	tokens   map[[32]byte]*Token
	families uint64 // families made: the next family's id
	onChange func([]OAuthRecord)
	// restoring indexes families by id while records are restored (persist.go).
	restoring map[string]*family
	// Rand draws code and token values (nil: crypto/rand); a seeded source makes them reproducible.
	Rand io.Reader
}

// NewOAuth returns an empty OAuth registry.
func NewOAuth() *OAuth {
	return &OAuth{clients: map[string]*OAuthClient{}, codes: map[[32]byte]*Code{}, tokens: map[[32]byte]*Token{}}
}

// random returns 40 base62 characters for a code or token value.
func (o *OAuth) random() string {
	if o.Rand == nil {
		return RandomBase62(40)
	}
	return RandomBase62From(o.Rand, 40)
}

func digest(s string) [32]byte { return sha256.Sum256([]byte(s)) }

// AddClient registers a client with its secret and returns it.
func (o *OAuth) AddClient(cred *Credential, secret string, redirectURIs []string) *OAuthClient {
	c := &OAuthClient{Credential: cred, RedirectURIs: slices.Clone(redirectURIs), secret: digest(secret)}
	o.mu.Lock()
	o.clients[cred.ID] = c
	o.changedLocked(clientRecord(c))
	o.mu.Unlock()
	return c
}

// Client returns the client with the id.
func (o *OAuth) Client(id string) (*OAuthClient, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c, ok := o.clients[id]
	return c, ok
}

// NewCode stores an authorization code and returns its value.
func (o *OAuth) NewCode(c Code) string {
	v := "mac_" + o.random()
	o.mu.Lock()
	d := digest(v)
	o.codes[d] = &c
	o.changedLocked(codeRecord(d, &c))
	o.mu.Unlock()
	return v
}

// RedeemCode checks a code for the client, redirect URI and PKCE challenge and marks it used.
// A replayed code is refused and revokes the tokens issued from it (RFC 6749 §4.1.2). Pass the
// returned code to Issue so its tokens join the code's family.
func (o *OAuth) RedeemCode(value, clientID, redirectURI, challenge string, now time.Time) (*Code, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	d := digest(value)
	c, ok := o.codes[d]
	if !ok || c.ClientID != clientID {
		return nil, false
	}
	if c.used {
		if c.family != nil && !c.family.revoked {
			c.family.revoked = true
			o.changedLocked(familyRecord(c.family))
		}
		return nil, false
	}
	// Any presentation by the right client uses the code up: a failed guess at the verifier
	// must not leave the code open to further guesses.
	c.used = true
	if !now.Before(c.ExpiresAt) || c.RedirectURI != redirectURI ||
		subtle.ConstantTimeCompare([]byte(c.Challenge), []byte(challenge)) != 1 {
		o.changedLocked(codeRecord(d, c))
		return nil, false
	}
	c.family = o.newFamilyLocked()
	o.changedLocked(familyRecord(c.family), codeRecord(d, c))
	return c, true
}

// Issued is a newly issued token pair (Refresh empty for client credentials).
type Issued struct {
	Access, Refresh string
	Scopes          []string
}

// Issue creates an access token (and a refresh token when withRefresh) in a new family, or in
// the family of code when code is non-nil.
func (o *OAuth) Issue(client *OAuthClient, code *Code, scopes []string, now time.Time, accessTTL, refreshTTL time.Duration, withRefresh bool) Issued {
	o.mu.Lock()
	defer o.mu.Unlock()
	var fam *family
	var recs []OAuthRecord
	if code != nil {
		fam = code.family
	} else {
		fam = o.newFamilyLocked()
		recs = append(recs, familyRecord(fam))
	}
	out, recs := o.issueLocked(client, fam, scopes, now, accessTTL, refreshTTL, withRefresh, recs)
	o.changedLocked(recs...)
	return out
}

// newFamilyLocked makes a family with a fresh id; the caller holds o.mu.
func (o *OAuth) newFamilyLocked() *family {
	o.families++
	return &family{id: "fam_" + strconv.FormatUint(o.families, 10)}
}

// issueLocked issues tokens and returns them with recs and their records added: one
// mutation's records go to the change hook together (one atomic batch in a log).
func (o *OAuth) issueLocked(client *OAuthClient, fam *family, scopes []string, now time.Time, accessTTL, refreshTTL time.Duration, withRefresh bool, recs []OAuthRecord) (Issued, []OAuthRecord) {
	out := Issued{Access: "mat_" + o.random(), Scopes: slices.Clone(scopes)}
	d := digest(out.Access)
	t := &Token{Client: client, Scopes: out.Scopes, ExpiresAt: now.Add(accessTTL), family: fam}
	o.tokens[d] = t
	recs = append(recs, tokenRecord(d, t))
	if withRefresh {
		out.Refresh = "mrt_" + o.random()
		d := digest(out.Refresh)
		t := &Token{Client: client, Scopes: out.Scopes, ExpiresAt: now.Add(refreshTTL), Refresh: true, family: fam}
		o.tokens[d] = t
		recs = append(recs, tokenRecord(d, t))
	}
	return out, recs
}

// RefreshResult is the outcome of a refresh.
type RefreshResult int

// Outcomes of Refresh.
const (
	RefreshOK RefreshResult = iota
	RefreshInvalid
	RefreshBadScope
)

// Refresh exchanges a refresh token of client for a new pair in the same family (rotation).
// Presenting an already-rotated refresh token revokes the whole family (reuse detection,
// RFC 9700 §4.14.2). scopes, when non-nil, must be a subset of the token's.
func (o *OAuth) Refresh(value string, client *OAuthClient, scopes []string, now time.Time, accessTTL, refreshTTL time.Duration) (Issued, RefreshResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	d := digest(value)
	t, ok := o.tokens[d]
	if !ok || !t.Refresh || t.Client != client || t.revoked || t.family.revoked || !now.Before(t.ExpiresAt) {
		return Issued{}, RefreshInvalid
	}
	if t.rotated {
		t.family.revoked = true
		o.changedLocked(familyRecord(t.family))
		return Issued{}, RefreshInvalid
	}
	if scopes == nil {
		scopes = t.Scopes
	} else if !Subset(scopes, t.Scopes) {
		return Issued{}, RefreshBadScope
	}
	t.rotated = true
	out, recs := o.issueLocked(client, t.family, scopes, now, accessTTL, refreshTTL, true, []OAuthRecord{tokenRecord(d, t)})
	o.changedLocked(recs...)
	return out, RefreshOK
}

// TokenState is what an access token lookup finds.
type TokenState int

// Outcomes of Access.
const (
	TokenValid TokenState = iota
	TokenUnknown
	TokenExpired
)

// Access resolves an access token at now (the client's account clock, which the caller gets
// from the returned client even when the state is not valid).
func (o *OAuth) Access(value string, now func(*OAuthClient) time.Time) (*Token, TokenState) {
	o.mu.Lock()
	defer o.mu.Unlock()
	t, ok := o.tokens[digest(value)]
	if !ok || t.Refresh || t.revoked || t.family.revoked {
		return nil, TokenUnknown
	}
	if !now(t.Client).Before(t.ExpiresAt) {
		return t, TokenExpired
	}
	return t, TokenValid
}

// Revoke ends a token (RFC 7009); a refresh token takes its whole family with it. When client
// is non-nil, only that client's tokens are revoked. Unknown tokens are ignored.
func (o *OAuth) Revoke(value string, client *OAuthClient) {
	o.mu.Lock()
	defer o.mu.Unlock()
	d := digest(value)
	t, ok := o.tokens[d]
	if !ok || (client != nil && t.Client != client) {
		return
	}
	t.revoked = true
	recs := []OAuthRecord{tokenRecord(d, t)}
	if t.Refresh {
		t.family.revoked = true
		recs = append(recs, familyRecord(t.family))
	}
	o.changedLocked(recs...)
}

// Subset reports whether every scope of want is in have.
func Subset(want, have []string) bool {
	for _, s := range want {
		if !slices.Contains(have, s) {
			return false
		}
	}
	return true
}
