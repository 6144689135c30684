package store

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
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

// DefaultIdempotencyBytes bounds the bytes of stored answers an account keeps (RELIABILITY.md
// "Bounds"): past it, the oldest completed keys are forgotten before their 24 h, down to nine
// tenths of it (a retry with one of them runs anew, as after the 24 h).
const DefaultIdempotencyBytes = 64 << 20

// idemBounds are an account's bounds on idempotency keys (zero fields: the defaults).
type idemBounds struct{ keys, bytes int }

// idemStore is an account's idempotency keys; the caller holds Account.idemMu. Entries change
// through put and forget only, which keep live, the bytes of the answers held.
type idemStore struct {
	entries map[digest]idemEntry
	arena   arena
	live    int // bytes of the entries' answers
	sweepAt int // sweep expired keys when entries reaches this size
	limit   idemBounds
}

func newIdemStore(limit idemBounds) *idemStore {
	return &idemStore{entries: map[digest]idemEntry{}, limit: limit}
}

// put sets the entry of k.
func (s *idemStore) put(k digest, e idemEntry) {
	s.forget(k)
	s.entries[k] = e
	s.live += int(e.answer.n)
}

// forget drops the entry of k, if any.
func (s *idemStore) forget(k digest) {
	if old, ok := s.entries[k]; ok {
		s.live -= int(old.answer.n)
		delete(s.entries, k)
	}
}

// overBudget forgets the oldest completed entries while the answers held exceed the byte
// budget, down to nine tenths of it (so the cost is amortized), and returns the keys forgotten.
func (s *idemStore) overBudget() []digest {
	budget := cmp.Or(s.limit.bytes, DefaultIdempotencyBytes)
	if s.live <= budget {
		return nil
	}
	var gone []digest
	for _, d := range s.oldestCompleted() {
		if s.live <= budget*9/10 {
			break
		}
		s.forget(d)
		gone = append(gone, d)
	}
	s.compact()
	return gone
}

// oldestCompleted returns the completed entries' keys, oldest first.
func (s *idemStore) oldestCompleted() []digest {
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
	out := make([]digest, len(done))
	for i, d := range done {
		out[i] = d.k
	}
	return out
}

// sweep drops expired entries once the map has doubled since the last sweep (or holds more
// than its limit): amortized constant time per key (a sweep every 1,024 keys made seeding a
// million keyed POSTs quadratic), and at most twice the live entries in memory.
func (s *idemStore) sweep(now time.Time) {
	limit := cmp.Or(s.limit.keys, DefaultIdempotencyKeys)
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
	done := s.oldestCompleted()
	for _, k := range done[:min(n, len(done))] {
		s.forget(k)
	}
	s.compact()
}

// sweepNow drops every expired entry, then compacts the arena when more than half of it is
// dead.
func (s *idemStore) sweepNow(now time.Time) {
	for k, e := range s.entries {
		if e.expired(now) {
			s.forget(k)
		}
	}
	s.compact()
}

// compact copies the live answers to a fresh arena when more than half of the arena is dead.
func (s *idemStore) compact() {
	if 2*s.live < s.arena.size {
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
// (method, path and body). On a Session's handle, a claim that proceeds is the request's until
// FinishIdempotent: the writes the request commits meanwhile carry it (Change.Claim).
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
		if out, err := a.replay(k, int(e.status), s.arena.get(e.answer)); err == nil {
			return IdempotencyReplay, out
		}
		// An entry that no longer opens (its snapshot came from a server with another PHI key)
		// is as good as gone: the request runs anew.
	}
	s.sweep(now)
	s.put(k, idemEntry{fingerprint: fp, inFlight: true, storedAt: now.UnixNano()})
	if a.scope != nil {
		a.scope.claim = hex.EncodeToString(k[:8]) + "." + strconv.FormatUint(a.claims.Add(1), 10)
	}
	return IdempotencyProceed, nil
}

// FinishIdempotent stores the outcome of a claimed key; 5xx outcomes are forgotten so a retry
// runs anew (the request's writes, if any, stay). Either way the claim is resolved. Past the
// account's byte budget, the oldest answers are forgotten, in the same change.
func (a *Account) FinishIdempotent(key string, status int, header map[string][]string, body []byte, audit ...string) {
	k := sha256.Sum256([]byte(key))
	kx := hex.EncodeToString(k[:])
	sealed := a.seal("idempotency", kx, "answer", packAnswer(header, body, audit)) // the crypto, outside the lock
	a.idemMu.Lock()
	defer a.idemMu.Unlock()
	claim := a.takeClaim()
	defer a.claimResolved()
	s := a.idem
	e, ok := s.entries[k]
	if !ok || status >= 500 {
		s.forget(k)
		a.commitLocked(Change{Account: a.ID, Resolved: claim})
		return
	}
	e.inFlight, e.status, e.storedAt = false, int32(status), a.Clock().Now().UnixNano()
	e.answer = s.arena.add(sealed)
	s.put(k, e)
	writes := []Write{{Kind: "idempotency", ID: kx, Value: a.idemRecordLocked(k, e)}}
	for _, d := range s.overBudget() {
		writes = append(writes, Write{Kind: "idempotency", ID: hex.EncodeToString(d[:]), Deleted: true})
	}
	a.commitLocked(Change{Account: a.ID, Resolved: claim, Writes: writes})
}

// AbandonIdempotent forgets a claimed key whose request ended without FinishIdempotent (its
// handler panicked): a retry runs anew, and the claim is resolved (its writes stay). It does
// nothing once the key is finished.
func (a *Account) AbandonIdempotent(key string) {
	k := sha256.Sum256([]byte(key))
	a.idemMu.Lock()
	defer a.idemMu.Unlock()
	if e, ok := a.idem.entries[k]; ok && e.inFlight {
		a.idem.forget(k)
	}
	if claim := a.takeClaim(); claim != "" {
		a.commitLocked(Change{Account: a.ID, Resolved: claim})
	}
	a.claimResolved()
}

// takeClaim returns the handle's claim and ends it.
func (a *Account) takeClaim() string {
	if a.scope == nil {
		return ""
	}
	c := a.scope.claim
	a.scope.claim = ""
	return c
}

// claimCommitted notes that the handle's claim has a committed write (under a.mu).
func (a *Account) claimCommitted() {
	if a.scope == nil || a.scope.committed {
		return
	}
	a.scope.committed = true
	a.claimMu.Lock()
	a.unresolved++
	a.claimMu.Unlock()
}

// claimResolved notes that the handle's claim, if it had committed writes, is resolved.
func (a *Account) claimResolved() {
	if a.scope == nil || !a.scope.committed {
		return
	}
	a.scope.committed = false
	a.claimMu.Lock()
	if a.unresolved--; a.unresolved == 0 {
		a.claimIdle.Broadcast()
	}
	a.claimMu.Unlock()
}

// rlockSettled read-locks the account's data at a moment when no claim has committed writes
// without its outcome: what a snapshot then copies holds every keyed write with its entry. The
// lock is released while waiting, for the claims to finish (they need no lock of ours).
func (a *Account) rlockSettled() {
	for {
		a.mu.RLock()
		a.claimMu.Lock()
		if a.unresolved == 0 {
			a.claimMu.Unlock()
			return
		}
		a.mu.RUnlock()
		a.claimIdle.Wait()
		a.claimMu.Unlock()
	}
}

// IdempotencyRecord is a completed idempotency entry as snapshots and logs hold it: digests in
// hex, the answer (header, body, audit) sealed, bound to the account and the key.
type IdempotencyRecord struct {
	Key         string    `json:"key,omitempty"` // hex digest of the scoped key
	Fingerprint string    `json:"fingerprint"`
	Status      int       `json:"status"`
	Sealed      []byte    `json:"sealed"`
	StoredAt    time.Time `json:"storedAt"`
}

// idemRecordLocked is the record of an entry; the caller holds idemMu.
func (a *Account) idemRecordLocked(k digest, e idemEntry) IdempotencyRecord {
	return a.idem.record(k, e)
}

// record is the record of one of the store's entries.
func (s *idemStore) record(k digest, e idemEntry) IdempotencyRecord {
	return IdempotencyRecord{Key: hex.EncodeToString(k[:]), Fingerprint: hex.EncodeToString(e.fingerprint[:]),
		Status: int(e.status), Sealed: s.arena.get(e.answer), StoredAt: time.Unix(0, e.storedAt).UTC()}
}

// records returns the completed entries, by key.
func (s *idemStore) records() map[string]IdempotencyRecord {
	out := make(map[string]IdempotencyRecord, len(s.entries))
	for k, e := range s.entries {
		if !e.inFlight {
			r := s.record(k, e)
			out[r.Key] = r
		}
	}
	return out
}

// add puts a completed entry from its record.
func (s *idemStore) add(r IdempotencyRecord) error {
	key, err1 := parseDigest(r.Key)
	fp, err2 := parseDigest(r.Fingerprint)
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("idempotency entry: %w", err)
	}
	s.put(key, idemEntry{fingerprint: fp, storedAt: r.StoredAt.UnixNano(), status: int32(r.Status), answer: s.arena.add(r.Sealed)})
	return nil
}

// replay opens a completed entry's answer.
func (a *Account) replay(k digest, status int, sealed []byte) (*IdempotencyEntry, error) {
	plain, err := a.open("idempotency", hex.EncodeToString(k[:]), "answer", sealed)
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
