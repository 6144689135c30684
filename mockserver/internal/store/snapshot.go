package store

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// accountState is an account's whole state as JSON: its data and its completed idempotency
// entries. In-flight entries are left out: restored, they would block their key for a day.
type accountState struct {
	Data        *data                 `json:"data"`
	Idempotency map[string]idemRecord `json:"idempotency"` // by hex digest of the scoped key
}

// idemRecord is an idempotency entry as snapshots hold it: digests in hex, the answer (header,
// body, audit) sealed.
type idemRecord struct {
	Fingerprint string    `json:"fingerprint"`
	Status      int       `json:"status"`
	Sealed      []byte    `json:"sealed"`
	StoredAt    time.Time `json:"storedAt"`
}

// Export returns the account's whole state (data and idempotency entries) as JSON, for
// snapshots and -data files. PHI stays sealed.
func (a *Account) Export() ([]byte, error) {
	st := accountState{Idempotency: map[string]idemRecord{}}
	a.idemMu.Lock()
	for k, e := range a.idem.entries {
		if !e.inFlight {
			st.Idempotency[hex.EncodeToString(k[:])] = idemRecord{Fingerprint: hex.EncodeToString(e.fingerprint[:]),
				Status: int(e.status), Sealed: a.idem.arena.get(e.answer), StoredAt: time.Unix(0, e.storedAt).UTC()}
		}
	}
	a.idemMu.Unlock()
	a.mu.RLock()
	defer a.mu.RUnlock()
	st.Data = a.data
	b, err := json.Marshal(st) // one pass, under the lock: the copy is consistent
	if err != nil {
		return nil, fmt.Errorf("store: exporting account: %w", err)
	}
	return b, nil
}

// Import replaces the account's whole state with what Export returned. It changes nothing when
// b does not decode.
func (a *Account) Import(b []byte) error {
	st := accountState{Data: newData()}
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("store: importing account: %w", err)
	}
	if st.Data == nil {
		return fmt.Errorf("store: importing account: no data")
	}
	idem := newIdemStore(a.store.idemLimit)
	for k, r := range st.Idempotency {
		key, err1 := parseDigest(k)
		fp, err2 := parseDigest(r.Fingerprint)
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("store: importing account: idempotency entry: %w", err)
		}
		idem.entries[key] = idemEntry{fingerprint: fp, storedAt: r.StoredAt.UnixNano(), status: int32(r.Status), answer: idem.arena.add(r.Sealed)}
	}
	t := a.begin()
	a.data = st.Data
	t.change.Replaced = true
	t.end()
	a.idemMu.Lock()
	a.idem = idem
	a.idemMu.Unlock()
	return nil
}

func parseDigest(s string) (digest, error) {
	var d digest
	if len(s) != 2*len(d) {
		return d, fmt.Errorf("%q is not a hex SHA-256 digest", s)
	}
	_, err := hex.Decode(d[:], []byte(s))
	return d, err
}

// KeyCheck is a value derived from the PHI key (not revealing it), stored beside persisted
// state so that loading it with another key fails clearly instead of failing on every read.
func (s *Store) KeyCheck() string { return s.sealer.Index("medspa-mock PHI key check") }

// Rand returns the source for generated secrets (API keys, signing and webhook secrets):
// crypto/rand, or for a seeded generator a stream derived from the seed, so that seeded
// servers hand out the same secrets run after run.
func (g *IDGen) Rand() io.Reader {
	if g.secrets == nil {
		return cryptoReader
	}
	return g.secrets
}

// MarshalBinary saves the generator's state, so a restarted server continues the sequence
// instead of repeating it.
func (g *IDGen) MarshalBinary() ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := idGenState{LastMs: g.lastMs, Seq: g.seq}
	var err error
	if st.Rand, err = g.rnd.MarshalBinary(); err != nil {
		return nil, err
	}
	if g.secrets != nil {
		g.secrets.mu.Lock()
		st.Secrets, err = g.secrets.r.MarshalBinary()
		g.secrets.mu.Unlock()
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(st)
}

// UnmarshalBinary restores what MarshalBinary saved.
func (g *IDGen) UnmarshalBinary(b []byte) error {
	var st idGenState
	if err := json.Unmarshal(b, &st); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.rnd.UnmarshalBinary(st.Rand); err != nil {
		return err
	}
	if g.secrets != nil && st.Secrets != nil {
		g.secrets.mu.Lock()
		err := g.secrets.r.UnmarshalBinary(st.Secrets)
		g.secrets.mu.Unlock()
		if err != nil {
			return err
		}
	}
	g.lastMs, g.seq = st.LastMs, st.Seq
	return nil
}

type idGenState struct {
	Rand    []byte `json:"rand"`
	Secrets []byte `json:"secrets,omitempty"`
	LastMs  uint64 `json:"lastMs"`
	Seq     uint16 `json:"seq"`
}
