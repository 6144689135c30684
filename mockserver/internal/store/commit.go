package store

import "github.com/medspa/medspa-go/webhooks"

// Every mutation of an account's data runs as one transaction: begin takes the account's write
// lock, the mutation changes records (saying which with put) and emits events (emit), and end
// commits — the events join the account's log and go to the event hook, the change goes to the
// commit hook — and releases the lock. end is the one place every committed change of an
// account passes, in commit order: a log of committed changes (docs/protocol.md §13 "restart
// loses nothing": append, fsync, then answer) hooks in there, through Store.OnCommit.

// Change is one committed mutation of an account: the records it wrote, in order, and the
// events it emitted.
type Change struct {
	Account string
	Writes  []Write
	Events  []Event
	// Replaced says the account's whole state was replaced (Reset, Import, a restored
	// snapshot): Writes are not listed.
	Replaced bool
}

// Write names a record a change wrote.
type Write struct {
	// Kind is the record's kind: "patient", "appointment", "invoice", "payment", "refund",
	// "product", "stock", "adjustment", "webhook", "idempotency".
	Kind string
	// ID is the record's id (for idempotency entries, the hex digest of the scoped key).
	ID string
	// Deleted says the record was removed.
	Deleted bool
}

// tx is a mutation in progress; the account's write lock is held from begin to end.
type tx struct {
	a      *Account
	change Change
}

// begin starts a mutation of the account: defer its end.
func (a *Account) begin() *tx {
	a.mu.Lock()
	return &tx{a: a, change: Change{Account: a.ID}}
}

// put records that the mutation wrote a record.
func (t *tx) put(kind, id string) {
	t.change.Writes = append(t.change.Writes, Write{Kind: kind, ID: id})
}

// remove records that the mutation deleted a record.
func (t *tx) remove(kind, id string) {
	t.change.Writes = append(t.change.Writes, Write{Kind: kind, ID: id, Deleted: true})
}

// emit records a domain event of the mutation. Its data carries ids, statuses, amounts and
// counts only, never PHI (the webhooks data types have no PHI fields).
func (t *tx) emit(typ webhooks.EventType, data webhooks.EventData) {
	t.change.Events = append(t.change.Events, Event{ID: t.a.newID("evt"), Type: typ, CreatedAt: t.a.Now(), Data: data})
}

// end commits what the mutation did (nothing, when it wrote nothing) and releases the lock.
func (t *tx) end() {
	defer t.a.mu.Unlock()
	t.a.commitLocked(t.change)
}

// commitLocked commits a change: its events join the account's log and go to the event hook,
// then the change goes to the commit hook. The caller holds the lock that guards what changed.
func (a *Account) commitLocked(c Change) {
	if len(c.Writes) == 0 && len(c.Events) == 0 && !c.Replaced {
		return
	}
	for _, e := range c.Events {
		a.logEvent(e)
	}
	a.store.mu.RLock()
	onCommit := a.store.onCommit
	a.store.mu.RUnlock()
	if onCommit != nil {
		onCommit(a, c)
	}
}

// OnCommit registers the commit hook (one; a later call replaces it): f sees every committed
// change of every account, in each account's commit order, under that account's lock — so it
// must not call back into the account.
func (s *Store) OnCommit(f func(*Account, Change)) {
	s.mu.Lock()
	s.onCommit = f
	s.mu.Unlock()
}
