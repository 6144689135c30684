// Package controls holds the state of the mock server's test controls (docs/protocol.md §12),
// with no HTTP: the request journal (a ring per account), the armed faults, the armed stubs and
// the live stream's subscribers. The request pipeline (mockserver/internal/httpapi) takes
// faults and stubs and journals every request; the admin surface (mockserver/internal/admin)
// arms, lists and clears them, and streams what is published.
package controls

import (
	"crypto/rand"
	"time"
)

// Options configure the controls; a zero bound is its default.
type Options struct {
	// JournalSize bounds the request journal per account (<= 0: off); JournalAccounts and
	// JournalTotal bound it in all (DefaultJournalAccounts, DefaultJournalTotal).
	JournalSize, JournalAccounts, JournalTotal int
	// ArmedFaults bounds the faults armed at once (DefaultArmedFaults).
	ArmedFaults int
	// Now is the server clock, for when faults and stubs were armed and used (nil: time.Now).
	Now func() time.Time
}

// Controls are the test controls' state, shared by the request pipeline and the admin surface.
type Controls struct {
	Journal Journal // the bounded request log (GET /__admin/requests)
	Faults  Faults  // the armed faults (POST /__admin/faults)
	Stubs   Stubs   // the armed stubs (POST /__admin/stubs)
	Stream  Stream  // the live stream's subscribers (GET /__admin/stream)
}

// New returns empty controls.
func New(o Options) *Controls {
	c := &Controls{}
	c.Journal.size, c.Journal.accounts, c.Journal.total = o.JournalSize, o.JournalAccounts, o.JournalTotal
	_, _ = rand.Read(c.Journal.salt[:]) // never fails; not from a seeded source, which it would shift
	c.Faults.limit = o.ArmedFaults
	c.Faults.now, c.Stubs.now = o.Now, o.Now
	return c
}

// nowOf is now's time (time.Now when nil), in UTC to the millisecond.
func nowOf(now func() time.Time) time.Time {
	if now == nil {
		return time.Now().UTC().Truncate(time.Millisecond)
	}
	return now().UTC().Truncate(time.Millisecond)
}
