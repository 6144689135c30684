package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/medspa/medspa-go/mockserver/internal/durable"
)

// Audit files (docs/protocol.md §10): in Options.DB, one durable.Log per account, named after
// the account (logPrefix, fileName). A record is an event's JSON as the admin
// surface answers it (hash included), or a checkpoint record {"checkpoint": {dropped, hash}}
// written by Import: the events after it chain from its hash. Files are only ever appended to:
// nothing is lost, a restart reloads memory from them, and After pages through them.

// files are the open audit files, by account.
type files struct {
	db *durable.DB

	mu        sync.Mutex
	byAccount map[string]*file
}

// file is one account's audit file.
type file struct {
	open sync.Once
	log  *durable.Log
	err  error

	// positions remembers where the last event of recent pages is, so the next page (after that
	// event) starts there: one page read per page. Bounded: cleared when full.
	posMu     sync.Mutex
	positions map[string]durable.Position
}

// maxRememberedPositions bounds file.positions.
const maxRememberedPositions = 4096

// fileName is the name of account's audit file: the id itself when it is made of
// letters, digits, '_' and '-' (every id the server makes), else "~" and its hex.
func fileName(account string) string {
	safe := account != "" && len(account) <= 128 && account[0] != '~' && strings.Trim(account,
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == ""
	if safe {
		return account
	}
	return "~" + hex.EncodeToString([]byte(account))
}

// logPrefix starts the names of the audit files' logs in a shared durable.DB.
const logPrefix = "audit/"

// accountOf is fileName's inverse.
func accountOf(name string) (string, bool) {
	if h, ok := strings.CutPrefix(name, "~"); ok {
		b, err := hex.DecodeString(h)
		return string(b), err == nil && len(b) > 0
	}
	return name, fileName(name) == name
}

// get returns account's file, opening it on first use.
func (fs *files) get(account string) (*file, error) {
	fs.mu.Lock()
	f := fs.byAccount[account]
	if f == nil {
		f = &file{}
		fs.byAccount[account] = f
	}
	fs.mu.Unlock()
	f.open.Do(func() {
		if f.log, f.err = fs.db.Log(logPrefix + fileName(account)); f.err != nil {
			f.err = fmt.Errorf("audit: %w", f.err)
		}
	})
	return f, f.err
}

// close opens no more files; those open take events until the DB closes (writing them all).
func (fs *files) close() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, f := range fs.byAccount {
		f.open.Do(func() { f.err = durable.ErrClosed })
	}
}

// enqueue queues e's record (in chain order: the caller holds Log.mu) and returns the wait for
// it to be on disk.
func (f *file) enqueue(recs ...[]byte) func(context.Context) error {
	c := f.log.Enqueue(recs...)
	return func(ctx context.Context) error {
		if err := c.Wait(ctx); err != nil {
			return fmt.Errorf("audit: writing the audit file: %w", err)
		}
		return nil
	}
}

// record is an event's record in the file.
func record(e Event) []byte { // by value: Record's event stays on its stack
	b, _ := json.Marshal(&e) // an Event always encodes
	return b
}

// checkpointRecord is Import's record of the checkpoint its events chain from.
func checkpointRecord(cp Checkpoint) []byte {
	b, _ := json.Marshal(struct {
		Checkpoint Checkpoint `json:"checkpoint"`
	}{cp})
	return b
}

// fileRecord decodes a record: an event, or a checkpoint.
type fileRecord struct {
	Event
	Checkpoint *Checkpoint `json:"checkpoint"`
}

func decodeRecord(rec []byte) (fileRecord, error) {
	var r fileRecord
	if err := json.Unmarshal(rec, &r.Event); err != nil {
		return r, err
	}
	if bytes.HasPrefix(rec, []byte(`{"checkpoint":`)) {
		if err := json.Unmarshal(rec, &struct {
			Checkpoint **Checkpoint `json:"checkpoint"`
		}{&r.Checkpoint}); err != nil {
			return r, err
		}
	}
	return r, nil
}

// errPageFull stops a page's read.
var errPageFull = errors.New("page full")

// page reads up to PageLimit events of account's file that follow the event with id (ZeroID:
// from the start). newest is the hash of the chain's newest event: a page that ends before it
// has more.
func (fs *files) page(account, id, newest string) (Page, error) {
	f, err := fs.get(account)
	if err != nil {
		return Page{}, err
	}
	start, prev := durable.Position{}, GenesisHash
	skip := false // the first record read is the event the page follows
	if id != ZeroID {
		var ok bool
		if start, ok = f.remembered(id); !ok {
			if start, ok, err = f.locate(id); err != nil || !ok {
				return Page{}, errors.Join(ErrNotFound, err)
			}
		}
		skip = true
	}
	p := Page{Events: []Event{}, Verified: true}
	var last durable.Position
	err = f.log.ReadFrom(start, func(rec []byte, at durable.Position) error {
		r, err := decodeRecord(rec)
		if err != nil {
			return fmt.Errorf("audit: %s: a record is not an event: %w", account, err)
		}
		if skip {
			skip = false
			if r.ID != id {
				return ErrNotFound // a remembered position that is not the event's: cannot happen
			}
			prev = r.Hash
			return nil
		}
		if r.Checkpoint != nil {
			prev = r.Checkpoint.Hash
			return nil
		}
		if len(p.Events) == PageLimit {
			p.HasMore = true
			return errPageFull
		}
		p.Verified = p.Verified && follows(prev, r.Event)
		prev = r.Hash
		p.Events = append(p.Events, r.Event)
		last = at
		return nil
	})
	if err != nil && !errors.Is(err, errPageFull) {
		return Page{}, err
	}
	if skip {
		return Page{}, ErrNotFound
	}
	p.Verified = p.Verified && f.log.Damage() == nil
	if n := len(p.Events); n > 0 {
		f.remember(p.Events[n-1].ID, last)
	}
	// Events written after the read began (or still on their way to the disk) are in memory.
	p.HasMore = p.HasMore || prev != newest
	return p, nil
}

// locate finds the position of the event with id by reading the file from the start (an id the
// positions do not remember: the client did not get it from the previous page).
func (f *file) locate(id string) (durable.Position, bool, error) {
	prefix := []byte(`{"id":` + string(mustJSON(id)) + `,`)
	var found durable.Position
	ok := false
	err := f.log.ReadFrom(durable.Position{}, func(rec []byte, at durable.Position) error {
		if bytes.HasPrefix(rec, prefix) {
			found, ok = at, true
			return errPageFull
		}
		return nil
	})
	if err != nil && !errors.Is(err, errPageFull) {
		return found, false, err
	}
	return found, ok, nil
}

func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

func (f *file) remembered(id string) (durable.Position, bool) {
	f.posMu.Lock()
	defer f.posMu.Unlock()
	p, ok := f.positions[id]
	return p, ok
}

func (f *file) remember(id string, at durable.Position) {
	f.posMu.Lock()
	defer f.posMu.Unlock()
	if f.positions == nil || len(f.positions) >= maxRememberedPositions {
		f.positions = map[string]durable.Position{}
	}
	f.positions[id] = at
}

// names returns the file names (fileName) of the accounts that have an audit file.
func (fs *files) names() []string {
	var names []string
	for _, n := range fs.db.Logs(logPrefix) {
		names = append(names, strings.TrimPrefix(n, logPrefix))
	}
	return names
}

// load reads every audit file back into memory: each account's newest
// events (up to the retention) and the checkpoint of the others.
func (l *Log) load() error {
	for _, name := range l.files.names() {
		account, ok := accountOf(name)
		if !ok || account == Anonymous {
			continue
		}
		f, err := l.files.get(account)
		if err != nil {
			return err
		}
		err = f.log.ReadFrom(durable.Position{}, func(rec []byte, _ durable.Position) error {
			r, err := decodeRecord(rec)
			if err != nil {
				return fmt.Errorf("audit: %s: a record is not an event: %w", account, err)
			}
			l.mu.Lock()
			defer l.mu.Unlock()
			if r.Checkpoint != nil {
				return l.restart(account, *r.Checkpoint)
			}
			sum, err := hashBytes(r.Hash)
			if err != nil {
				return fmt.Errorf("audit: %s: event %s: %w", account, r.ID, err)
			}
			l.push(l.chainOf(account), &r.Event, sum)
			return nil
		})
		if err != nil {
			return err
		}
		if f.log.Damage() != nil { // newest events removed: the chain cannot verify
			l.mu.Lock()
			l.chainOf(account).damaged = true
			l.mu.Unlock()
		}
	}
	return nil
}

// restart replaces account's chain in memory by an empty one that continues from cp; the caller
// holds l.mu.
func (l *Log) restart(account string, cp Checkpoint) error {
	sum, err := hashBytes(cp.Hash)
	if err != nil || cp.Dropped < 0 {
		return fmt.Errorf("audit: %s: invalid checkpoint", account)
	}
	delete(l.chains, account)
	c := l.chainOf(account)
	c.dropped, c.checkpoint = cp.Dropped, sum
	hex.Encode(c.last[:], sum[:])
	return nil
}

func hashBytes(h string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	if len(h) != 2*sha256.Size {
		return sum, errors.New("not a SHA-256 hash")
	}
	_, err := hex.Decode(sum[:], []byte(h))
	return sum, err
}

// State is an account's audit chain as snapshots carry it (Export, Import): the events kept in
// memory and the checkpoint standing for those that left.
type State struct {
	Checkpoint Checkpoint `json:"checkpoint"`
	Events     []Event    `json:"events"`
}

// Export returns account's audit state.
func (l *Log) Export(account string) State {
	p := l.Kept(account)
	return State{Checkpoint: p.Checkpoint, Events: p.Events}
}

// Import replaces account's chain in memory by st, which must verify from its checkpoint. Under
// a data directory, the file keeps everything it held and records the replacement: st's
// checkpoint, then its events (paging through the file crosses it).
func (l *Log) Import(ctx context.Context, account string, st State) error {
	if !VerifyFrom(st.Checkpoint.Hash, st.Events) {
		return fmt.Errorf("audit: %s: the imported events do not verify from their checkpoint", account)
	}
	var f *file
	if l.files != nil && account != Anonymous {
		var err error
		if f, err = l.files.get(account); err != nil {
			return err
		}
	}
	l.mu.Lock()
	if err := l.restart(account, st.Checkpoint); err != nil {
		l.mu.Unlock()
		return err
	}
	c := l.chainOf(account)
	recs := [][]byte{checkpointRecord(st.Checkpoint)}
	for i := range st.Events {
		e := st.Events[i]
		sum, _ := hashBytes(e.Hash) // verified above
		l.push(c, &e, sum)
		recs = append(recs, record(e))
	}
	var wait func(context.Context) error
	if f != nil {
		wait = f.enqueue(recs...)
	}
	l.mu.Unlock()
	if wait != nil {
		return wait(ctx)
	}
	return nil
}

// Check verifies every account's audit file in db (the logs Options.DB holds), changing
// nothing: the head (durable.DB.Check checks the file and every head) and the chain, each event
// following its predecessor (or the checkpoint before it). It returns one error per damaged
// chain, naming the account and the first event that does not follow.
func Check(db *durable.DB) error {
	var errs []error
	for _, name := range db.Logs(logPrefix) {
		account, _ := accountOf(strings.TrimPrefix(name, logPrefix))
		if err := checkChain(db, name); err != nil {
			errs = append(errs, fmt.Errorf("audit file of %s: %w", account, err))
		}
	}
	return errors.Join(errs...)
}

// checkChain verifies one account's chain.
func checkChain(db *durable.DB, name string) error {
	l, err := db.Log(name)
	if err != nil {
		return err
	}
	prev := GenesisHash
	return l.ReadFrom(durable.Position{}, func(rec []byte, _ durable.Position) error {
		r, err := decodeRecord(rec)
		switch {
		case err != nil:
			return fmt.Errorf("a record is not an event: %w", err)
		case r.Checkpoint != nil:
			prev = r.Checkpoint.Hash
		case !follows(prev, r.Event):
			return fmt.Errorf("event %s does not follow its predecessor", r.ID)
		default:
			prev = r.Hash
		}
		return nil
	})
}
