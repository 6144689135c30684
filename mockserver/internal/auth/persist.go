package auth

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// persistedCredential is one registry entry as persisted: the SHA-256 digest of a bearer
// secret (never the secret), the credential, and for a secret a rotation replaced, when it
// stops working.
type persistedCredential struct {
	SecretSHA256 string      `json:"secretSha256"`
	Credential   *Credential `json:"credential"`
	RetiresAt    *time.Time  `json:"retiresAt,omitempty"`
	RetiresReal  time.Time   `json:"retiresReal,omitzero"`
}

// Export returns every registered credential with the digest of its secret, as JSON, so a
// restarted server accepts the same keys. Plaintext keys are never stored; signing secrets are
// (the server needs them to verify signatures).
func (r *Registry) Export() ([]byte, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]persistedCredential, 0, len(r.bySecret))
	ids := slices.Sorted(maps.Keys(r.digests)) // in id order, current secret first: the same registry always saves the same bytes
	for _, id := range ids {
		for _, d := range r.digests[id] {
			s := r.bySecret[d]
			p := persistedCredential{SecretSHA256: hex.EncodeToString(d[:]), Credential: s.cred, RetiresReal: s.retiresReal}
			if !s.retiresAt.IsZero() {
				p.RetiresAt = &s.retiresAt
			}
			out = append(out, p)
		}
	}
	return json.Marshal(out)
}

// Import adds the credentials Export returned: other credentials stay, one with an id the
// import has is replaced, secrets and all. It adds nothing when b does not decode. The secrets
// of one credential id share one credential, the current one first.
func (r *Registry) Import(b []byte) error {
	var in []persistedCredential
	if err := json.Unmarshal(b, &in); err != nil {
		return fmt.Errorf("auth: importing credentials: %w", err)
	}
	digests := make([][32]byte, len(in))
	for i, p := range in {
		d, err := hex.DecodeString(p.SecretSHA256)
		if err != nil || len(d) != 32 || p.Credential == nil {
			return fmt.Errorf("auth: importing credentials: entry %d is malformed", i)
		}
		copy(digests[i][:], d)
	}
	// Current secrets first, each credential's entries under its first credential.
	order := make([]int, len(in))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(boolRank(in[a].RetiresAt != nil), boolRank(in[b].RetiresAt != nil))
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	imported := map[string]*Credential{}
	for _, i := range order {
		p := in[i]
		c, ok := imported[p.Credential.ID]
		if !ok {
			c = p.Credential
			imported[c.ID] = c
			for _, d := range r.digests[c.ID] {
				delete(r.bySecret, d)
			}
			r.byID[c.ID] = c
			r.digests[c.ID] = nil
		}
		s := secret{cred: c, retiresReal: p.RetiresReal}
		if p.RetiresAt != nil {
			s.retiresAt = *p.RetiresAt
		}
		r.bySecret[digests[i]] = s
		r.digests[c.ID] = append(r.digests[c.ID], digests[i])
	}
	for _, id := range slices.Sorted(maps.Keys(imported)) {
		r.changedLocked(id)
	}
	return nil
}

// CredentialState is a credential as a data directory keeps it: its id, the credential (nil:
// revoked), and the SHA-256 digests (hex) of the secrets that authenticate as it, its current
// one first, a secret a rotation replaced with its retirement time.
type CredentialState struct {
	ID         string            `json:"id"`
	Credential *Credential       `json:"credential,omitempty"`
	Secrets    []persistedSecret `json:"secrets"`
}

// persistedSecret is one secret of a CredentialState.
type persistedSecret struct {
	SHA256      string     `json:"sha256"`
	RetiresAt   *time.Time `json:"retiresAt,omitempty"`
	RetiresReal time.Time  `json:"retiresReal,omitzero"`
}

// OnChange registers the change hook (one; a later call replaces it): f sees the new state of
// every credential a change touches, in order, under the registry's lock (so it must not block
// or call back).
func (r *Registry) OnChange(f func(CredentialState)) {
	r.mu.Lock()
	r.onChange = f
	r.mu.Unlock()
}

// changedLocked hands the state of credential id to the change hook; every change calls it
// under r.mu.
func (r *Registry) changedLocked(id string) {
	if r.onChange != nil {
		r.onChange(r.stateLocked(id))
	}
}

// stateLocked is the state of credential id; the caller holds r.mu.
func (r *Registry) stateLocked(id string) CredentialState {
	st := CredentialState{ID: id, Credential: r.byID[id], Secrets: []persistedSecret{}}
	for _, d := range r.digests[id] {
		p := persistedSecret{SHA256: hex.EncodeToString(d[:])}
		if s := r.bySecret[d]; !s.retiresAt.IsZero() {
			p.RetiresAt, p.RetiresReal = &s.retiresAt, s.retiresReal
		}
		st.Secrets = append(st.Secrets, p)
	}
	return st
}

// States returns every credential's state, in id order (a data directory's snapshot).
func (r *Registry) States() []CredentialState {
	r.mu.RLock()
	defer r.mu.RUnlock()
	ids := slices.Sorted(maps.Keys(r.byID))
	out := make([]CredentialState, len(ids))
	for i, id := range ids {
		out[i] = r.stateLocked(id)
	}
	return out
}

// Restore puts back a credential's state (read back from a data directory), replacing what the
// registry holds for its id: a state without a credential removes it (revoked). It does not
// call the change hook.
func (r *Registry) Restore(st CredentialState) error {
	if st.Credential != nil && st.Credential.ID != st.ID {
		return fmt.Errorf("auth: restoring credential %q: malformed", st.ID)
	}
	secrets := make([]secret, len(st.Secrets))
	digests := make([][32]byte, len(st.Secrets))
	for i, p := range st.Secrets {
		d, err := hex.DecodeString(p.SHA256)
		if err != nil || len(d) != 32 || st.Credential == nil {
			return fmt.Errorf("auth: restoring credential %q: malformed secret", st.ID)
		}
		copy(digests[i][:], d)
		secrets[i] = secret{cred: st.Credential, retiresReal: p.RetiresReal}
		if p.RetiresAt != nil {
			secrets[i].retiresAt = *p.RetiresAt
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range r.digests[st.ID] {
		delete(r.bySecret, d)
	}
	if st.Credential == nil {
		delete(r.byID, st.ID)
		delete(r.digests, st.ID)
		return nil
	}
	r.byID[st.ID] = st.Credential
	r.digests[st.ID] = digests
	for i, d := range digests {
		r.bySecret[d] = secrets[i]
	}
	return nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// RandomBase62From is RandomBase62 drawing from src (a seeded source makes it reproducible).
func RandomBase62From(src io.Reader, n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, n*2)
	for len(out) < n {
		_, _ = io.ReadFull(src, buf)
		for _, b := range buf {
			if b < 248 && len(out) < n { // 248 = 4·62
				out = append(out, base62[b%62])
			}
		}
	}
	return string(out)
}

// persistedClient is an OAuth client as persisted: the digest of its secret, never the secret.
type persistedClient struct {
	SecretSHA256 string      `json:"secretSha256"`
	Credential   *Credential `json:"credential"`
	RedirectURIs []string    `json:"redirectUris"`
}

// ExportClients returns the OAuth clients as JSON (secrets as SHA-256 digests). Codes and
// tokens are short-lived and left out: clients ask for new tokens after a restart.
func (o *OAuth) ExportClients() ([]byte, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]persistedClient, 0, len(o.clients))
	for _, c := range o.clients {
		out = append(out, persistedClient{SecretSHA256: hex.EncodeToString(c.secret[:]), Credential: c.Credential, RedirectURIs: c.RedirectURIs})
	}
	return json.Marshal(out)
}

// ImportClients adds the clients ExportClients returned; nothing when b does not decode.
func (o *OAuth) ImportClients(b []byte) error {
	var in []persistedClient
	if err := json.Unmarshal(b, &in); err != nil {
		return fmt.Errorf("auth: importing OAuth clients: %w", err)
	}
	clients := make([]*OAuthClient, len(in))
	for i, p := range in {
		d, err := hex.DecodeString(p.SecretSHA256)
		if err != nil || len(d) != 32 || p.Credential == nil {
			return fmt.Errorf("auth: importing OAuth clients: entry %d is malformed", i)
		}
		clients[i] = &OAuthClient{Credential: p.Credential, RedirectURIs: p.RedirectURIs}
		copy(clients[i].secret[:], d)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	recs := make([]OAuthRecord, len(clients))
	for i, c := range clients {
		o.clients[c.Credential.ID] = c
		recs[i] = clientRecord(c)
	}
	o.changedLocked(recs...)
	return nil
}

// OAuthRecord is one OAuth object as a data directory keeps it: a client, a code, a token or a
// family (Kind), named by Key — the client id, the hex SHA-256 digest of the code's or token's
// value, the family id. No value is kept, only digests. Deleted says the object is gone (a
// revoked token, a code past the client's bound).
type OAuthRecord struct {
	Kind    string `json:"kind"`
	Key     string `json:"key"`
	Deleted bool   `json:"deleted,omitempty"`

	Client *persistedClient `json:"client,omitempty"`
	Code   *persistedCode   `json:"code,omitempty"`
	Token  *persistedToken  `json:"token,omitempty"`
	// A family's client and whether it is revoked.
	ClientID string `json:"clientId,omitempty"`
	Revoked  bool   `json:"revoked,omitempty"`
}

// Kinds of OAuthRecord.
const (
	oauthClient = "client"
	oauthCode   = "code"
	oauthToken  = "token"
	oauthFamily = "family"
)

type persistedCode struct {
	ClientID    string    `json:"clientId"`
	RedirectURI string    `json:"redirectUri"`
	Challenge   string    `json:"challenge"`
	Scopes      []string  `json:"scopes"`
	ExpiresAt   time.Time `json:"expiresAt"`
	Used        bool      `json:"used,omitempty"`
	Family      string    `json:"family,omitempty"`
}

type persistedToken struct {
	ClientID  string    `json:"clientId"`
	Scopes    []string  `json:"scopes"`
	ExpiresAt time.Time `json:"expiresAt"`
	RealExp   time.Time `json:"realExpiresAt,omitzero"`
	Refresh   bool      `json:"refresh,omitempty"`
	Rotated   bool      `json:"rotated,omitempty"`
	Family    string    `json:"family"`
}

func clientRecord(c *OAuthClient) OAuthRecord {
	return OAuthRecord{Kind: oauthClient, Key: c.Credential.ID, Client: &persistedClient{
		SecretSHA256: hex.EncodeToString(c.secret[:]), Credential: c.Credential, RedirectURIs: c.RedirectURIs}}
}

func codeRecord(d [32]byte, c *Code) OAuthRecord {
	r := OAuthRecord{Kind: oauthCode, Key: hex.EncodeToString(d[:]), Code: &persistedCode{ClientID: c.ClientID,
		RedirectURI: c.RedirectURI, Challenge: c.Challenge, Scopes: c.Scopes, ExpiresAt: c.ExpiresAt, Used: c.used}}
	if c.family != nil {
		r.Code.Family = c.family.id
	}
	return r
}

func tokenRecord(d [32]byte, t *Token) OAuthRecord {
	return OAuthRecord{Kind: oauthToken, Key: hex.EncodeToString(d[:]), Token: &persistedToken{ClientID: t.Client.Credential.ID,
		Scopes: t.Scopes, ExpiresAt: t.ExpiresAt, RealExp: t.RealExpiresAt, Refresh: t.Refresh, Rotated: t.rotated, Family: t.family.id}}
}

func familyRecord(f *family) OAuthRecord {
	r := OAuthRecord{Kind: oauthFamily, Key: f.id, Revoked: f.revoked}
	if f.client != nil {
		r.ClientID = f.client.Credential.ID
	}
	return r
}

func deletedRecord(kind string, d [32]byte) OAuthRecord {
	return OAuthRecord{Kind: kind, Key: hex.EncodeToString(d[:]), Deleted: true}
}

// OnChange registers the change hook (one; a later call replaces it): f sees the records of
// every change, together and in order, under the registry's lock (so it must not block or call
// back).
func (o *OAuth) OnChange(f func([]OAuthRecord)) {
	o.mu.Lock()
	o.onChange = f
	o.mu.Unlock()
}

// changedLocked hands one change's records to the change hook; the caller holds o.mu.
func (o *OAuth) changedLocked(recs ...OAuthRecord) {
	if o.onChange != nil && len(recs) > 0 {
		o.onChange(recs)
	}
}

// States returns every client, family, code and token as records (a data directory's
// snapshot): clients first, then families, then what refers to them.
func (o *OAuth) States() []OAuthRecord {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.statesLocked(func(*OAuthClient) bool { return true }, true)
}

// statesLocked returns the records of the clients keep accepts (the clients' own with
// withClients), and of their live families, codes and tokens.
func (o *OAuth) statesLocked(keep func(*OAuthClient) bool, withClients bool) []OAuthRecord {
	var clients, families, rest []OAuthRecord
	seen := map[*family]bool{}
	fam := func(f *family) {
		if f != nil && !seen[f] {
			seen[f] = true
			families = append(families, familyRecord(f))
		}
	}
	for _, c := range o.clients {
		if withClients && keep(c) {
			clients = append(clients, clientRecord(c))
		}
	}
	for d, c := range o.codes {
		if cl, ok := o.clients[c.ClientID]; ok && keep(cl) {
			fam(c.family)
			rest = append(rest, codeRecord(d, c))
		}
	}
	for d, t := range o.tokens {
		if keep(t.Client) {
			fam(t.family)
			rest = append(rest, tokenRecord(d, t))
		}
	}
	byKey := func(a, b OAuthRecord) int { return strings.Compare(a.Kind+a.Key, b.Kind+b.Key) }
	slices.SortFunc(clients, byKey)
	slices.SortFunc(families, byKey)
	slices.SortFunc(rest, byKey) // codes before tokens; within each, by digest
	return append(append(clients, families...), rest...)
}

// Restore puts back records read from a data directory, in their order, replacing what the
// registry holds under their keys, as the changes that wrote them did (a token joins its
// family; a revoked family takes its tokens with it). It does not call the change hook.
// Families are found by id among those restored so far: FinishRestore forgets that index when
// the replay is over.
func (o *OAuth) Restore(recs []OAuthRecord) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, r := range recs {
		if err := o.restoreLocked(r); err != nil {
			return fmt.Errorf("auth: restoring OAuth %s %q: %w", r.Kind, r.Key, err)
		}
	}
	return nil
}

// FinishRestore ends a replay: the index of families by id is dropped (tokens and codes keep
// their families).
func (o *OAuth) FinishRestore() {
	o.mu.Lock()
	o.restoring = nil
	o.mu.Unlock()
}

// familyLocked returns the family with the id, made (for the client) if the restore has not
// seen it yet.
func (o *OAuth) familyLocked(id string, client *OAuthClient) *family {
	if id == "" {
		return nil
	}
	if o.restoring == nil {
		o.restoring = map[string]*family{}
	}
	f := o.restoring[id]
	if f == nil {
		f = &family{id: id, client: client}
		o.restoring[id] = f
		if n, err := strconv.ParseUint(strings.TrimPrefix(id, "fam_"), 10, 64); err == nil && n > o.families {
			o.families = n
		}
	}
	if f.client == nil {
		f.client = client
	}
	return f
}

func (o *OAuth) restoreLocked(r OAuthRecord) error {
	switch r.Kind {
	case oauthFamily:
		f := o.familyLocked(r.Key, o.clients[r.ClientID])
		if r.Revoked && !f.revoked {
			o.revokeFamily(f)
		}
		return nil
	case oauthClient:
		if r.Deleted {
			delete(o.clients, r.Key)
			return nil
		}
		p := r.Client
		d, err := hex.DecodeString(p.SecretSHA256)
		if err != nil || len(d) != 32 || p.Credential == nil || p.Credential.ID != r.Key {
			return errors.New("malformed")
		}
		c := &OAuthClient{Credential: p.Credential, RedirectURIs: p.RedirectURIs}
		copy(c.secret[:], d)
		if old, ok := o.clients[r.Key]; ok { // the same client again: keep its families and codes
			old.Credential, old.RedirectURIs, old.secret = c.Credential, c.RedirectURIs, c.secret
			return nil
		}
		o.clients[r.Key] = c
		return nil
	}
	var d [32]byte
	if b, err := hex.DecodeString(r.Key); err != nil || len(b) != 32 {
		return errors.New("malformed digest")
	} else {
		copy(d[:], b)
	}
	switch r.Kind {
	case oauthCode:
		if r.Deleted || r.Code == nil {
			delete(o.codes, d)
			return nil
		}
		p := r.Code
		cl := o.clients[p.ClientID]
		c := &Code{ClientID: p.ClientID, RedirectURI: p.RedirectURI, Challenge: p.Challenge, Scopes: p.Scopes,
			ExpiresAt: p.ExpiresAt, used: p.Used, family: o.familyLocked(p.Family, cl)}
		if _, known := o.codes[d]; !known && cl != nil {
			cl.codes = append(cl.codes, d)
		}
		o.codes[d] = c
	case oauthToken:
		if r.Deleted || r.Token == nil {
			delete(o.tokens, d)
			return nil
		}
		p := r.Token
		c, ok := o.clients[p.ClientID]
		if !ok || p.Family == "" {
			return errors.New("names no known client or no family")
		}
		f := o.familyLocked(p.Family, c)
		if f.revoked {
			return nil // revoked with its family: gone
		}
		t := &Token{Client: c, Scopes: p.Scopes, ExpiresAt: p.ExpiresAt, RealExpiresAt: p.RealExp, Refresh: p.Refresh, rotated: p.Rotated, family: f}
		if old, ok := o.tokens[d]; ok && old.family == f { // the same token again (rotated since)
			old.rotated = t.rotated
			return nil
		}
		o.addToken(d, t)
	default:
		return errors.New("unknown kind")
	}
	return nil
}

// ExportAccount returns the records of the codes and tokens (and their families) of the
// account's clients: what a snapshot of the account carries (docs/protocol.md §12).
func (o *OAuth) ExportAccount(account string) []OAuthRecord {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.statesLocked(func(c *OAuthClient) bool { return c.Credential.Account == account }, false)
}

// ImportAccount replaces the codes and tokens of the account's clients by recs (what
// ExportAccount returned): those issued since are gone, those of the snapshot are back, in the
// state they had. Records naming a client of another account, or no known client, are refused
// before anything changes. The change hook sees the removals and the records.
func (o *OAuth) ImportAccount(account string, recs []OAuthRecord) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, r := range recs {
		var client string
		switch {
		case r.Kind == oauthCode && r.Code != nil:
			client = r.Code.ClientID
		case r.Kind == oauthToken && r.Token != nil:
			client = r.Token.ClientID
		case r.Kind == oauthFamily:
			client = r.ClientID
		default:
			return fmt.Errorf("auth: importing OAuth %s %q: not a code, token or family", r.Kind, r.Key)
		}
		if c, ok := o.clients[client]; !ok || c.Credential.Account != account {
			return fmt.Errorf("auth: importing OAuth %s %q: its client is not one of the account's", r.Kind, r.Key)
		}
	}
	var changed []OAuthRecord
	for d, c := range o.codes {
		if cl, ok := o.clients[c.ClientID]; ok && cl.Credential.Account == account {
			delete(o.codes, d)
			changed = append(changed, deletedRecord(oauthCode, d))
		}
	}
	for d, t := range o.tokens {
		if t.Client.Credential.Account == account {
			delete(o.tokens, d)
			changed = append(changed, deletedRecord(oauthToken, d))
		}
	}
	for _, c := range o.clients {
		if c.Credential.Account == account { // the snapshot's families and codes, afresh
			c.families.Init()
			c.codes = nil
		}
	}
	o.restoring = map[string]*family{}
	defer func() { o.restoring = nil }()
	for _, r := range recs {
		if err := o.restoreLocked(r); err != nil {
			return fmt.Errorf("auth: importing OAuth %s %q: %w", r.Kind, r.Key, err) // a malformed digest
		}
		changed = append(changed, r)
	}
	o.changedLocked(changed...)
	return nil
}
