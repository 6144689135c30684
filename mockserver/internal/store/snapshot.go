package store

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// accountState is an account's whole state as JSON: its data and its completed idempotency
// entries. In-flight entries are left out: restored, they would block their key for a day.
// Sealed values are bound to the account (seal.go): a state opens only in the account it came
// from.
type accountState struct {
	Data        *data                        `json:"data"`
	Idempotency map[string]IdempotencyRecord `json:"idempotency"` // by hex digest of the scoped key
}

// Export returns the account's whole state (data and idempotency entries) as JSON, for
// snapshots and state files. PHI stays sealed. It waits, if need be, for keyed requests with
// committed writes to finish, so that the state holds every such write with its entry.
func (a *Account) Export() ([]byte, error) {
	a.rlockSettled()
	defer a.mu.RUnlock()
	st := accountState{Data: a.data, Idempotency: a.idemRecords()}
	b, err := json.Marshal(st) // one pass, under the lock: the copy is consistent
	if err != nil {
		return nil, fmt.Errorf("store: exporting account: %w", err)
	}
	return b, nil
}

// idemRecords returns the completed idempotency entries, by key; the caller holds a.mu.
func (a *Account) idemRecords() map[string]IdempotencyRecord {
	a.idemMu.Lock()
	defer a.idemMu.Unlock()
	return a.idem.records()
}

// Import replaces the account's whole state with what Export returned. It changes nothing when
// b does not decode.
func (a *Account) Import(b []byte) error { return a.ImportFrom(b, "") }

// ImportFrom is Import of a state the caller keeps under the name source (a snapshot file):
// the commit hook sees the name (Change.Source), so a log records the name, not the state.
func (a *Account) ImportFrom(b []byte, source string) error {
	d, idem, err := decodeState(b, a.store.idemLimit)
	if err != nil {
		return err
	}
	a.replace(d, idem, b, source)
	return nil
}

// ImportUnbound replaces the account's state with one written before sealed values were bound
// to their place (medspa-mock-state/1), migrated by MigrateUnbound. It changes nothing when a
// value does not open (another PHI key).
func (a *Account) ImportUnbound(b []byte) error {
	state, err := a.MigrateUnbound(b)
	if err != nil {
		return err
	}
	return a.Import(state)
}

// MigrateUnbound returns a state written before sealed values were bound to their place
// (medspa-mock-state/1) as this account's state of today: every sealed value is opened as it
// was sealed and sealed again bound to this account, record and field, and blind indexes are
// rebuilt with the account's key. It fails when a value does not open (another PHI key).
func (a *Account) MigrateUnbound(b []byte) ([]byte, error) {
	d, idem, err := decodeState(b, a.store.idemLimit)
	if err != nil {
		return nil, err
	}
	reseal := func(kind, id, field string, v *[]byte) error {
		if *v == nil {
			return nil
		}
		plain, err := a.store.sealer.openUnbound(*v)
		if err != nil {
			return fmt.Errorf("store: migrating %s %s %s: %w", kind, id, field, err)
		}
		*v = a.seal(kind, id, field, plain)
		return nil
	}
	for _, tb := range d.tables() {
		var err error
		tb.each(func(id string, r any) {
			if sr, ok := r.(sealedRecord); ok && err == nil {
				for _, f := range sr.sealedFields() {
					if err = reseal(tb.kindName(), id, f.name, f.value); err != nil {
						return
					}
				}
			}
			if ir, ok := r.(indexedRecord); ok && err == nil {
				err = ir.reindexBlind(a)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	for k, e := range idem.entries {
		sealed := idem.arena.get(e.answer)
		if err := reseal("idempotency", hex.EncodeToString(k[:]), "answer", &sealed); err != nil {
			return nil, err
		}
		e.answer = idem.arena.add(sealed)
		idem.put(k, e)
	}
	state, err := json.Marshal(accountState{Data: d, Idempotency: idem.records()})
	if err != nil {
		return nil, fmt.Errorf("store: migrating account: %w", err)
	}
	return state, nil
}

// decodeState decodes an exported state.
func decodeState(b []byte, limit idemBounds) (*data, *idemStore, error) {
	st := accountState{Data: newData()}
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, nil, fmt.Errorf("store: importing account: %w", err)
	}
	if st.Data == nil {
		return nil, nil, errors.New("store: importing account: no data")
	}
	st.Data.reindex()
	idem := newIdemStore(limit)
	for k, r := range st.Idempotency {
		if r.Key == "" {
			r.Key = k // states written before records named their key
		}
		if err := idem.add(r); err != nil {
			return nil, nil, fmt.Errorf("store: importing account: %w", err)
		}
	}
	return st.Data, idem, nil
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

// Rand returns the source for generated secrets (API keys, signing and webhook secrets, OAuth
// secrets, codes and tokens): crypto/rand, even for a seeded generator, or after
// PredictableSecrets a stream derived from its seed.
func (g *IDGen) Rand() io.Reader {
	if g.secrets == nil {
		return cryptoReader
	}
	return g.secrets
}
