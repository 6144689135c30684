package store

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"slices"
	"time"
)

// IdempotencyRetention is how long a completed key is remembered.
const IdempotencyRetention = 24 * time.Hour

// IdempotencyEntry is the outcome of a completed POST with an Idempotency-Key, as a replay
// answers it.
type IdempotencyEntry struct {
	Status int
	// Header is the answer's header lines (an http.Header; this entry's own copy).
	Header map[string][]string
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

// idemEntry is a key's state as the account keeps it. The answer (header, body, and what it
// audited) is sealed as one value, so PHI stays encrypted at rest here as in the tables
// (docs/protocol.md §11), in memory and in snapshots alike. The sealed bytes live in the store's arena:
// an entry holds no pointer, so the garbage collector never scans the day of keys.
type idemEntry struct {
	fingerprint digest
	storedAt    int64 // Unix nanoseconds on the account clock
	status      int32
	inFlight    bool
	answer      arenaRef
}

// expired reports whether the entry is past its retention: a completed key after 24 h; a claim
// still in flight after 24 h too (its request can no longer be running: it ended without an
// answer, a panic say, and must not hold the key, or memory, for ever).
func (e *idemEntry) expired(now time.Time) bool {
	return now.UnixNano()-e.storedAt >= int64(IdempotencyRetention)
}

// DefaultIdempotencyKeys bounds the idempotency keys an account keeps (RELIABILITY.md "Bounds"):
// past it, the oldest completed keys are forgotten before their 24 h (a retry with one of them
// runs anew).
const DefaultIdempotencyKeys = 100_000

// idemStore is an account's idempotency keys; the caller holds Account.idemMu.
type idemStore struct {
	entries map[digest]idemEntry
	arena   arena
	sweepAt int // sweep expired keys when entries reaches this size
	limit   int // keys kept at most (0: DefaultIdempotencyKeys)
}

func newIdemStore(limit int) *idemStore {
	return &idemStore{entries: map[digest]idemEntry{}, limit: limit}
}

// sweep drops expired entries once the map has doubled since the last sweep (or holds more
// than its limit): amortized constant time per key (a sweep every 1,024 keys made seeding a
// million keyed POSTs quadratic), and at most twice the live entries in memory.
func (s *idemStore) sweep(now time.Time) {
	limit := cmp.Or(s.limit, DefaultIdempotencyKeys)
	if len(s.entries) < min(max(4096, s.sweepAt), limit) {
		return
	}
	s.sweepNow(now)
	if len(s.entries) >= limit {
		s.dropOldest(len(s.entries) - limit*9/10)
	}
	s.sweepAt = 2 * len(s.entries)
}

// dropOldest forgets the n oldest completed entries (at the limit: a tenth of it at once, so
// the cost is amortized).
func (s *idemStore) dropOldest(n int) {
	type aged struct {
		k  digest
		at int64
	}
	var done []aged
	for k, e := range s.entries {
		if !e.inFlight {
			done = append(done, aged{k, e.storedAt})
		}
	}
	slices.SortFunc(done, func(a, b aged) int { return cmp.Compare(a.at, b.at) })
	for _, d := range done[:min(n, len(done))] {
		delete(s.entries, d.k)
	}
	s.compact()
}

// sweepNow drops every expired entry, then compacts the arena when more than half of it is
// dead.
func (s *idemStore) sweepNow(now time.Time) {
	for k, e := range s.entries {
		if e.expired(now) {
			delete(s.entries, k)
		}
	}
	s.compact()
}

// compact copies the live answers to a fresh arena when more than half of the arena is dead.
func (s *idemStore) compact() {
	live := 0
	for _, e := range s.entries {
		live += int(e.answer.n)
	}
	if 2*live < s.arena.size {
		var fresh arena
		for k, e := range s.entries {
			if e.answer.n > 0 {
				e.answer = fresh.add(s.arena.get(e.answer))
				s.entries[k] = e
			}
		}
		s.arena = fresh
	}
}

// SweepIdempotency drops the account's expired idempotency keys (24 h on the account's clock)
// and compacts their arena. The server runs it periodically; claims sweep as they go too.
func (a *Account) SweepIdempotency() {
	now := a.Clock().Now()
	a.idemMu.Lock()
	defer a.idemMu.Unlock()
	a.idem.sweepNow(now)
}

// IdempotencyKeys returns how many idempotency keys the account holds (tests, bounds).
func (a *Account) IdempotencyKeys() int {
	a.idemMu.Lock()
	defer a.idemMu.Unlock()
	return len(a.idem.entries)
}

// BeginIdempotent claims key (already scoped to the credential) for fp, a digest of the request
// (method, path and body).
func (a *Account) BeginIdempotent(key string, fp [sha256.Size]byte) (IdempotencyOutcome, *IdempotencyEntry) {
	k := sha256.Sum256([]byte(key))
	now := a.Clock().Now()
	a.idemMu.Lock()
	defer a.idemMu.Unlock()
	s := a.idem
	if e, ok := s.entries[k]; ok && !e.expired(now) {
		switch {
		case e.fingerprint != fp:
			return IdempotencyReused, nil
		case e.inFlight:
			return IdempotencyInUse, nil
		}
		if out, err := a.replay(int(e.status), s.arena.get(e.answer)); err == nil {
			return IdempotencyReplay, out
		}
		// An entry that no longer opens (its snapshot came from a server with another PHI key)
		// is as good as gone: the request runs anew.
	}
	s.sweep(now)
	s.entries[k] = idemEntry{fingerprint: fp, inFlight: true, storedAt: now.UnixNano()}
	return IdempotencyProceed, nil
}

// FinishIdempotent stores the outcome of a claimed key; 5xx outcomes are forgotten so a retry
// runs anew.
func (a *Account) FinishIdempotent(key string, status int, header map[string][]string, body []byte, audit ...string) {
	k := sha256.Sum256([]byte(key))
	sealed := a.store.sealer.Seal(packAnswer(header, body, audit)) // the crypto, outside the lock
	a.idemMu.Lock()
	defer a.idemMu.Unlock()
	s := a.idem
	e, ok := s.entries[k]
	if !ok {
		return
	}
	if status >= 500 {
		delete(s.entries, k)
		return
	}
	e.inFlight, e.status, e.storedAt = false, int32(status), a.Clock().Now().UnixNano()
	e.answer = s.arena.add(sealed)
	s.entries[k] = e
	a.commitLocked(Change{Account: a.ID, Writes: []Write{{Kind: "idempotency", ID: hex.EncodeToString(k[:])}}})
}

// replay opens a completed entry's answer.
func (a *Account) replay(status int, sealed []byte) (*IdempotencyEntry, error) {
	plain, err := a.store.sealer.Open(sealed)
	if err != nil {
		return nil, err
	}
	header, body, audit, err := unpackAnswer(plain)
	if err != nil {
		return nil, err
	}
	return &IdempotencyEntry{Status: status, Header: header, Body: body, Audit: audit}, nil
}

// packAnswer lays out the header (its line count, then each name and value length-prefixed),
// the audit strings (count, then each length-prefixed) and then the body, for sealing as one
// value.
func packAnswer(header map[string][]string, body []byte, audit []string) []byte {
	n := 2*binary.MaxVarintLen64 + len(body)
	for k, vs := range header {
		for _, v := range vs {
			n += 2*binary.MaxVarintLen64 + len(k) + len(v)
		}
	}
	for _, s := range audit {
		n += binary.MaxVarintLen64 + len(s)
	}
	b := make([]byte, 0, n)
	lines := 0
	for _, vs := range header {
		lines += len(vs)
	}
	b = binary.AppendUvarint(b, uint64(lines))
	for k, vs := range header {
		for _, v := range vs {
			b = appendString(appendString(b, k), v)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(audit)))
	for _, s := range audit {
		b = appendString(b, s)
	}
	return append(b, body...)
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

var errBadAnswer = errors.New("store: malformed idempotency entry")

// answerReader reads packAnswer's layout; the first error sticks.
type answerReader struct {
	b   []byte
	err error
}

func (r *answerReader) count(limit uint64) int {
	v, n := binary.Uvarint(r.b)
	if r.err != nil || n <= 0 || v > limit {
		r.err, r.b = errBadAnswer, nil
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *answerReader) string() string {
	l := r.count(uint64(len(r.b)))
	if r.err != nil || l > len(r.b) {
		r.err, r.b = errBadAnswer, nil
		return ""
	}
	s := string(r.b[:l])
	r.b = r.b[l:]
	return s
}

func unpackAnswer(b []byte) (header map[string][]string, body []byte, audit []string, err error) {
	r := answerReader{b: b}
	lines := r.count(1024)
	header = make(map[string][]string, lines)
	for range lines {
		k := r.string()
		header[k] = append(header[k], r.string())
	}
	for range r.count(16) {
		audit = append(audit, r.string())
	}
	if r.err != nil {
		return nil, nil, nil, r.err
	}
	return header, r.b, audit, nil
}
