package auth

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"
)

// persistedCredential is one registry entry as persisted: the SHA-256 digest of a bearer
// secret (never the secret), the credential, and for a secret a rotation replaced, when it
// stops working.
type persistedCredential struct {
	SecretSHA256 string      `json:"secretSha256"`
	Credential   *Credential `json:"credential"`
	RetiresAt    *time.Time  `json:"retiresAt,omitempty"`
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
			p := persistedCredential{SecretSHA256: hex.EncodeToString(d[:]), Credential: s.cred}
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
		s := secret{cred: c}
		if p.RetiresAt != nil {
			s.retiresAt = *p.RetiresAt
		}
		r.bySecret[digests[i]] = s
		r.digests[c.ID] = append(r.digests[c.ID], digests[i])
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
	for _, c := range clients {
		o.clients[c.Credential.ID] = c
	}
	return nil
}
