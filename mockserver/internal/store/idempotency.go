package store

import (
	"net/http"
	"time"
)

// IdempotencyRetention is how long a completed key is remembered.
const IdempotencyRetention = 24 * time.Hour

// IdempotencyEntry is the stored outcome of a POST with an Idempotency-Key.
type IdempotencyEntry struct {
	Fingerprint string      `json:"fingerprint"` // an opaque digest of the request
	InFlight    bool        `json:"inFlight"`
	Status      int         `json:"status"`
	Header      http.Header `json:"header"`
	Body        []byte      `json:"body"`
	StoredAt    time.Time   `json:"storedAt"`
	// Audit is what the original request touched (action, resource type, id), so a replay that
	// hands out the same PHI is audited like the original.
	Audit []string `json:"audit,omitempty"`
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

// BeginIdempotent claims key (already scoped to the credential) for the request fingerprint.
func (a *Account) BeginIdempotent(key, fingerprint string) (IdempotencyOutcome, *IdempotencyEntry) {
	now := a.Clock().Now()
	a.idemMu.Lock()
	defer a.idemMu.Unlock()
	if e, ok := a.idem[key]; ok && (e.InFlight || now.Sub(e.StoredAt) < IdempotencyRetention) {
		switch {
		case e.Fingerprint != fingerprint:
			return IdempotencyReused, nil
		case e.InFlight:
			return IdempotencyInUse, nil
		default:
			c := *e
			return IdempotencyReplay, &c
		}
	}
	// Expired entries are ignored above and swept here once the map has doubled since the last
	// sweep: amortized constant time per key (a sweep every 1,024 keys made seeding a million
	// keyed POSTs quadratic), and at most twice the live entries in memory.
	if len(a.idem) >= max(4096, a.idemSweepAt) {
		for k, e := range a.idem {
			if !e.InFlight && now.Sub(e.StoredAt) >= IdempotencyRetention {
				delete(a.idem, k)
			}
		}
		a.idemSweepAt = 2 * len(a.idem)
	}
	a.idem[key] = &IdempotencyEntry{Fingerprint: fingerprint, InFlight: true, StoredAt: now}
	return IdempotencyProceed, nil
}

// FinishIdempotent stores the outcome of a claimed key; 5xx outcomes are forgotten so a retry
// runs anew.
func (a *Account) FinishIdempotent(key string, status int, header http.Header, body []byte, audit ...string) {
	a.idemMu.Lock()
	defer a.idemMu.Unlock()
	e, ok := a.idem[key]
	if !ok {
		return
	}
	if status >= 500 {
		delete(a.idem, key)
		return
	}
	e.InFlight, e.Status, e.Header, e.Body, e.StoredAt, e.Audit = false, status, header, body, a.Clock().Now(), audit
}
