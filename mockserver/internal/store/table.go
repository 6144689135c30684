package store

import (
	"cmp"
	"encoding/json"
	"slices"
	"time"
)

// sortKey orders records: by time (createdAt, or startAt for appointments), then id.
type sortKey struct {
	t  time.Time
	id string
}

func compareKeys(a, b sortKey) int {
	if c := a.t.Compare(b.t); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

// table keeps records by id and in list order, so an unfiltered page is a slice, whatever its
// number. Its kind names its records in changes (Write.Kind), logs and sealed values' bindings.
type table[R any] struct {
	kind  string
	byID  map[string]*R
	order []*R
	key   func(*R) sortKey
	// undo, while a Batch runs (commit.go), holds each record the batch reached as it was
	// before (its JSON; nil: it did not exist), so a failed batch undoes only what it touched.
	// Every mutation reaches a record through get, all, since, insert, reorder or drop, which
	// keep it first (TestBatchUndoesEveryKindOfChange).
	undo map[string][]byte
}

func newTable[R any](kind string, key func(*R) sortKey) *table[R] {
	return &table[R]{kind: kind, byID: map[string]*R{}, key: key}
}

func (t *table[R]) get(id string) (*R, bool) {
	r, ok := t.byID[id]
	if ok && t.undo != nil {
		t.keep(id, r)
	}
	return r, ok
}

// keep saves r's state for the undo of the running batch, the first time the batch reaches
// it; r nil says there was no record with the id.
func (t *table[R]) keep(id string, r *R) {
	if _, kept := t.undo[id]; kept {
		return
	}
	var before []byte
	if r != nil {
		before, _ = json.Marshal(r) // the store's own records always marshal
	}
	t.undo[id] = before
}

// beginUndo starts keeping what a batch changes (keep).
func (t *table[R]) beginUndo() { t.undo = map[string][]byte{} }

// undoing reports whether a batch's undo is kept.
func (t *table[R]) undoing() bool { return t.undo != nil }

// endUndo stops keeping, and forgets what was kept.
func (t *table[R]) endUndo() { t.undo = nil }

// rollBack puts back every record the batch reached as it was before, removes those it
// added, and ends the undo.
func (t *table[R]) rollBack() error {
	undo := t.undo
	t.endUndo()
	for id, before := range undo {
		if before == nil {
			t.drop(id)
			continue
		}
		if _, err := t.upsertJSON(before); err != nil {
			return err
		}
	}
	return nil
}

// keepAll saves every record of rs for the undo of a running batch: a batch may change what
// it iterates over.
func (t *table[R]) keepAll(rs []*R) []*R {
	if t.undo != nil {
		for _, r := range rs {
			t.keep(t.key(r).id, r)
		}
	}
	return rs
}

func (t *table[R]) len() int { return len(t.order) }

// insert adds r in order; appending is the common case (ids and times increase).
func (t *table[R]) insert(r *R) {
	k := t.key(r)
	if t.undo != nil {
		t.keep(k.id, t.byID[k.id])
	}
	t.byID[k.id] = r
	if n := len(t.order); n == 0 || compareKeys(t.key(t.order[n-1]), k) < 0 {
		t.order = append(t.order, r)
		return
	}
	i, _ := slices.BinarySearchFunc(t.order, k, func(e *R, k sortKey) int { return compareKeys(t.key(e), k) })
	t.order = slices.Insert(t.order, i, r)
}

// reorder must be called with r's old key before a change of its sort time, and returns a
// function to call after the change.
func (t *table[R]) reorder(r *R) (done func()) {
	k := t.key(r)
	if t.undo != nil {
		t.keep(k.id, r)
	}
	i, found := slices.BinarySearchFunc(t.order, k, func(e *R, k sortKey) int { return compareKeys(t.key(e), k) })
	if found {
		t.order = slices.Delete(t.order, i, i+1)
	}
	return func() { t.insert(r) }
}

// Window is a page request: 1-based page, page size, and direction.
type Window struct {
	Page, PerPage int
	Desc          bool
}

// page returns the records of the window among those matching keep (nil keeps all) and the
// number matching. Without a filter it slices directly.
func (t *table[R]) page(w Window, keep func(*R) bool) ([]*R, int) { return pageOf(t.order, w, keep) }

// pageBetween is page among the records whose sort time is in [from, to) (a zero bound is
// none). The bounds are found by binary search in the list order, so a time window costs what
// its page does, not what the table holds.
func (t *table[R]) pageBetween(from, to time.Time, w Window, keep func(*R) bool) ([]*R, int) {
	lo, hi := 0, len(t.order)
	if !from.IsZero() {
		lo = t.firstAt(from)
	}
	if !to.IsZero() {
		hi = max(lo, t.firstAt(to))
	}
	return pageOf(t.order[lo:hi], w, keep)
}

// pageOf returns the window of recs (in list order) among those matching keep, and the number
// matching.
func pageOf[R any](recs []*R, w Window, keep func(*R) bool) ([]*R, int) {
	off := (w.Page - 1) * w.PerPage
	at := func(i int) *R {
		if w.Desc {
			return recs[len(recs)-1-i]
		}
		return recs[i]
	}
	if keep == nil {
		total := len(recs)
		if off >= total {
			return nil, total
		}
		end := min(off+w.PerPage, total)
		out := make([]*R, 0, end-off)
		for i := off; i < end; i++ {
			out = append(out, at(i))
		}
		return out, total
	}
	var out []*R
	total := 0
	for i := range recs {
		r := at(i)
		if !keep(r) {
			continue
		}
		if total >= off && len(out) < w.PerPage {
			out = append(out, r)
		}
		total++
	}
	return out, total
}

// drop removes the record with the id, if there is one.
func (t *table[R]) drop(id string) {
	if r, ok := t.byID[id]; ok {
		t.reorder(r) // out of the list order (kept for a batch's undo); not re-inserted
		delete(t.byID, id)
	}
}

// upsert inserts r, replacing the record with its id if there is one.
func (t *table[R]) upsert(r *R) {
	t.drop(t.key(r).id)
	t.insert(r)
}

// all returns every record in order.
func (t *table[R]) all() []*R { return t.keepAll(t.order) }

// since returns the records whose sort time is at or after from, in order.
func (t *table[R]) since(from time.Time) []*R { return t.keepAll(t.order[t.firstAt(from):]) }

// firstAt returns the position of the first record whose sort time is at or after from.
func (t *table[R]) firstAt(from time.Time) int {
	i, _ := slices.BinarySearchFunc(t.order, from, func(r *R, from time.Time) int {
		if t.key(r).t.Before(from) {
			return -1
		}
		return 1
	})
	return i
}

// MarshalJSON writes the records in list order (snapshots and persistence).
func (t *table[R]) MarshalJSON() ([]byte, error) {
	if t.order == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(t.order)
}

// UnmarshalJSON replaces the records and rebuilds the index. The table must have been made by
// newTable (it keeps its key function).
func (t *table[R]) UnmarshalJSON(b []byte) error {
	var recs []*R
	if err := json.Unmarshal(b, &recs); err != nil {
		return err
	}
	t.byID = make(map[string]*R, len(recs))
	t.order = t.order[:0]
	for _, r := range recs {
		t.insert(r)
	}
	return nil
}

// The recordTable methods: what the store does with a table whatever its record type
// (tables.go).

func (t *table[R]) kindName() string { return t.kind }

func (t *table[R]) lookup(id string) (any, bool) {
	r, ok := t.byID[id]
	return r, ok
}

// upsertJSON decodes one record and upserts it; it returns the record's id.
func (t *table[R]) upsertJSON(b []byte) (string, error) {
	r, err := t.decode(b)
	if err != nil {
		return "", err
	}
	return t.put(r), nil
}

// decode decodes one record (a *R with an id); it changes nothing. It decodes as
// encoding/json does, about twice as fast (loadJSON).
func (t *table[R]) decode(b []byte) (any, error) {
	r := new(R)
	if err := loadJSON(b, r); err != nil {
		return nil, err
	}
	if t.key(r).id == "" {
		return nil, errNoID
	}
	return r, nil
}

// zero returns a new, empty record (tests).
func (t *table[R]) zero() any { return new(R) }

// put upserts a record from decode and returns its id.
func (t *table[R]) put(r any) string {
	t.upsert(r.(*R))
	return t.key(r.(*R)).id
}

func (t *table[R]) each(f func(id string, r any)) {
	for _, r := range t.order {
		f(t.key(r).id, r)
	}
}
