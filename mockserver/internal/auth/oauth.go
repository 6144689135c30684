package auth

import (
	"cmp"
	"container/list"
	"crypto/sha256"
	"crypto/subtle"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Bounds of what the OAuth registry keeps (RELIABILITY.md "Bounds"). Codes are purged
// CodeGrace after they expire; a token family (every token of one authorization) FamilyGrace
// after its last token expired — until then an expired access token is answered token_expired
// (the SDK then renews it), not unknown. Purges happen in a sweep and in any lookup that meets
// one. Revoked tokens and families are purged at once (they are answered as unknown ones).
const (
	// DefaultMaxFamilies bounds each client's live token families (one per authorization or
	// client-credentials grant): past it, the client's oldest family is revoked.
	DefaultMaxFamilies = 10_000
	// DefaultMaxCodes bounds each client's authorization codes (issued, used or not, until they
	// are purged): past it, the client's oldest code is forgotten (redeeming it fails).
	DefaultMaxCodes = 10_000
	// MaxFamilyTokens bounds the tokens a family remembers: past it, its oldest (earlier
	// rotations' refresh tokens and access tokens) are forgotten early.
	MaxFamilyTokens = 64
	// CodeGrace is how long an expired authorization code is kept (a replay still revokes what
	// was issued from it).
	CodeGrace = time.Hour
	// FamilyGrace is how long a token family is kept after its last token expired.
	FamilyGrace = 7 * 24 * time.Hour
)

// OAuthClient is a registered OAuth 2.0 client. Its Credential (ID = client id) carries the
// account, plan and scopes, so rate limits and the audit log count per client.
type OAuthClient struct {
	Credential   *Credential
	RedirectURIs []string
	secret       [32]byte // SHA-256 of the client secret

	// Guarded by OAuth.mu: the client's live families, oldest first, and its codes' digests,
	// oldest first (some may be purged already).
	families list.List // of *family
	codes    [][32]byte
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
// grant) with its refreshes; revoking it ends them all at once (and purges them: a revoked token
// is answered as an unknown one). Its id names it in a data directory.
type family struct {
	id      string
	revoked bool
	client  *OAuthClient
	tokens  [][32]byte    // digests of its tokens, oldest first (some may be purged already)
	el      *list.Element // in client.families while live
	expires time.Time     // when its last token expires
}

// Token is an access token (mat_…) or a refresh token (mrt_…).
type Token struct {
	Client    *OAuthClient
	Scopes    []string
	ExpiresAt time.Time
	// RealExpiresAt ends the token on real time too (RealDeadline), whichever comes first.
	RealExpiresAt time.Time
	Refresh       bool
	revoked       bool
	rotated       bool // a refresh token already exchanged
	family        *family
}

// OAuth holds the OAuth clients, codes and tokens. Secrets are kept only as SHA-256 digests.
// It is safe for concurrent use.
//
// Every change a request makes hands its records to the change hook, together (OnChange,
// persist.go): the data directory keeps the clients, codes, tokens and families through it.
// Purges of what expired are not logged: a replay meets the same expiry and purges again.
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
	// MaxFamilies and MaxCodes are the bounds per client (0: DefaultMaxFamilies,
	// DefaultMaxCodes). Set them before use.
	MaxFamilies, MaxCodes int
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
	// The strings come from the authorization request's line: copies, so the code does not keep
	// the whole line alive.
	c.ClientID, c.RedirectURI, c.Challenge, c.Scopes = strings.Clone(c.ClientID), strings.Clone(c.RedirectURI),
		strings.Clone(c.Challenge), cloneStrings(c.Scopes)
	v := "mac_" + o.random()
	d := digest(v)
	o.mu.Lock()
	defer o.mu.Unlock()
	recs := []OAuthRecord{codeRecord(d, &c)}
	o.codes[d] = &c
	if cl := o.clients[c.ClientID]; cl != nil {
		cl.codes = append(cl.codes, d)
		for len(cl.codes) > cmp.Or(o.MaxCodes, DefaultMaxCodes) {
			delete(o.codes, cl.codes[0])
			recs = append(recs, deletedRecord(oauthCode, cl.codes[0]))
			cl.codes = cl.codes[1:] // append reallocates, keeping only the live digests
		}
	}
	o.changedLocked(recs...)
	return v
}

// cloneStrings copies ss and each of its strings (pieces of a request must not be kept whole).
func cloneStrings(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.Clone(s)
	}
	return out
}

// purgeable reports whether something that expires at exp, kept grace longer, may be purged at now.
func purgeable(exp, now time.Time, grace time.Duration) bool { return !now.Before(exp.Add(grace)) }

// RedeemCode checks a code for the client, redirect URI and PKCE challenge and marks it used.
// A replayed code is refused and revokes the tokens issued from it (RFC 6749 §4.1.2). Pass the
// returned code to Issue so its tokens join the code's family.
func (o *OAuth) RedeemCode(value, clientID, redirectURI, challenge string, now time.Time) (*Code, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	d := digest(value)
	c, ok := o.codes[d]
	if ok && purgeable(c.ExpiresAt, now, CodeGrace) {
		delete(o.codes, d) // its client's list forgets it at the next sweep
		ok = false
	}
	if !ok || c.ClientID != clientID {
		return nil, false
	}
	if c.used {
		if c.family != nil && !c.family.revoked {
			o.changedLocked(o.revokeFamily(c.family)...)
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
	var recs []OAuthRecord
	c.family, recs = o.newFamily(o.clients[clientID])
	o.changedLocked(append(recs, codeRecord(d, c))...)
	return c, true
}

// newFamily starts a token family of client (with a fresh id), revoking its oldest past the
// bound; the caller holds o.mu. It returns the records of what changed.
func (o *OAuth) newFamily(client *OAuthClient) (*family, []OAuthRecord) {
	o.families++
	f := &family{id: "fam_" + strconv.FormatUint(o.families, 10), client: client}
	recs := []OAuthRecord{familyRecord(f)}
	if client != nil {
		f.el = client.families.PushBack(f)
		for client.families.Len() > cmp.Or(o.MaxFamilies, DefaultMaxFamilies) {
			recs = append(recs, o.revokeFamily(client.families.Front().Value.(*family))...)
		}
	}
	return f, recs
}

// revokeFamily ends a family: its tokens are purged (a revoked token is answered as unknown);
// the caller holds o.mu. It returns the family's record.
func (o *OAuth) revokeFamily(f *family) []OAuthRecord {
	f.revoked = true
	for _, d := range f.tokens {
		delete(o.tokens, d)
	}
	f.tokens = nil
	o.forgetFamily(f)
	return []OAuthRecord{familyRecord(f)}
}

// forgetFamily takes a family off its client's list; the caller holds o.mu.
func (o *OAuth) forgetFamily(f *family) {
	if f.el != nil {
		f.client.families.Remove(f.el)
		f.el = nil
	}
}

// addToken stores a token of family f under digest d, forgetting the family's oldest past
// MaxFamilyTokens; the caller holds o.mu.
func (o *OAuth) addToken(d [32]byte, t *Token) {
	o.tokens[d] = t
	f := t.family
	if f.el == nil && f.client != nil { // a sweep forgot it between its code's redemption and now
		f.el = f.client.families.PushBack(f)
	}
	f.tokens = append(f.tokens, d)
	if t.ExpiresAt.After(f.expires) {
		f.expires = t.ExpiresAt
	}
	for len(f.tokens) > MaxFamilyTokens {
		delete(o.tokens, f.tokens[0])
		f.tokens = f.tokens[1:]
	}
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
		fam, recs = o.newFamily(client)
	}
	out, recs := o.issueLocked(client, fam, scopes, now, accessTTL, refreshTTL, withRefresh, recs)
	o.changedLocked(recs...)
	return out
}

// issueLocked issues tokens and returns them, with recs and their records added: one
// request's records go to the change hook together (one atomic batch in a log).
func (o *OAuth) issueLocked(client *OAuthClient, fam *family, scopes []string, now time.Time, accessTTL, refreshTTL time.Duration, withRefresh bool, recs []OAuthRecord) (Issued, []OAuthRecord) {
	out := Issued{Access: "mat_" + o.random(), Scopes: cloneStrings(scopes)}
	if withRefresh {
		out.Refresh = "mrt_" + o.random()
	}
	if fam.revoked { // a replayed code revoked the family between redemption and issue
		return out, recs
	}
	d := digest(out.Access)
	t := &Token{Client: client, Scopes: out.Scopes, ExpiresAt: now.Add(accessTTL), RealExpiresAt: RealDeadline(accessTTL), family: fam}
	o.addToken(d, t)
	recs = append(recs, tokenRecord(d, t))
	if withRefresh {
		d := digest(out.Refresh)
		t := &Token{Client: client, Scopes: out.Scopes, ExpiresAt: now.Add(refreshTTL), RealExpiresAt: RealDeadline(refreshTTL), Refresh: true, family: fam}
		o.addToken(d, t)
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
	t, ok := o.lookup(value, now)
	if !ok || !t.Refresh || t.Client != client || t.revoked || t.family.revoked || !now.Before(t.ExpiresAt) || RealExpired(t.RealExpiresAt) {
		return Issued{}, RefreshInvalid
	}
	if t.rotated {
		o.changedLocked(o.revokeFamily(t.family)...)
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
	d := digest(value)
	t, ok := o.tokens[d]
	if !ok || t.Refresh || t.revoked || t.family.revoked {
		return nil, TokenUnknown
	}
	at := now(t.Client)
	if purgeable(t.family.expires, at, FamilyGrace) {
		o.purgeFamily(t.family)
		return nil, TokenUnknown
	}
	if !at.Before(t.ExpiresAt) || RealExpired(t.RealExpiresAt) {
		return t, TokenExpired
	}
	return t, TokenValid
}

// lookup finds a token, purging it when it is long expired at now; the caller holds o.mu.
func (o *OAuth) lookup(value string, now time.Time) (*Token, bool) {
	t, ok := o.tokens[digest(value)]
	if ok && purgeable(t.family.expires, now, FamilyGrace) {
		o.purgeFamily(t.family)
		return nil, false
	}
	return t, ok
}

// purgeFamily forgets a family and its tokens (it long expired); the caller holds o.mu.
func (o *OAuth) purgeFamily(f *family) {
	for _, d := range f.tokens {
		delete(o.tokens, d)
	}
	f.tokens = nil
	o.forgetFamily(f)
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
	delete(o.tokens, d) // a revoked token is answered as an unknown one
	recs := []OAuthRecord{deletedRecord(oauthToken, d)}
	if t.Refresh {
		recs = append(recs, o.revokeFamily(t.family)...)
	}
	o.changedLocked(recs...)
}

// Sweep purges the codes that expired more than CodeGrace ago and the families whose last
// token expired more than FamilyGrace ago, each on its client's clock (now). The server runs it
// periodically; lookups purge what they meet too.
func (o *OAuth) Sweep(now func(*OAuthClient) time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range o.clients {
		cnow := now(c)
		c.codes = slices.DeleteFunc(c.codes, func(d [32]byte) bool {
			code, ok := o.codes[d]
			if ok && purgeable(code.ExpiresAt, cnow, CodeGrace) {
				delete(o.codes, d)
				ok = false
			}
			return !ok
		})
		for el := c.families.Front(); el != nil; {
			f, next := el.Value.(*family), el.Next()
			if purgeable(f.expires, cnow, FamilyGrace) {
				o.purgeFamily(f)
			}
			el = next
		}
	}
}

// Counts returns how many codes, tokens and live families the registry holds (tests, bounds).
func (o *OAuth) Counts() (codes, tokens, families int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range o.clients {
		families += c.families.Len()
	}
	return len(o.codes), len(o.tokens), families
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
