package store

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	jsonv1 "github.com/go-json-experiment/json/v1"
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

// Record is a record read back from a data directory: its kind, its key (its id; an event's
// sequence; an idempotency entry's key digest) and its JSON. Redeliver marks an event to hand
// back to Load's caller.
type Record struct {
	Kind       string
	Key, Value []byte
	Redeliver  bool
}

// decoders are the tables of an empty data, by kind: they decode records (no one changes them).
var decoders = sync.OnceValue(func() map[string]recordTable {
	m := map[string]recordTable{}
	for _, tb := range newData().tables() {
		m[tb.kindName()] = tb
	}
	return m
})

// loadChunk is how many records a decoding goroutine of Load takes at a time.
const loadChunk = 256

// Load puts records read back from a data directory into the account, in their order. Their JSON
// is decoded first, on GOMAXPROCS goroutines (most of a start's time); then they are put, under
// the account's lock. It returns the decoded events marked Redeliver. The Values need only last
// until it returns.
func (a *Account) Load(recs []Record) ([]Event, error) {
	dec := make([]any, len(recs))
	errs := make([]error, len(recs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(recs)/loadChunk+1) {
		wg.Go(func() {
			for i := int(next.Add(loadChunk)) - loadChunk; i < len(recs); i = int(next.Add(loadChunk)) - loadChunk {
				for j := i; j < min(i+loadChunk, len(recs)); j++ {
					dec[j], errs[j] = decodeRecord(recs[j])
				}
			}
		})
	}
	wg.Wait()
	a.mu.Lock()
	defer a.mu.Unlock()
	var redeliver []Event
	var tb recordTable // of the kind of the record before
	for i, r := range recs {
		if errs[i] != nil {
			return nil, fmt.Errorf("store: loading a %s record: %w", r.Kind, errs[i])
		}
		switch d := dec[i].(type) {
		case *Event:
			a.store.ids.Observe(d.ID)
			a.keepEvent(*d)
			if r.Redeliver {
				redeliver = append(redeliver, *d)
			}
		case *IdempotencyRecord:
			d.Key = string(r.Key)
			a.idemMu.Lock()
			err := a.idem.add(*d)
			a.idemMu.Unlock()
			if err != nil {
				return nil, err
			}
		default:
			if tb == nil || tb.kindName() != r.Kind {
				tb, _ = a.data.table(r.Kind)
			}
			id := tb.put(d)
			if id != string(r.Key) {
				return nil, fmt.Errorf("store: loading a %s: the record's id is %q, its key %q", r.Kind, id, r.Key)
			}
			a.store.ids.Observe(id)
		}
	}
	return redeliver, nil
}

// decodeRecord decodes a record's JSON: an *Event, an *IdempotencyRecord, or a new record of
// its kind's table.
func decodeRecord(r Record) (any, error) {
	var v any
	switch r.Kind {
	case KindEvent:
		v = new(Event)
	case KindIdempotency:
		v = new(IdempotencyRecord)
	default:
		tb, ok := decoders()[r.Kind]
		if !ok {
			return nil, ErrUnknownKind
		}
		return tb.decode(r.Value)
	}
	return v, loadJSON(r.Value, v)
}

// loadJSON decodes what the store's records marshal to, as encoding/json.Unmarshal does (its
// semantics: github.com/go-json-experiment/json/v1, the v1 API on the engine of
// encoding/json/v2, which is encoding/json itself under GOEXPERIMENT=jsonv2 from Go 1.25) in
// about half the time: no validation pass before the decoding one. A start decodes every record
// (FuzzLoadJSON: the same records, or an error, as encoding/json).
var loadJSON = jsonv1.Unmarshal

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

// sealedJSON is a sealed value that decodes its JSON (base64 in a string, as encoding/json
// writes a []byte) straight from the string when it holds no escape, without encoding/json's
// unquoting pass: a patient's sealed PHI is most of its record's bytes, and a start decodes
// every record (FuzzSealedJSON: the same bytes, or an error, as encoding/json's []byte).
type sealedJSON []byte

// UnmarshalJSON decodes b as encoding/json decodes a []byte.
func (s *sealedJSON) UnmarshalJSON(b []byte) error {
	n := len(b)
	if n < 2 || b[0] != '"' || bytes.IndexByte(b, '\\') >= 0 {
		return json.Unmarshal(b, (*[]byte)(s))
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(n-2))
	k, err := base64.StdEncoding.Decode(out, b[1:n-1])
	*s = out[:k]
	return err
}
