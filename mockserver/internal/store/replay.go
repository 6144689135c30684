package store

import (
	"encoding/json"
	"errors"
	"fmt"
)

// A data directory (docs/protocol.md §13) keeps the store as a log of changes (each commit's
// Change, with its records) on top of a snapshot (each account's Rows). Replay reads them back
// through the functions here, before the server serves: snapshot rows first, then the changes
// logged after them, each applied once (a change the account already holds, by its Seq, is
// skipped).

// LoggedWrite is one write of a change as a log holds it: the record's kind and id, and its
// JSON (none: deleted). An idempotency entry's JSON is an IdempotencyRecord.
type LoggedWrite struct {
	Kind  string          `json:"k"`
	ID    string          `json:"id"`
	Value json.RawMessage `json:"v,omitempty"`
}

// RowChunk is a piece of an account's state as a snapshot holds it: a JSON array of records of
// one kind (a table's kind, "event" or "idempotency").
type RowChunk struct {
	Kind string
	JSON []byte
}

// Rows is an account's whole state as a snapshot holds it: in chunks, so no one piece is large
// however large the account, and the number of the last change it includes.
type Rows struct {
	Seq    uint64
	Chunks []RowChunk
}

// Row kinds that are not tables.
const (
	rowEvents      = "event"
	rowIdempotency = "idempotency"
)

// ExportRows returns the account's state as rows of at most chunk records each. It waits, if
// need be, for keyed requests with committed writes to finish, as Export does; the records are
// copied (as JSON) under the account's read lock.
func (a *Account) ExportRows(chunk int) (Rows, error) {
	a.rlockSettled()
	defer a.mu.RUnlock()
	a.idemMu.Lock() // taken after a.mu, as commits of entries take it alone: the count is exact
	rows := Rows{Seq: a.seq.Load()}
	idem := a.idem.records()
	a.idemMu.Unlock()
	for _, tb := range a.data.tables() {
		chunks, err := tb.chunks(chunk)
		if err != nil {
			return Rows{}, fmt.Errorf("store: exporting %s: %w", tb.kindName(), err)
		}
		for _, c := range chunks {
			rows.Chunks = append(rows.Chunks, RowChunk{tb.kindName(), c})
		}
	}
	add := func(kind string, v any) error {
		b, err := json.Marshal(v)
		if err == nil {
			rows.Chunks = append(rows.Chunks, RowChunk{kind, b})
		}
		return err
	}
	for i := 0; i < len(a.data.Events); i += chunk {
		if err := add(rowEvents, a.data.Events[i:min(i+chunk, len(a.data.Events))]); err != nil {
			return Rows{}, err
		}
	}
	batch := make([]IdempotencyRecord, 0, min(chunk, len(idem)))
	for _, r := range idem {
		if batch = append(batch, r); len(batch) == chunk {
			if err := add(rowIdempotency, batch); err != nil {
				return Rows{}, err
			}
			batch = batch[:0]
		}
	}
	if len(batch) > 0 {
		if err := add(rowIdempotency, batch); err != nil {
			return Rows{}, err
		}
	}
	return rows, nil
}

// ReplayRows adds a chunk of a snapshot's rows to the account.
func (a *Account) ReplayRows(kind string, b []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch kind {
	case rowEvents:
		var events []Event
		if err := json.Unmarshal(b, &events); err != nil {
			return fmt.Errorf("store: replaying events: %w", err)
		}
		for _, e := range events {
			a.store.ids.Observe(e.ID)
			a.keepEvent(e)
		}
		return nil
	case rowIdempotency:
		var recs []IdempotencyRecord
		if err := json.Unmarshal(b, &recs); err != nil {
			return fmt.Errorf("store: replaying idempotency entries: %w", err)
		}
		a.idemMu.Lock()
		defer a.idemMu.Unlock()
		for _, r := range recs {
			if err := a.idem.add(r); err != nil {
				return fmt.Errorf("store: replaying: %w", err)
			}
		}
		return nil
	}
	tb, ok := a.data.table(kind)
	if !ok {
		return fmt.Errorf("store: replaying rows of kind %q: %w", kind, ErrUnknownKind)
	}
	if err := tb.upsertAllJSON(b, a.store.ids.Observe); err != nil {
		return fmt.Errorf("store: replaying %s rows: %w", kind, err)
	}
	return nil
}

// Seq returns the number of the account's last change (Change.Seq).
func (a *Account) Seq() uint64 { return a.seq.Load() }

// SetSnapshotSeq sets the number of the last change the account's snapshot holds, before its
// rows replay: changes numbered up to it are skipped. (Changes after it may come back in
// another order than their numbers — entries and data commit under different locks — so only
// the snapshot's number decides.)
func (a *Account) SetSnapshotSeq(n uint64) {
	a.mu.Lock()
	a.snapshotSeq = n
	a.mu.Unlock()
	a.bumpSeq(n)
}

// bumpSeq raises the account's change number to n.
func (a *Account) bumpSeq(n uint64) {
	for {
		cur := a.seq.Load()
		if n <= cur || a.seq.CompareAndSwap(cur, n) {
			return
		}
	}
}

// ReplayChange applies a change read back from a log (Change.Seq, its writes and events). A
// change the account's snapshot holds already is skipped; it reports whether the change
// applied.
func (a *Account) ReplayChange(seq uint64, writes []LoggedWrite, events []Event) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if seq <= a.snapshotSeq {
		return false, nil
	}
	for _, w := range writes {
		if err := a.replayWriteLocked(w); err != nil {
			return false, err
		}
	}
	for _, e := range events {
		a.store.ids.Observe(e.ID)
		a.keepEvent(e)
	}
	a.bumpSeq(seq)
	return true, nil
}

func (a *Account) replayWriteLocked(w LoggedWrite) error {
	if w.Kind == rowIdempotency {
		a.idemMu.Lock()
		defer a.idemMu.Unlock()
		k, err := parseDigest(w.ID)
		if err != nil {
			return fmt.Errorf("store: replaying an idempotency entry: %w", err)
		}
		if w.Value == nil {
			a.idem.forget(k)
			return nil
		}
		var r IdempotencyRecord
		if err := json.Unmarshal(w.Value, &r); err != nil {
			return fmt.Errorf("store: replaying an idempotency entry: %w", err)
		}
		r.Key = w.ID
		return a.idem.add(r)
	}
	tb, ok := a.data.table(w.Kind)
	if !ok {
		return fmt.Errorf("store: replaying a write of kind %q: %w", w.Kind, ErrUnknownKind)
	}
	if w.Value == nil {
		tb.drop(w.ID)
		return nil
	}
	id, err := tb.upsertJSON(w.Value)
	switch {
	case err != nil:
		return fmt.Errorf("store: replaying a %s: %w", w.Kind, err)
	case id != w.ID:
		return fmt.Errorf("store: replaying a %s: the record's id is %q, the write's %q", w.Kind, id, w.ID)
	}
	a.store.ids.Observe(id)
	return nil
}

// ReplayReplace applies a logged replacement of the account's state (Change.Replaced): state is
// what Export wrote, or nil for an empty account. Like ReplayChange, it skips a change the
// account holds already.
func (a *Account) ReplayReplace(seq uint64, state []byte) (bool, error) {
	d, idem := newData(), newIdemStore(a.store.idemLimit)
	if state != nil {
		var err error
		if d, idem, err = decodeState(state, a.store.idemLimit); err != nil {
			return false, err
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if seq <= a.snapshotSeq {
		return false, nil
	}
	a.idemMu.Lock()
	a.data, a.idem = d, idem
	a.idemMu.Unlock()
	for _, tb := range d.tables() {
		tb.each(func(id string, _ any) { a.store.ids.Observe(id) })
	}
	a.bumpSeq(seq)
	return true, nil
}

// SkipChange records that the change numbered seq was read and left out (the writes of a claim
// that was never resolved): the account's next change is numbered after it.
func (a *Account) SkipChange(seq uint64) { a.bumpSeq(seq) }

// FinishReplay rebuilds what a replay does not write itself: every account's derived indexes.
func (s *Store) FinishReplay() {
	for _, a := range s.Accounts() {
		a.mu.Lock()
		a.data.reindex()
		a.mu.Unlock()
	}
}

// ErrUnknownKind is wrapped by replay errors about a kind of record this server does not know
// (a data directory written by a newer server).
var ErrUnknownKind = errors.New("unknown kind of record")
