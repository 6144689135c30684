package store

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"net/http"
	"time"
)

// IdempotencyRetention is how long a completed key is remembered.
const IdempotencyRetention = 24 * time.Hour

// IdempotencyEntry is the outcome of a completed POST with an Idempotency-Key, as a replay
// answers it.
type IdempotencyEntry struct {
	Status int
	Header http.Header
	Body   []byte
	// Audit is what the original request touched (action, resource type, id), so a replay that
	// hands out the same PHI is audited like the original.
	Audit []string
}

// IdempotencyOutcome says what to do with a keyed request.
type IdempotencyOutcome int

// Outcomes of BeginIdempotent.
const (
	IdempotencyProceed IdempotencyOutcome = iota // first use: run it, then FinishIdempotent
	IdempotencyReplay                            // completed before with the same request: replay the entry
	IdempotencyInUse                             // the same key is still in flight
	IdempotencyReused                            // the key was used for a different request
)

// digest is a SHA-256 sum: keys and fingerprints are kept as digests, fixed-size and free of
// pointers, so a day of keys costs the same whatever the clients send.
type digest = [sha256.Size]byte

// idemEntry is a key's state as the account keeps it. The answer's body (which holds PHI for
// patient creates) and what it audited are sealed together, so PHI stays encrypted at rest here
// as in the tables (contract §11), in memory and in snapshots alike.
type idemEntry struct {
	fingerprint digest
	storedAt    int64 // Unix nanoseconds on the account clock
	status      int32
	inFlight    bool
	header      http.Header // shared, never modified: most answers use one of two values
	sealed      []byte
}

func (e *idemEntry) expired(now time.Time) bool {
	return !e.inFlight && now.UnixNano()-e.storedAt >= int64(IdempotencyRetention)
}

// BeginIdempotent claims key (already scoped to the credential) for the request fingerprint.
func (a *Account) BeginIdempotent(key, fingerprint string) (IdempotencyOutcome, *IdempotencyEntry) {
	k, fp := sha256.Sum256([]byte(key)), sha256.Sum256([]byte(fingerprint))
	now := a.Clock().Now()
	a.idemMu.Lock()
	defer a.idemMu.Unlock()
	if e, ok := a.idem[k]; ok && !e.expired(now) {
		switch {
		case e.fingerprint != fp:
			return IdempotencyReused, nil
		case e.inFlight:
			return IdempotencyInUse, nil
		}
		if out, err := a.replay(&e); err == nil {
			return IdempotencyReplay, out
		}
		// An entry that no longer opens (its snapshot came from a server with another PHI key)
		// is as good as gone: the request runs anew.
	}
	// Expired entries are ignored above and swept here once the map has doubled since the last
	// sweep: amortized constant time per key (a sweep every 1,024 keys made seeding a million
	// keyed POSTs quadratic), and at most twice the live entries in memory.
	if len(a.idem) >= max(4096, a.idemSweepAt) {
		for k, e := range a.idem {
			if e.expired(now) {
				delete(a.idem, k)
			}
		}
		a.idemSweepAt = 2 * len(a.idem)
	}
	a.idem[k] = idemEntry{fingerprint: fp, inFlight: true, storedAt: now.UnixNano()}
	return IdempotencyProceed, nil
}

// FinishIdempotent stores the outcome of a claimed key; 5xx outcomes are forgotten so a retry
// runs anew. header must not be modified afterwards.
func (a *Account) FinishIdempotent(key string, status int, header http.Header, body []byte, audit ...string) {
	k := sha256.Sum256([]byte(key))
	a.idemMu.Lock()
	defer a.idemMu.Unlock()
	e, ok := a.idem[k]
	if !ok {
		return
	}
	if status >= 500 {
		delete(a.idem, k)
		return
	}
	e.inFlight, e.status, e.header, e.storedAt = false, int32(status), header, a.Clock().Now().UnixNano()
	e.sealed = a.store.sealer.Seal(packAnswer(body, audit))
	a.idem[k] = e
}

// replay opens a completed entry.
func (a *Account) replay(e *idemEntry) (*IdempotencyEntry, error) {
	plain, err := a.store.sealer.Open(e.sealed)
	if err != nil {
		return nil, err
	}
	body, audit, err := unpackAnswer(plain)
	if err != nil {
		return nil, err
	}
	return &IdempotencyEntry{Status: int(e.status), Header: e.header, Body: body, Audit: audit}, nil
}

// packAnswer lays out the audit strings (each length-prefixed, after their count) and then the
// body, for sealing as one value.
func packAnswer(body []byte, audit []string) []byte {
	n := binary.MaxVarintLen64 + len(body)
	for _, s := range audit {
		n += binary.MaxVarintLen64 + len(s)
	}
	b := make([]byte, 0, n)
	b = binary.AppendUvarint(b, uint64(len(audit)))
	for _, s := range audit {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return append(b, body...)
}

var errBadAnswer = errors.New("store: malformed idempotency entry")

func unpackAnswer(b []byte) (body []byte, audit []string, err error) {
	count, n := binary.Uvarint(b)
	if n <= 0 || count > 16 {
		return nil, nil, errBadAnswer
	}
	b = b[n:]
	for range count {
		l, n := binary.Uvarint(b)
		if n <= 0 || l > uint64(len(b)-n) {
			return nil, nil, errBadAnswer
		}
		audit = append(audit, string(b[n:n+int(l)]))
		b = b[n+int(l):]
	}
	return b, audit, nil
}
