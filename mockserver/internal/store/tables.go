package store

import (
	"errors"
	"reflect"
	"sync"
)

// recordTable is a table whatever its record type: what commits, logs, snapshots and the
// migration of sealed values do with every table alike.
type recordTable interface {
	kindName() string
	len() int
	lookup(id string) (any, bool)
	upsertJSON(b []byte) (string, error)
	decode(b []byte) (any, error)
	put(r any) string
	drop(id string)
	each(f func(id string, r any))
	// beginUndo, endUndo and rollBack are a Batch's undo (table.go).
	beginUndo()
	endUndo()
	rollBack() error
}

var errNoID = errors.New("store: a record without an id")

// tableFields maps each record kind to the index of its table among data's fields. Every field
// of data that is a table is found here, by reflection, once: a new kind of record persists,
// replays, snapshots and migrates as soon as its table is a field of data (made by newTable
// with its kind) and its mutations put it — nothing else lists it.
var tableFields = sync.OnceValue(func() map[string]int {
	m := map[string]int{}
	d := reflect.ValueOf(newData()).Elem()
	for i := range d.NumField() {
		if tb, ok := d.Field(i).Interface().(recordTable); ok {
			if _, dup := m[tb.kindName()]; dup {
				panic("store: two tables of kind " + tb.kindName()) // a programming error, caught by every test
			}
			m[tb.kindName()] = i
		}
	}
	return m
})

// table returns the table of a kind of record.
func (d *data) table(kind string) (recordTable, bool) {
	i, ok := tableFields()[kind]
	if !ok {
		return nil, false
	}
	return reflect.ValueOf(d).Elem().Field(i).Interface().(recordTable), true
}

// tables returns every table, in data's field order.
func (d *data) tables() []recordTable {
	v := reflect.ValueOf(d).Elem()
	var out []recordTable
	for i := range v.NumField() {
		if tb, ok := v.Field(i).Interface().(recordTable); ok {
			out = append(out, tb)
		}
	}
	return out
}

// reindex rebuilds the derived indexes from the tables (after a replay puts records one by
// one). Each area with a derived index rebuilds its own.
func (d *data) reindex() {
	d.reindexInventory()
}

// sealedRecord is a record with sealed fields (seal.go): each named, the name being part of
// the value's binding, with the record's kind and id and the account.
type sealedRecord interface {
	sealedFields() []sealedField
}

// sealedField is one sealed field of a record: its name and where its value is.
type sealedField struct {
	name  string
	value *[]byte
}

// indexedRecord is a record with blind indexes derived from its sealed fields: the migration of
// state sealed before per-account index keys rebuilds them.
type indexedRecord interface {
	reindexBlind(a *Account) error
}
