package audit

import (
	"path/filepath"
	"testing"

	"github.com/medspa/medspa-go/mockserver/internal/durable"
	bolt "go.etcd.io/bbolt"
)

// Dropping the newest events of an account's audit file while the server is stopped is reported
// (SECURITY.md, "audit head"): the chain that is left verifies by itself, so the file's head —
// the newest event's number and hash, committed with the events — catches it, and an event
// recorded after the restart does not hide it.
func TestRemovedNewestEventsAreBroken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := Options{Retention: 100}
	l, _, done := fileLog(t, dir, opts)
	fill(t, l, "acct", 0, 10)
	done()

	db, err := bolt.Open(filepath.Join(dir, durable.FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		c := tx.Bucket([]byte("audit/acct")).Bucket([]byte("log")).Cursor()
		for range 3 {
			c.Last()
			if err := c.Delete(); err != nil {
				return err
			}
		}
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	for round := range 2 {
		l, _, done := fileLog(t, dir, opts)
		k := l.Kept("acct")
		p, err := l.After("acct", ZeroID)
		if err != nil || k.Verified || p.Verified || len(k.Events) < 7 {
			t.Fatalf("round %d: kept %d events verified %v; paged %v verified %v", round, len(k.Events), k.Verified, err, p.Verified)
		}
		fill(t, l, "acct", 100+round, 101+round) // a new event chains from the truncated end
		done()
	}
}
