package persist

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
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
	bolt "go.etcd.io/bbolt"
)

// Release 0.2 kept a data directory as logs of JSON records (durable.Read02): state/ (a
// snapshot — header, clock, cred, oauth, account, rows, pending, snapname, end records — then
// tx, replace, cred, oauth, clock and snapname records, one per change), audit/<account>/ (the
// audit events), and snapshots/ (named snapshots, a file each, named by their SHA-256).
// import02 turns them into the buckets, once, then moves them into BackupDir.

// BackupDir is where the files of release 0.2 are kept once imported.
const BackupDir = "v0.2-backup"

// format02 names the layout of 0.2's state records.
const format02 = "medspa-mock-data/2"

// kImported02 says the state of 0.2 is in the file (its files may still be to move).
const kImported02 = "imported-0.2"

// record02 is a record of 0.2's state log: T says which fields it uses.
type record02 struct {
	T        string                `json:"t"`
	A        string                `json:"a"`
	Seq      uint64                `json:"seq"`
	W        []write02             `json:"w"`
	Ev       []json.RawMessage     `json:"ev"`
	Claim    string                `json:"claim"`
	Resolved string                `json:"resolved"`
	State    json.RawMessage       `json:"state"`
	File     string                `json:"file"`
	Kind     string                `json:"k"`
	Rows     []json.RawMessage     `json:"rows"`
	Cred     *auth.CredentialState `json:"cred"`
	OAuth    []auth.OAuthRecord    `json:"oauth"`
	Pending  []webhook.Pending     `json:"pending"`
	Clock    *clock.State          `json:"clock"`
	Name     string                `json:"name"`
	Format   string                `json:"format"`
	KeyCheck string                `json:"keyCheck"`
	IDs      json.RawMessage       `json:"ids"`
}

type write02 struct {
	Kind  string          `json:"k"`
	ID    string          `json:"id"`
	Value json.RawMessage `json:"v"`
}

// importer writes 0.2's records into the buckets, in one transaction.
type importer struct {
	dir      string
	ops      []op
	resolved map[string]bool   // claims whose outcome the log holds
	snapSeq  map[string]uint64 // per account: the last change its snapshot holds
	events   map[string]*seqs
	pending  map[string][]webhook.Pending
	settled  map[string]uint64
	after    uint64 // records after the snapshot
	inSnap   bool
}

// import02 imports the files of release 0.2 in dir, if any, and moves them into dir/BackupDir.
func import02(db *durable.DB, dir string) error {
	state := filepath.Join(dir, "state")
	im := &importer{dir: dir, resolved: map[string]bool{}, snapSeq: map[string]uint64{}, events: map[string]*seqs{},
		pending: map[string][]webhook.Pending{}, settled: map[string]uint64{}}
	done := false
	_ = db.View(func(tx *bolt.Tx) error { done = tx.Bucket([]byte(bMeta)).Get([]byte(kImported02)) != nil; return nil })
	found, err := durable.Read02(state, func(b []byte) error {
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
	if found && !done {
		if _, err := durable.Read02(state, im.apply); err != nil {
			return err
		}
		im.finish()
		if err := db.Update(func(tx *bolt.Tx) error { return apply(tx, im.ops) }); err != nil {
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

// importAudit02 imports each account's 0.2 audit log in dir into its log (unless a cut-short
// import did already).
func importAudit02(db *durable.DB, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, de := range entries {
		var recs [][]byte
		if _, err := durable.Read02(filepath.Join(dir, de.Name()), func(r []byte) error { recs = append(recs, bytes.Clone(r)); return nil }); err != nil {
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

func (im *importer) put(bucket, sub string, key, val []byte) {
	im.ops = append(im.ops, op{bucket, sub, key, val})
}

// event puts an account's event under its next key.
func (im *importer) event(account string, ev []byte) {
	s := im.events[account]
	if s == nil {
		s = &seqs{1, 1}
		im.events[account] = s
	}
	im.put(acctPrefix+account, store.KindEvent, durable.Key(s.next), ev)
	s.next++
}

// apply turns one 0.2 record into puts and deletes, as the 0.2 replay applied it.
func (im *importer) apply(b []byte) error {
	var r record02
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("a record that is not JSON: %w", err)
	}
	acct := acctPrefix + r.A
	switch r.T {
	case "header":
		if r.Format != format02 {
			return fmt.Errorf("the state's format is %q, not %q", r.Format, format02)
		}
		im.inSnap = true
		im.put(bMeta, "", []byte(kKeyCheck), []byte(r.KeyCheck))
		im.put(bMeta, "", []byte(kIDs), r.IDs)
	case "end":
		im.inSnap = false
		for a, s := range im.events {
			im.settled[a] = s.next - 1
		}
		return nil
	case "account":
		im.snapSeq[r.A] = r.Seq
		im.ops = append(im.ops, marshalOp(acct, "", kClock, r.Clock, r.Clock != nil))
	case "rows":
		for _, row := range r.Rows {
			var id struct{ ID, Key string }
			if err := json.Unmarshal(row, &id); err != nil {
				return err
			}
			if r.Kind == store.KindEvent {
				im.event(r.A, row)
			} else {
				im.put(acct, r.Kind, []byte(id.ID+id.Key), row)
			}
		}
	case "pending":
		im.pending[r.A] = append(im.pending[r.A], r.Pending...)
	case "tx":
		if r.Claim != "" && !im.resolved[r.Claim] || r.Seq <= im.snapSeq[r.A] {
			break
		}
		for _, w := range r.W {
			im.put(acct, w.Kind, []byte(w.ID), w.Value)
		}
		for _, ev := range r.Ev {
			im.event(r.A, ev)
		}
	case "replace":
		if r.Seq <= im.snapSeq[r.A] {
			break
		}
		state := []byte(r.State)
		if r.File != "" {
			var snap AccountSnapshot
			b, err := os.ReadFile(filepath.Join(im.dir, "snapshots", r.File))
			if err == nil {
				err = json.Unmarshal(b, &snap)
			}
			if err != nil {
				return fmt.Errorf("snapshot file %s: %w", r.File, err)
			}
			state, im.pending[r.A] = snap.Store, snap.Pending
		}
		im.put(acct, "", nil, nil)
		if s := im.events[r.A]; s != nil {
			im.settled[r.A] = s.next - 1
		}
		if state != nil {
			err := store.StateRecords(state, func(kind, id string, v []byte) error {
				if kind == store.KindEvent {
					im.event(r.A, v)
				} else {
					im.put(acct, kind, []byte(id), v)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		if r.File != "" {
			im.settled[r.A] = im.events[r.A].next - 1
		}
	case "cred":
		if r.Cred == nil {
			return errors.New("a cred record without its state")
		}
		im.ops = append(im.ops, marshalOp(bCred, "", r.Cred.ID, r.Cred, r.Cred.Credential != nil))
	case "oauth":
		for _, o := range r.OAuth {
			im.ops = append(im.ops, marshalOp(bOAuth, o.Kind, o.Key, o, !o.Deleted))
		}
	case "clock":
		if r.A == "" {
			im.ops = append(im.ops, marshalOp(bMeta, "", kClock, r.Clock, r.Clock != nil))
		} else {
			im.ops = append(im.ops, marshalOp(acct, "", kClock, r.Clock, r.Clock != nil))
		}
	case "snapname":
		var snap []byte
		if r.File != "" {
			var err error
			if snap, err = os.ReadFile(filepath.Join(im.dir, "snapshots", r.File)); err != nil {
				return err
			}
		}
		im.put(bSnapshots, "", []byte(r.A+"\x00"+r.Name), snap)
	default:
		return fmt.Errorf("a record of an unknown type %q", r.T)
	}
	if !im.inSnap {
		im.after++
	}
	return nil
}

// finish writes what the import gathered: pending deliveries, each account's settled event,
// the changes after the snapshot as dirty (their events are delivered again), the mark.
func (im *importer) finish() {
	for a, pd := range im.pending {
		im.ops = append(im.ops, marshalOp(acctPrefix+a, "", kPending, pd, len(pd) > 0))
	}
	for a, n := range im.settled {
		im.put(acctPrefix+a, "", []byte(kSettled), durable.Key(n))
	}
	im.put(bMeta, "", []byte(kDirty), durable.Key(im.after))
	im.put(bMeta, "", []byte(kImported02), []byte{1})
}
