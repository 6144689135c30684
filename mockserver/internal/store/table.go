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
// number.
type table[R any] struct {
	byID  map[string]*R
	order []*R
	key   func(*R) sortKey
}

func newTable[R any](key func(*R) sortKey) *table[R] {
	return &table[R]{byID: map[string]*R{}, key: key}
}

func (t *table[R]) get(id string) (*R, bool) {
	r, ok := t.byID[id]
	return r, ok
}

func (t *table[R]) len() int { return len(t.order) }

// insert adds r in order; appending is the common case (ids and times increase).
func (t *table[R]) insert(r *R) {
	k := t.key(r)
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
func (t *table[R]) page(w Window, keep func(*R) bool) ([]*R, int) {
	off := (w.Page - 1) * w.PerPage
	at := func(i int) *R {
		if w.Desc {
			return t.order[len(t.order)-1-i]
		}
		return t.order[i]
	}
	if keep == nil {
		total := len(t.order)
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
	for i := range t.order {
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

// all returns every record in order.
func (t *table[R]) all() []*R { return t.order }

// since returns the records whose sort time is at or after from, in order.
func (t *table[R]) since(from time.Time) []*R {
	i, _ := slices.BinarySearchFunc(t.order, from, func(r *R, from time.Time) int {
		if t.key(r).t.Before(from) {
			return -1
		}
		return 1
	})
	return t.order[i:]
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
