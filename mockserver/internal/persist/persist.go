// Package persist keeps the mock server's state in a data directory (docs/protocol.md §13,
// "restart loses nothing acknowledged"): the directory's bbolt file (durable) holds the state
// itself; every committed change puts and deletes its keys there, in the transaction shared
// with the changes committed at the same time, before its request is answered. A start reads
// the buckets back (load.go): no log to replay, nothing to compact. The layout is the
// directory's README (datadir-README.txt).
//
// What is written comes from one place per part, so that a new kind of change persists by
// construction: the store's commit point (store.OnCommit: every record of any kind, its events
// and idempotency entries), the registries' change hooks (auth.Registry.OnChange,
// auth.OAuth.OnChange), and the server's clock and named-snapshot calls.
package persist

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/mockserver/internal/durable"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
	bolt "go.etcd.io/bbolt"
)

// Buckets and keys of the file (the audit logs, "audit/<account>", are the audit package's).
const (
	bMeta      = "meta"      // keyCheck, ids (the id generator at the last clean close), clock, dirty
	bCred      = "cred"      // credential id → auth.CredentialState
	bOAuth     = "oauth"     // sub-bucket per kind (oauthKinds): key → auth.OAuthRecord
	bSnapshots = "snapshots" // account NUL name → AccountSnapshot
	acctPrefix = "acct/"     // acct/<account>: a sub-bucket per kind (store.Write.Kind; events by sequence)
	claimsSub  = "~claims"   // an account's claims with writes held until their outcome
	kKeyCheck  = "keyCheck"  // store.KeyCheck of the PHI key that sealed the file's values
	kIDs       = "ids"
	kClock     = "clock"   // a clock.State (an account's: its own clock)
	kDirty     = "dirty"   // changes committed since the last clean close
	kPending   = "pending" // an account's pending webhook deliveries at the last clean close
	kSettled   = "settled" // the key of the account's last event delivered or pending then
)

// oauthKinds are the OAuth record kinds, in the order they restore (what refers comes after).
var oauthKinds = []string{"client", "family", "code", "token"}

// Parts are the server's stateful parts that the engine persists and loads.
type Parts struct {
	Store    *store.Store
	Keys     *auth.Registry
	OAuth    *auth.OAuth
	Webhooks *webhook.Dispatcher
	// SetClock gives an account ("": the server) the clock setting read back from the file.
	SetClock func(account string, st *clock.State)
}

// Engine keeps a server's state in a data directory. Its methods are safe for concurrent use.
type Engine struct {
	db    *durable.DB
	parts Parts

	// mu guards what follows; it is a leaf (hooks call in under the locks of the parts).
	mu     sync.Mutex
	last   store.Pending   // the last commit enqueued (or refused): Sync waits for it
	held   map[string][]op // per claim: the writes of a keyed request, until its outcome
	events eventKeys
	dirty  uint64 // changes since the last clean close
	closed bool
	loaded Loaded
}

// eventKeys are the keys of each account's events in the file: lo to next-1.
type eventKeys map[string]*seqs

type seqs struct{ lo, next uint64 }

// Loaded says what Open found in the directory: no state (Fresh), the records read, the changes
// committed after the last clean close (a crash: their events are delivered again), the keyed
// requests whose writes were left out (the crash came before their outcome: the client's retry
// runs anew), and how long reading took.
type Loaded struct {
	Fresh                     bool
	Records, Changes, Skipped int
	Took                      time.Duration
}

// op puts val under key in bucket (its sub-bucket sub, when not ""), or deletes key (val nil),
// or with key nil drops every sub-bucket of bucket.
type op struct {
	bucket, sub string
	key, val    []byte
}

// apply applies ops in order.
func apply(tx *bolt.Tx, ops []op) error {
	for _, o := range ops {
		b, err := tx.CreateBucketIfNotExists([]byte(o.bucket))
		if err == nil && o.sub != "" {
			b, err = b.CreateBucketIfNotExists([]byte(o.sub))
		}
		switch {
		case err != nil:
		case o.key == nil:
			var subs [][]byte
			_ = b.ForEachBucket(func(k []byte) error { subs = append(subs, k); return nil })
			for _, k := range subs {
				err = errors.Join(err, b.DeleteBucket(k))
			}
		case o.val == nil:
			err = b.Delete(o.key)
		default:
			err = b.Put(o.key, o.val)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Open reads the state in the data directory's file db (from OpenFile, shared with the audit
// log; closed when the engine is released, or Open fails) into parts, and registers the hooks
// that write every change from now on.
func Open(parts Parts, db *durable.DB) (*Engine, error) {
	e := &Engine{db: db, parts: parts, last: failed{nil}, held: map[string][]op{}, events: eventKeys{}}
	if err := e.load(); err != nil {
		return nil, errors.Join(fmt.Errorf("persist: reading the data file: %w", err), db.Close())
	}
	parts.Store.OnCommit(e.commit, true)
	parts.Keys.OnChange(func(st auth.CredentialState) { e.enqueue(new(Batch).Cred(st).ops...) })
	parts.OAuth.OnChange(func(recs []auth.OAuthRecord) { e.enqueue(new(Batch).OAuth(recs).ops...) })
	return e, nil
}

// Loaded reports what Open found.
func (e *Engine) Loaded() Loaded { return e.loaded }

// Sync returns once every change enqueued so far is durable (admin and OAuth requests and the
// server's Go methods wait for it before answering), or with the failure, or ctx's error.
func (e *Engine) Sync(ctx context.Context) error {
	e.mu.Lock()
	c := e.last
	e.mu.Unlock()
	return c.Wait(ctx)
}

// enqueue queues ops as one change (in the order of calls), counted as dirty.
func (e *Engine) enqueue(ops ...op) store.Pending {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.enqueueLocked(ops)
}

func (e *Engine) enqueueLocked(ops []op) store.Pending {
	if e.closed {
		e.last = failed{durable.ErrClosed} // Sync reports it
		return e.last
	}
	e.dirty++
	ops = append(ops, op{bMeta, "", []byte(kDirty), durable.Key(e.dirty)})
	e.last = e.db.Enqueue(func(tx *bolt.Tx) error { return apply(tx, ops) })
	return e.last
}

// failed is the outcome of a change that could not be written at all.
type failed struct{ err error }

func (f failed) Wait(context.Context) error { return f.err }

// commit writes a committed change of an account (store.OnCommit): under the account's lock, so
// its changes reach the file in commit order. The writes of a keyed request are held until its
// outcome (store.Change.Claim) and written with it, so a crash in between leaves neither.
func (e *Engine) commit(_ *store.Account, c store.Change) store.Pending {
	ops, events, err := changeOps(c) // encoded outside e.mu: a replaced state may be large
	if err != nil {
		return failed{err}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ops = append(ops, e.events.ops(c.Account, c.Replaced, events)...)
	acct := acctPrefix + c.Account
	switch {
	case c.Claim != "":
		e.held[c.Claim] = append(e.held[c.Claim], ops...)
		return e.enqueueLocked([]op{{acct, claimsSub, []byte(c.Claim), []byte{1}}})
	case c.Resolved != "":
		ops = append(append(e.held[c.Resolved], ops...), op{acct, claimsSub, []byte(c.Resolved), nil})
		delete(e.held, c.Resolved)
	case c.Source != "": // a named snapshot restored: its pending deliveries stand for its events
		var snap AccountSnapshot
		if b, _, _, err := e.Snapshots().load(c.Source); err == nil && json.Unmarshal(b, &snap) == nil {
			ops = append(ops, (&Batch{events: e.events}).Pending(c.Account, snap.Pending).Settle(c.Account).ops...)
		}
	}
	for claim, held := range e.held { // drop the held writes that ops, written now, make older
		e.held[claim] = slices.DeleteFunc(held, func(h op) bool {
			return slices.ContainsFunc(ops, func(o op) bool {
				return o.bucket == h.bucket && (o.key == nil || o.sub == h.sub && string(o.key) == string(h.key))
			})
		})
	}
	return e.enqueueLocked(ops)
}

// changeOps returns the puts and deletes of a change's writes (a replaced account: its buckets
// dropped, the new state's records put) and its events, encoded.
func changeOps(c store.Change) (ops []op, events [][]byte, err error) {
	acct := acctPrefix + c.Account
	if c.Replaced {
		ops = append(ops, op{bucket: acct})
		err := store.StateRecords(c.State, func(kind, id string, v []byte) error {
			if kind == store.KindEvent {
				events = append(events, v)
			} else {
				ops = append(ops, op{acct, kind, []byte(id), v})
			}
			return nil
		})
		if err != nil && c.State != nil {
			return nil, nil, fmt.Errorf("persist: %w", err)
		}
	}
	for _, w := range c.Writes {
		o := op{acct, w.Kind, []byte(w.ID), nil}
		if !w.Deleted && w.Value == nil {
			return nil, nil, fmt.Errorf("persist: a %s write without its record (a kind without a table?)", w.Kind)
		} else if !w.Deleted {
			o.val, _ = json.Marshal(w.Value) // records always encode
		}
		ops = append(ops, o)
	}
	for _, ev := range c.Events {
		b, _ := json.Marshal(ev)
		events = append(events, b)
	}
	return ops, events, nil
}

// ops puts an account's events under its next sequence keys (after a replaced state's: from
// there on), deleting the oldest once the file holds twice what the store keeps.
func (ek eventKeys) ops(account string, replaced bool, events [][]byte) []op {
	s := ek[account]
	if s == nil {
		s = &seqs{1, 1}
		ek[account] = s
	}
	if replaced {
		s.lo = s.next
	}
	var ops []op
	for _, b := range events {
		ops = append(ops, op{acctPrefix + account, store.KindEvent, durable.Key(s.next), b})
		s.next++
	}
	if s.next-s.lo > 2*store.EventLogSize {
		for ; s.next-s.lo > store.EventLogSize; s.lo++ {
			ops = append(ops, op{acctPrefix + account, store.KindEvent, durable.Key(s.lo), nil})
		}
	}
	return ops
}

// jsonOp puts v's JSON under key (deletes key unless keep).
func jsonOp(bucket, sub, key string, v any, keep bool) op {
	o := op{bucket, sub, []byte(key), nil}
	if keep {
		o.val, _ = json.Marshal(v) // auth's, clock's and webhook's states always encode
	}
	return o
}

// ClockChanged writes an account's clock setting ("" the server's; nil st: the account follows
// the server's clock again). Call it after every change of a clock.
func (e *Engine) ClockChanged(account string, st *clock.State) {
	e.enqueue(new(Batch).Clock(account, st).ops...)
}

// Close writes what is only in memory — each account's pending webhook deliveries, the id
// generator — and marks the file closed cleanly, then closes it. Changes after Close fail.
func (e *Engine) Close() error { return e.release(true) }

// Abandon releases the data directory as a crash would leave it (every change enqueued is on
// disk; pending deliveries are not): for tests of the restart after a crash.
func (e *Engine) Abandon() error { return e.release(false) }

func (e *Engine) release(clean bool) error {
	var b Batch
	if clean {
		p := e.parts
		for _, a := range p.Store.Accounts() {
			b.Pending(a.ID, p.Webhooks.ExportPending(a.ID))
		}
		ids, err := p.Store.IDs().MarshalBinary()
		if err != nil {
			return errors.Join(err, e.Abandon())
		}
		b.add(op{bMeta, "", []byte(kIDs), ids}, op{bMeta, "", []byte(kDirty), durable.Key(0)})
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	var c store.Pending = failed{nil}
	if clean {
		b.events = e.events
		ops := b.Settle("").ops
		c = e.db.Enqueue(func(tx *bolt.Tx) error { return errors.Join(apply(tx, ops), durable.WriteFreeList(tx)) })
	}
	e.closed = true
	e.mu.Unlock()
	return errors.Join(c.Wait(context.Background()), e.db.Close())
}

// Snapshots returns the named account snapshots (POST /__admin/snapshots) in the file.
func (e *Engine) Snapshots() Snapshots { return Snapshots{e} }

// Snapshots keeps named account snapshots in the data file.
type Snapshots struct{ e *Engine }

// Save keeps snap (an AccountSnapshot's JSON) as the account's snapshot called name, replacing
// an earlier one of that name (Sync makes it durable).
func (s Snapshots) Save(account, name string, snap []byte) error {
	if f, ok := s.e.enqueue(new(Batch).Snapshot(account, name, snap).ops...).(failed); ok {
		return f.err
	}
	return nil
}

// Load returns the account's snapshot called name, and its key as its source (a restore's
// change names it: store.Change.Source).
func (s Snapshots) Load(account, name string) (snap []byte, source string, ok bool, err error) {
	return s.load(account + "\x00" + name)
}

func (s Snapshots) load(key string) (snap []byte, source string, ok bool, err error) {
	err = s.e.db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte(bSnapshots)); b != nil {
			snap = bytes.Clone(b.Get([]byte(key)))
		}
		return nil
	})
	return snap, key, err == nil && snap != nil, err
}

// accountOf is the account of an account bucket's name.
func accountOf(name []byte) (string, bool) { return strings.CutPrefix(string(name), acctPrefix) }

// Batch is puts and deletes for one transaction, made as the engine makes its own; its methods
// return it. The import of release 0.2's files (persist/import02) builds one.
type Batch struct {
	ops    []op
	events eventKeys
}

func (b *Batch) add(ops ...op) *Batch { b.ops = append(b.ops, ops...); return b }

// Change adds a committed change of an account.
func (b *Batch) Change(c store.Change) error {
	ops, events, err := changeOps(c)
	if b.events == nil {
		b.events = eventKeys{}
	}
	b.add(ops...).add(b.events.ops(c.Account, c.Replaced, events)...)
	return err
}

// Settle marks the events of account (of every account: "") added so far as delivered.
func (b *Batch) Settle(account string) *Batch {
	for a, s := range b.events {
		if account == "" || a == account {
			b.add(op{acctPrefix + a, "", []byte(kSettled), durable.Key(s.next - 1)})
		}
	}
	return b
}

// Cred adds a credential's state.
func (b *Batch) Cred(st auth.CredentialState) *Batch {
	return b.add(jsonOp(bCred, "", st.ID, st, st.Credential != nil))
}

// OAuth adds OAuth records.
func (b *Batch) OAuth(recs []auth.OAuthRecord) *Batch {
	for _, r := range recs {
		b.add(jsonOp(bOAuth, r.Kind, r.Key, r, !r.Deleted))
	}
	return b
}

// Clock adds an account's clock setting ("": the server's).
func (b *Batch) Clock(account string, st *clock.State) *Batch {
	if account == "" {
		return b.add(jsonOp(bMeta, "", kClock, st, st != nil))
	}
	return b.add(jsonOp(acctPrefix+account, "", kClock, st, st != nil))
}

// Pending adds an account's pending webhook deliveries.
func (b *Batch) Pending(account string, pd []webhook.Pending) *Batch {
	return b.add(jsonOp(acctPrefix+account, "", kPending, pd, len(pd) > 0))
}

// Snapshot adds the account's named snapshot.
func (b *Batch) Snapshot(account, name string, snap []byte) *Batch {
	return b.add(op{bSnapshots, "", []byte(account + "\x00" + name), snap})
}

// Header adds the PHI key's check value and the id generator's state (ids, nil: none).
func (b *Batch) Header(keyCheck string, ids []byte) *Batch {
	return b.add(op{bMeta, "", []byte(kKeyCheck), []byte(keyCheck)}, op{bMeta, "", []byte(kIDs), ids})
}

// Write applies the batch in one transaction of db, with the changes since the last clean close
// counted (their events are delivered again) and the meta key marker set.
func (b *Batch) Write(db *durable.DB, changes uint64, marker string) error {
	ops := b.add(op{bMeta, "", []byte(kDirty), durable.Key(changes)}, op{bMeta, "", []byte(marker), []byte{1}}).ops
	return db.Update(func(tx *bolt.Tx) error { return apply(tx, ops) })
}

// Marked says whether the meta key marker is set in db.
func Marked(db *durable.DB, marker string) (set bool) {
	_ = db.View(func(tx *bolt.Tx) error { set = tx.Bucket([]byte(bMeta)).Get([]byte(marker)) != nil; return nil })
	return set
}
