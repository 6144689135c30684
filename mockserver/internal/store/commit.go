package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/medspa/medspa-go/webhooks"
)

// Every mutation of an account's data runs as one transaction: begin takes the account's write
// lock, the mutation changes records (saying which with put) and emits events (emit), and end
// commits — the events join the account's log and go to the event hook, the change goes to the
// commit hook — and releases the lock. end is the one place every committed change of an
// account passes, in commit order: the data directory's log (docs/protocol.md §13 "restart
// loses nothing": append, fsync, then answer) hooks in there, through Store.OnCommit.

// Change is one committed mutation of an account: the records it wrote, in order, and the
// events it emitted.
type Change struct {
	Account string
	// Seq numbers the account's changes: one more for each commit, data and idempotency
	// entries alike.
	Seq    uint64
	Writes []Write
	Events []Event
	// Replaced says the account's whole state was replaced (Reset, Import, a restored
	// snapshot): Writes are not listed. State is the state that replaced it (nil: emptied by
	// Reset); Source, when not empty, is the caller's name for where State is kept (a
	// snapshot file), so that a log need not copy it.
	Replaced bool
	State    []byte
	Source   string
	// Claim, when not empty, names the idempotency claim of the request that made the change
	// (a Session that began a keyed request): its writes take effect with the claim's outcome.
	// Resolved names a claim that FinishIdempotent settled with this change (its entry
	// written, or, for an outcome not kept, none): a log replays the writes of a claim only
	// once it sees the claim resolved, so a crash between a keyed write and its entry leaves
	// neither, and the client's retry runs anew instead of writing twice.
	Claim    string
	Resolved string
}

// Write names a record a change wrote.
type Write struct {
	// Kind is the record's kind: "patient", "appointment", "invoice", "payment", "refund",
	// "product", "stock", "adjustment", "webhook" (the kind of its table, newTable), or
	// "idempotency".
	Kind string
	// ID is the record's id (for idempotency entries, the hex digest of the scoped key).
	ID string
	// Deleted says the record was removed.
	Deleted bool
	// Value is the record as written, when the commit hook asked for values (OnCommit): for a
	// table's record, a pointer to it, to read (e.g. marshal) only inside the hook, under the
	// lock that guards it; for an idempotency entry, an IdempotencyRecord.
	Value any
}

// Pending is a commit hook's promise for a change: Wait returns once the change is durable
// (or the failure that keeps it from being so, or ctx's end).
type Pending interface {
	Wait(ctx context.Context) error
}

// tx is a mutation in progress; the account's write lock is held from begin to end.
type tx struct {
	a      *Account
	change Change
	// nested is set on the transactions of a Batch: they add to the batch's change, and the
	// batch commits (or undoes) them all at once.
	nested *tx
}

// begin starts a mutation of the account: defer its end. On a handle made by Batch, the
// mutation joins the batch's transaction (whose lock is already held). The tx is a value, kept
// on the caller's stack: helpers that take part in it get its address.
func (a *Account) begin() tx {
	if a.scope != nil && a.scope.batch != nil {
		return tx{a: a, nested: a.scope.batch}
	}
	a.mu.Lock()
	return tx{a: a}
}

// put records that the mutation wrote a record.
func (t *tx) put(kind, id string) {
	t.target().Writes = append(t.target().Writes, Write{Kind: kind, ID: id})
}

// remove records that the mutation deleted a record.
func (t *tx) remove(kind, id string) {
	t.target().Writes = append(t.target().Writes, Write{Kind: kind, ID: id, Deleted: true})
}

// emit records a domain event of the mutation. Its data carries ids, statuses, amounts and
// counts only, never PHI (the webhooks data types have no PHI fields).
func (t *tx) emit(typ webhooks.EventType, data webhooks.EventData) {
	t.target().Events = append(t.target().Events, Event{ID: t.a.newID("evt"), Type: typ, CreatedAt: t.a.Now(), Data: data})
}

// target is the change the mutation adds to: its own, or its batch's.
func (t *tx) target() *Change {
	if t.nested != nil {
		return &t.nested.change
	}
	return &t.change
}

// end commits what the mutation did (nothing, when it wrote nothing) and releases the lock. In
// a batch it does nothing: the batch ends once.
func (t *tx) end() {
	if t.nested != nil {
		return
	}
	defer t.a.mu.Unlock()
	t.a.commitLocked(t.change)
}

// commitLocked commits a change: its events join the account's log and go to the event hook,
// then the change goes to the commit hook. The caller holds the lock that guards what changed:
// a.mu for data, a.idemMu for idempotency entries (see ARCHITECTURE.md "Locks").
func (a *Account) commitLocked(c Change) {
	if len(c.Writes) == 0 && len(c.Events) == 0 && !c.Replaced && c.Resolved == "" {
		return
	}
	c.Account, c.Seq = a.ID, a.seq.Add(1)
	if a.scope != nil && c.Claim == "" && !c.Replaced && c.Resolved == "" {
		c.Claim = a.scope.claim // a Session's write, while its request holds a claim
	}
	for _, e := range c.Events {
		a.logEvent(e)
	}
	if c.Claim != "" && !c.Replaced {
		a.claimCommitted()
	}
	a.store.mu.RLock()
	onCommit, values := a.store.onCommit, a.store.commitValues
	a.store.mu.RUnlock()
	if onCommit == nil {
		return
	}
	if values {
		for i := range c.Writes {
			if w := &c.Writes[i]; !w.Deleted && w.Value == nil {
				if tb, ok := a.data.table(w.Kind); ok {
					w.Value, _ = tb.lookup(w.ID)
				}
			}
		}
	}
	if p := onCommit(a.self, c); p != nil && a.scope != nil {
		a.scope.pending = p
	}
}

// OnCommit registers the commit hook (one; a later call replaces it): f sees every committed
// change of every account, in each account's commit order, under that account's lock — so it
// must not call back into the account. With values, each Write carries its record (Value). f
// may return a Pending for the change: a Session waits for the last one of its request.
func (s *Store) OnCommit(f func(*Account, Change) Pending, values bool) {
	s.mu.Lock()
	s.onCommit, s.commitValues = f, values
	s.mu.Unlock()
}

// Batch runs f as one transaction of the account: every mutation f makes through b (the
// handle it is given) joins it, under the account's write lock, held until f returns. If f
// returns an error, every change it made is undone and nothing is committed — no event, no
// write: the account is exactly as before, whatever other requests wait to do meanwhile
// (they run once the batch ends). Otherwise the batch commits once, as one Change. f must use
// b for mutations only: reads that take the account's lock themselves (GetPatient, …) would
// wait for the batch's own lock.
//
// The undo keeps only the records the batch reaches (table.go, keep), so a batch costs what it
// does, not what the account holds: a fixture load into an account of 1,000,000 patients
// copies no one of them.
func (a *Account) Batch(f func(b *Account) error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	tables := a.data.tables()
	endUndo := func() {
		for _, tb := range tables {
			tb.endUndo()
		}
	}
	for _, tb := range tables {
		tb.beginUndo()
	}
	defer endUndo() // whatever happens in f
	batch := &tx{a: a.self}
	b := &Account{tenant: a.tenant, scope: &scope{batch: batch}}
	err := f(b)
	if err == nil {
		endUndo()
		a.commitLocked(batch.change)
		return nil
	}
	var uerr error
	for _, tb := range tables {
		uerr = errors.Join(uerr, tb.rollBack())
	}
	a.data.reindex() // the indexes derived from the tables (SKUs, stock keys)
	if uerr != nil {
		return fmt.Errorf("store: batch: undoing: %w", uerr) // unreachable: our own JSON
	}
	return err
}

// Session is an account handle for one request (docs/protocol.md §13: "a write is durable
// before its response is sent"): its mutations carry the request's idempotency claim, and Wait
// waits until the last change the request committed is durable — the request's own, not its
// neighbours'. Use it from one goroutine at a time.
type Session struct{ acct *Account }

// Session returns a new session on the account.
func (a *Account) Session() *Session {
	return &Session{acct: &Account{tenant: a.tenant, scope: &scope{}}}
}

// Account is the session's handle, for the request's store calls.
func (s *Session) Account() *Account { return s.acct }

// Wait returns once every change the session committed is durable (at once if it committed
// none, or the commit hook made no promise), or with the failure that keeps it from being so,
// or ctx's error.
func (s *Session) Wait(ctx context.Context) error {
	if p := s.acct.scope.pending; p != nil {
		return p.Wait(ctx)
	}
	return nil
}

// Committed reports whether the session committed a change the commit hook made a promise for.
func (s *Session) Committed() bool { return s.acct.scope.pending != nil }
