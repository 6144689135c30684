package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// A data directory (docs/protocol.md §13) keeps each account's records in its file, one value
// per record: a commit puts and deletes those its Change names, StateRecords lists those of a
// state that replaced the account's, and Load puts each back when the server starts.

// Kinds of records that are not a table's.
const (
	KindEvent       = "event"       // an event of the account's event log
	KindIdempotency = "idempotency" // a completed idempotency entry (IdempotencyRecord)
)

// StateRecords calls fn for every record of an exported state (Export, Change.State): each
// table's in list order, the idempotency entries (id: the key's hex digest), then the events,
// oldest first. v is the record's JSON, sealed values sealed.
func StateRecords(state []byte, fn func(kind, id string, v []byte) error) error {
	st := accountState{Data: newData()}
	if err := json.Unmarshal(state, &st); err != nil || st.Data == nil {
		return fmt.Errorf("store: reading a state: %w", errors.Join(err, errors.New("no data")))
	}
	put := func(kind, id string, r any) error {
		b, err := json.Marshal(r)
		if err == nil {
			err = fn(kind, id, b)
		}
		return err
	}
	var err error
	for _, tb := range st.Data.tables() {
		tb.each(func(id string, r any) {
			if err == nil {
				err = put(tb.kindName(), id, r)
			}
		})
	}
	for _, k := range slices.Sorted(maps.Keys(st.Idempotency)) {
		if r := st.Idempotency[k]; err == nil {
			r.Key = k
			err = put(KindIdempotency, k, r)
		}
	}
	for _, e := range st.Data.Events {
		if err == nil {
			err = put(KindEvent, e.ID, e)
		}
	}
	return err
}

// Load puts back a record read from a data directory (of StateRecords' kinds): a table's
// record, an idempotency entry, or an event (appended to the event log: load them oldest
// first). Call Store.FinishReplay after the last.
func (a *Account) Load(kind, id string, v []byte) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch kind {
	case KindEvent:
		var e Event
		if err := json.Unmarshal(v, &e); err != nil {
			return fmt.Errorf("store: loading an event: %w", err)
		}
		a.store.ids.Observe(e.ID)
		a.keepEvent(e)
		return nil
	case KindIdempotency:
		var r IdempotencyRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return fmt.Errorf("store: loading an idempotency entry: %w", err)
		}
		r.Key = id
		a.idemMu.Lock()
		defer a.idemMu.Unlock()
		return a.idem.add(r)
	}
	tb, ok := a.data.table(kind)
	if !ok {
		return fmt.Errorf("store: loading a record of kind %q: %w", kind, ErrUnknownKind)
	}
	got, err := tb.upsertJSON(v)
	switch {
	case err != nil:
		return fmt.Errorf("store: loading a %s: %w", kind, err)
	case got != id:
		return fmt.Errorf("store: loading a %s: the record's id is %q, its key %q", kind, got, id)
	}
	a.store.ids.Observe(id)
	return nil
}

// Seq returns the number of the account's last change (Change.Seq).
func (a *Account) Seq() uint64 { return a.seq.Load() }

// FinishReplay rebuilds what loading records does not write itself: every account's derived
// indexes.
func (s *Store) FinishReplay() {
	for _, a := range s.Accounts() {
		a.mu.Lock()
		a.data.reindex()
		a.mu.Unlock()
	}
}

// ErrUnknownKind is wrapped by load errors about a kind of record this server does not know
// (a data directory written by a newer server).
var ErrUnknownKind = errors.New("unknown kind of record")
