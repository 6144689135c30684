// Package import02 imports a data directory of release 0.2 — logs of JSON records in files of
// its own format (read.go) — into the bbolt file, once, at open: a migration to delete when 0.2
// support ends. What it writes is made by persist.Batch, as the engine makes a commit's.
package import02

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/mockserver/internal/durable"
	"github.com/medspa/medspa-go/mockserver/internal/persist"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// Release 0.2 kept a data directory as logs of JSON records (Read02): state/ (a
// snapshot — header, clock, cred, oauth, account, rows, pending, snapname, end records — then
// tx, replace, cred, oauth, clock and snapname records, one per change), audit/<account>/ (its
// audit events), and snapshots/ (named snapshots, a file each). Import writes what they hold
// into the buckets once, then moves them into BackupDir.

// BackupDir is where the files of release 0.2 are kept once imported.
const BackupDir = "v0.2-backup"

// kImported02 says the state of 0.2 is in the file (its files may still be to move).
const kImported02 = "imported-0.2"

// record02 is a record of 0.2's state log: T says which fields it uses.
type record02 struct {
	T, A, Claim, File, Name, Format, KeyCheck string
	Seq                                       uint64
	W                                         []struct {
		K, ID string
		V     json.RawMessage
	}
	Ev      []store.Event
	State   json.RawMessage
	Kind    string `json:"k"`
	Rows    []json.RawMessage
	Cred    *auth.CredentialState
	OAuth   []auth.OAuthRecord
	Pending []webhook.Pending
	Clock   *clock.State
	IDs     json.RawMessage
}

// importer turns 0.2's records into puts and deletes, applied as the 0.2 server replayed them.
type importer struct {
	persist.Batch
	dir      string
	resolved map[string]bool   // claims whose outcome the log holds
	snapSeq  map[string]uint64 // per account: the last change its snapshot holds
	pending  map[string][]webhook.Pending
	after    uint64 // records after the snapshot
	inSnap   bool
}

// Import imports the files of release 0.2 in dir, if any, into db, and moves them into
// dir/BackupDir.
func Import(db *durable.DB, dir string) error {
	im := &importer{dir: dir, resolved: map[string]bool{}, snapSeq: map[string]uint64{}, pending: map[string][]webhook.Pending{}}
	state := filepath.Join(dir, "state")
	found, err := Read02(state, func(b []byte) error {
		var r struct{ T, Resolved string }
		err := json.Unmarshal(b, &r)
		im.resolved[r.Resolved] = r.T == "tx" && r.Resolved != ""
		return err
	})
	audit, aerr := os.Stat(filepath.Join(dir, "audit")) // also alone: a migrated -data file's
	if err != nil || !found && (aerr != nil || !audit.IsDir()) {
		return err
	}
	if err := importAudit02(db, filepath.Join(dir, "audit")); err != nil {
		return err
	}
	if found && !persist.Marked(db, kImported02) {
		if _, err := Read02(state, im.apply); err != nil {
			return err
		}
		for a, pd := range im.pending {
			im.Pending(a, pd)
		}
		if err := im.Write(db, im.after, kImported02); err != nil {
			return err
		}
	}
	backup := filepath.Join(dir, BackupDir)
	if err := os.MkdirAll(backup, 0o700); err != nil {
		return err
	}
	for _, n := range []string{"state", "audit", "snapshots"} {
		if err := os.Rename(filepath.Join(dir, n), filepath.Join(backup, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return errors.Join(durable.SyncDir(backup), durable.SyncDir(dir))
}

// importAudit02 imports each account's 0.2 audit log under dir into its log, unless a cut-short
// import did already.
func importAudit02(db *durable.DB, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, de := range entries {
		var recs [][]byte
		if _, err := Read02(filepath.Join(dir, de.Name()), func(r []byte) error { recs = append(recs, bytes.Clone(r)); return nil }); err != nil {
			return err
		}
		l, err := db.Log("audit/" + de.Name())
		empty := true
		if err == nil {
			err = l.ReadFrom(durable.Position{}, func([]byte, durable.Position) error { empty = false; return nil })
		}
		if err == nil && empty && len(recs) > 0 {
			err = l.Enqueue(recs...).Wait(context.Background())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// apply adds the puts and deletes of one 0.2 record.
func (im *importer) apply(b []byte) error {
	var r record02
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("a record that is not JSON: %w", err)
	}
	c := store.Change{Account: r.A}
	var err error
	switch r.T {
	case "header":
		if r.Format != "medspa-mock-data/2" {
			return fmt.Errorf("the state's format is %q, not medspa-mock-data/2", r.Format)
		}
		im.inSnap = true
		im.Header(r.KeyCheck, r.IDs)
	case "end":
		im.inSnap = false
		im.Settle("")
		return nil
	case "account":
		im.snapSeq[r.A] = r.Seq
		im.Clock(r.A, r.Clock)
	case "rows":
		for _, row := range r.Rows {
			var x struct{ ID, Key string }
			var ev store.Event
			if err := json.Unmarshal(row, &x); err != nil {
				return err
			}
			if r.Kind != store.KindEvent {
				c.Writes = append(c.Writes, store.Write{Kind: r.Kind, ID: x.ID + x.Key, Value: row})
			} else if err := json.Unmarshal(row, &ev); err != nil {
				return err
			} else {
				c.Events = append(c.Events, ev)
			}
		}
		err = im.Change(c)
	case "pending":
		im.pending[r.A] = append(im.pending[r.A], r.Pending...)
	case "tx":
		if r.Claim != "" && !im.resolved[r.Claim] || r.Seq <= im.snapSeq[r.A] {
			break
		}
		for _, w := range r.W {
			c.Writes = append(c.Writes, store.Write{Kind: w.K, ID: w.ID, Value: w.V, Deleted: w.V == nil})
		}
		c.Events = r.Ev
		err = im.Change(c)
	case "replace":
		if r.Seq <= im.snapSeq[r.A] {
			break
		}
		c.Replaced, c.State = true, r.State
		var snap persist.AccountSnapshot
		if r.File != "" {
			b, err := os.ReadFile(filepath.Join(im.dir, "snapshots", r.File))
			if err == nil {
				err = json.Unmarshal(b, &snap)
			}
			if err != nil {
				return fmt.Errorf("snapshot file %s: %w", r.File, err)
			}
			c.State, im.pending[r.A] = snap.Store, snap.Pending
		}
		if err = im.Change(c); r.File != "" { // its pending deliveries stand for its events
			im.Settle(r.A)
		}
	case "cred":
		if r.Cred == nil {
			return errors.New("a cred record without its state")
		}
		im.Cred(*r.Cred)
	case "oauth":
		im.OAuth(r.OAuth)
	case "clock":
		im.Clock(r.A, r.Clock)
	case "snapname":
		var snap []byte
		if r.File != "" {
			snap, err = os.ReadFile(filepath.Join(im.dir, "snapshots", r.File))
		}
		im.Snapshot(r.A, r.Name, snap)
	default:
		return fmt.Errorf("a record of an unknown type %q", r.T)
	}
	if !im.inSnap {
		im.after++
	}
	return err
}
