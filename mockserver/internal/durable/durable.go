// Package durable is the data directory's bbolt file with group commit: the changes enqueued by
// concurrent callers (functions of a write transaction) run in one transaction, one fsync.
// Enqueue returns at once; Commit.Wait once the change is on disk. A Log is an append-only
// sequence of records (the audit files) whose head, committed with them, shows records removed
// from its end. Crash consistency, torn writes and free-space reuse are bbolt's. bbolt's own
// DB.Batch does not fit: it blocks its caller, so changes enqueued in commit order under an
// account's lock could not wait outside it.
package durable

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

const (
	// FileName is the file's name in its directory.
	FileName = "data.db"
	// Format names the layout of the file; a file of another format is refused by OpenDB.
	Format    = "medspa-mock-data/4"
	allocSize = 1 << 20 // the file grows by 1 MiB steps (bbolt's default: 16 MiB)
)

var (
	// ErrLocked is returned by OpenDB when another DB, in any process, has the file open.
	ErrLocked = errors.New("the data file is locked by another user")
	// ErrClosed is returned by operations on a closed DB.
	ErrClosed = errors.New("the data file is closed")
	// ErrHead says a log's records do not end where its head says: records were removed from
	// its end (or its file was otherwise changed behind its back).
	ErrHead = errors.New("the log's newest records do not match its head")
)

// Bucket and key names in the file.
var (
	bMeta   = []byte("meta")
	bLog    = []byte("log")
	kFormat = []byte("format")
	kHead   = []byte("head")   // a log's: sequence (8 bytes) and SHA-256 of the newest record
	kDamage = []byte("damage") // what a head check found once: it stays reported
)

// Options configure OpenDB. The zero value is the safe default: every commit fsynced before
// Wait returns (it survives a power loss).
type Options struct {
	// NoSync writes without fsync (tests): a change survives the process being killed only.
	NoSync bool
	// ReadOnly opens an existing file for reading (View, ReadFrom, Check); changes fail.
	ReadOnly bool
}

// DB is an open data file. Its methods are safe for concurrent use.
type DB struct {
	bolt     *bolt.DB
	readOnly bool
	zeros    *os.File // the file, for zeroAhead (nil read-only)

	mu       sync.Mutex
	next     *Commit // the changes waiting for the flusher, in order, and the Commit they share
	flushing bool
	wanted   bool          // a Wait is on the next commit: the flusher writes without delay
	kick     chan struct{} // (1) wakes a flusher waiting for a Wait
	delay    time.Duration // flushDelay (tests change it)
	closed   bool
	err      error // the first failed commit: the file takes no more changes
	flusher  sync.WaitGroup
}

// OpenDB opens (creating if needed, mode 0600) the bolt file at path. Another open DB on it, in
// any process, makes it fail with ErrLocked; a file of another format fails it with an error
// naming both formats, the file unchanged.
func OpenDB(path string, opts Options) (*DB, error) {
	// The free list is not written with each commit (fewer pages per fsync): Open rebuilds it.
	bo := &bolt.Options{Timeout: 200 * time.Millisecond, NoSync: opts.NoSync,
		ReadOnly: opts.ReadOnly, NoFreelistSync: true, FreelistType: bolt.FreelistMapType}
	err := checkSize(path, bo.Timeout)
	var db *bolt.DB
	if err == nil {
		db, err = bolt.Open(path, 0o600, bo)
	}
	if errors.Is(err, bolterrors.ErrTimeout) {
		err = ErrLocked
	}
	if err != nil {
		return nil, fmt.Errorf("durable: %s: %w", path, err)
	}
	db.AllocSize = allocSize
	fresh := false
	err = db.View(func(tx *bolt.Tx) error {
		var format []byte
		if m := tx.Bucket(bMeta); m != nil {
			format = m.Get(kFormat)
		}
		switch fresh = format == nil; {
		case fresh && opts.ReadOnly:
			return fmt.Errorf("durable: %s is not a data file", path)
		case !fresh && string(format) != Format:
			return fmt.Errorf("durable: %s is of format %q; this server reads %q (a newer release wrote it)", path, format, Format)
		}
		return nil
	})
	if err == nil && fresh {
		err = db.Update(func(tx *bolt.Tx) error {
			m, err := tx.CreateBucketIfNotExists(bMeta)
			if err == nil {
				err = m.Put(kFormat, []byte(Format))
			}
			return err
		})
	}
	d := &DB{bolt: db, readOnly: opts.ReadOnly, kick: make(chan struct{}, 1), delay: flushDelay}
	if err == nil && !opts.ReadOnly {
		d.zeros, err = os.OpenFile(path, os.O_WRONLY, 0)
	}
	if err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return d, nil
}

// checkSize refuses a file shorter than its pages (cut short: a copy, a disk that filled up):
// bbolt (v1.4.3) maps it unchecked and crashes reading past its end. Its newest valid meta page
// says how long it is (Tx.Size); a read-only open reads only the meta pages.
func checkSize(path string, timeout time.Duration) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() == 0 {
		return nil // none yet, or bbolt says what is wrong
	}
	db, err := bolt.Open(path, 0, &bolt.Options{ReadOnly: true, Timeout: timeout})
	if err != nil {
		return err
	}
	defer db.Close()
	return db.View(func(tx *bolt.Tx) error {
		if tx.Size() > fi.Size() {
			return fmt.Errorf("the file is cut short: %d bytes, its pages need %d", fi.Size(), tx.Size())
		}
		return nil
	})
}

// zeroAhead keeps 1-2 MiB of zeros written past the file's used pages, so that the pages a
// commit takes were written before: its fdatasync then flushes data only, not the block
// allocations of a file grown sparse (bbolt grows it with truncate; on ext4 that made each
// commit 2-3× slower). It runs in the write transaction: nothing allocates pages meanwhile.
func (db *DB) zeroAhead(tx *bolt.Tx) error {
	fi, err := db.zeros.Stat()
	if err != nil || fi.Size() >= tx.Size()+1<<20 {
		return err
	}
	buf := make([]byte, 256<<10)
	for off, end := fi.Size(), tx.Size()+2<<20; off < end; off += int64(len(buf)) {
		if _, err := db.zeros.WriteAt(buf[:min(int64(len(buf)), end-off)], off); err != nil {
			return err
		}
	}
	return db.zeros.Sync()
}

// View runs fn in a read transaction: it sees every change committed before it began.
func (db *DB) View(fn func(tx *bolt.Tx) error) error { return db.bolt.View(fn) }

// Update runs fn in a write transaction of its own, outside the group commit (opening, import).
func (db *DB) Update(fn func(tx *bolt.Tx) error) error { return db.bolt.Update(fn) }

// Commit is the outcome of the changes of one group commit: Wait returns once they are on disk.
type Commit struct {
	db      *DB // nil when done at birth
	changes []func(*bolt.Tx) error
	done    chan struct{}
	err     error
}

func doneCommit(err error) *Commit {
	c := &Commit{done: make(chan struct{}), err: err}
	close(c.done)
	return c
}

// Wait returns nil once the commit's changes are on disk, the failure that kept them from it, or
// ctx's error.
func (c *Commit) Wait(ctx context.Context) error {
	select {
	case <-c.done:
		return c.err
	default:
		c.db.want()
	}
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Enqueue queues change, after every change enqueued before, to run in the next group commit's
// transaction (an error from it fails the whole transaction: every change of it, and the file
// takes no more), and returns at once: the commit's Wait says when it is on disk.
func (db *DB) Enqueue(change func(*bolt.Tx) error) *Commit {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.enqueueLocked(change)
}

func (db *DB) enqueueLocked(change func(*bolt.Tx) error) *Commit {
	switch {
	case db.closed:
		return doneCommit(ErrClosed)
	case db.err != nil:
		return doneCommit(db.err)
	case db.readOnly:
		return doneCommit(bolterrors.ErrDatabaseReadOnly)
	case db.next == nil:
		db.next = &Commit{db: db, done: make(chan struct{})}
	}
	db.next.changes = append(db.next.changes, change)
	if !db.flushing {
		db.flushing = true
		db.flusher.Add(1)
		go db.flush()
	}
	return db.next
}

// flushDelay is how long the flusher waits for a Wait before writing changes nobody waits for.
const flushDelay = time.Millisecond

// want tells the flusher that a caller waits: what is queued is written without delay.
func (db *DB) want() {
	db.mu.Lock()
	db.wanted = true
	db.mu.Unlock()
	select {
	case db.kick <- struct{}{}:
	default:
	}
}

// flush writes what is queued, one transaction (one fsync) per round, until nothing is: the
// changes of every caller that enqueued while the previous round was on disk go together. A
// round starts once a caller waits (or after flushDelay): a request's writes come in a row —
// its change, then its audit event — and its Wait after the last, so they share a transaction.
func (db *DB) flush() {
	defer db.flusher.Done()
	for {
		db.mu.Lock()
		if db.next == nil {
			db.flushing = false
			db.mu.Unlock()
			return
		}
		if !db.wanted && !db.closed {
			delay := db.delay
			db.mu.Unlock()
			select {
			case <-db.kick:
			case <-time.After(delay):
			}
			db.mu.Lock()
		}
		c := db.next
		db.next, db.wanted = nil, false
		db.mu.Unlock()
		c.err = db.bolt.Update(func(tx *bolt.Tx) error {
			err := db.zeroAhead(tx)
			for i := 0; err == nil && i < len(c.changes); i++ {
				err = c.changes[i](tx)
			}
			return err
		})
		if c.err != nil {
			c.err = fmt.Errorf("durable: writing %s: %w", db.bolt.Path(), c.err)
			db.mu.Lock()
			db.err = cmp.Or(db.err, c.err)
			db.mu.Unlock()
		}
		c.changes = nil
		close(c.done)
	}
}

// Close waits for the queued changes, then closes the file. Later calls do nothing.
func (db *DB) Close() error {
	db.mu.Lock()
	if db.closed {
		db.mu.Unlock()
		return nil
	}
	db.closed = true
	db.mu.Unlock()
	db.want()
	db.flusher.Wait()
	var err error
	if db.zeros != nil {
		err = db.zeros.Close()
	}
	return errors.Join(db.bolt.Close(), err)
}

// WriteFreeList is a change that makes its transaction, and those after it, write the file's
// free list (the group commits do not: OpenDB), so that the next OpenDB reads the list instead
// of walking every page: the change of a clean close.
func WriteFreeList(tx *bolt.Tx) error {
	tx.DB().NoFreelistSync = false
	return nil
}

// Check verifies the file: bbolt's own consistency check (pages, free list, B+tree), then every
// log's head. It returns every problem found, joined.
func (db *DB) Check() error {
	var errs []error
	logs := db.Logs("")
	err := db.bolt.View(func(tx *bolt.Tx) error {
		for e := range tx.Check() {
			errs = append(errs, e)
		}
		for _, name := range logs {
			if l := (&Log{db: db, name: []byte(name)}); l.recover(tx) == nil && l.damage != nil {
				errs = append(errs, fmt.Errorf("log %s: %w", name, l.damage))
			}
		}
		return nil
	})
	return errors.Join(append(errs, err)...)
}

// SyncDir makes the entries of directory dir durable (a new or renamed file in it).
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && runtime.GOOS != "windows" { // Windows cannot sync a directory
		return err
	}
	return nil
}

// Key is the key of sequence number n: big-endian, so keys sort in number order.
func Key(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// U64 is Key's inverse (0 for a key of another length).
func U64(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}
