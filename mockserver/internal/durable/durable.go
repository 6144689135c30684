// Package durable is an append-only log of records kept in one bbolt file (go.etcd.io/bbolt:
// B+tree, ACID transactions, fsync per commit): records under big-endian sequence keys, an
// optional snapshot that replaces the records it covers (Compact), and the log's head — the
// number and SHA-256 of its newest record — committed in the same transaction as the records,
// so that records removed from the end show at Open (Recovery.Damage). Appends from concurrent
// callers are grouped into one transaction (one fsync): Enqueue returns at once, Commit.Wait
// returns once the record is on disk.
//
// Crash consistency, torn writes and free-space reuse are bbolt's: this package only maps "append
// a record" onto a transaction. A directory written by release 0.2 (segment and snapshot files)
// is imported by Open, its files kept under v0.2-backup/ (import02.go).
package durable

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// FileName is the log's file in its directory.
const FileName = "data.db"

// allocSize is the step the file grows by past its first MiB (bbolt's default is 16 MiB): the
// file stays within a MiB of what it holds.
const allocSize = 1 << 20

// Format names the layout of the log's file; a file of another format is refused by Open.
const Format = "medspa-mock-log/3"

// SyncPolicy says when appended records reach the disk.
type SyncPolicy int

const (
	// SyncAlways (the default) fsyncs every group commit before Wait returns: an appended
	// record survives a process kill and a power loss.
	SyncAlways SyncPolicy = iota
	// SyncNone writes without fsync: an appended record survives the process being killed (it
	// is in the kernel's page cache) but not a power loss. For tests that do not need more.
	SyncNone
)

var (
	// ErrLocked is returned by Open when another Log, in this or another process, has the
	// directory open.
	ErrLocked = errors.New("log is locked by another user")
	// ErrClosed is returned by operations on a closed Log.
	ErrClosed = errors.New("log is closed")
	// ErrCompacted is returned by ReadFrom for a position a Compact has removed.
	ErrCompacted = errors.New("position no longer in the log (compacted)")
	// ErrHead says the log's records do not end where its head says: records were removed
	// from its end (or its file was otherwise changed behind its back).
	ErrHead = errors.New("the log's newest records do not match its head")
)

// Bucket and key names in the file.
var (
	bMeta     = []byte("meta")
	bLog      = []byte("log")
	kFormat   = []byte("format")
	kHead     = []byte("head")     // sequence (8 bytes) and SHA-256 of the newest record
	kSnapshot = []byte("snapshot") // the bucket holding the current snapshot's records
	kCut      = []byte("cut")      // the first sequence the snapshot does not cover
	kDamage   = []byte("damage")   // what a head check found once: it stays reported
)

// Recovery says what Open found.
type Recovery struct {
	// Snapshot names the snapshot replay starts from; "" if none.
	Snapshot string
	// Records counts the log's records after the snapshot.
	Records int
	// Imported is the 0.2 directory's backup when Open imported one, else "".
	Imported string
	// Damage, when not nil, is what the head check found wrong (wrapping ErrHead): the log is
	// readable, its end is not what was committed.
	Damage error
}

// DB is an open bolt file holding logs, one bucket each: their appends share its transactions
// (one fsync for every record enqueued, in any log, while the previous transaction was on
// disk). Its methods are safe for concurrent use.
type DB struct {
	bolt     *bolt.DB
	readOnly bool
	zeros    *os.File // the file, for zeroAhead (nil read-only)

	mu       sync.Mutex
	queue    []batch   // appends waiting for the flusher, in order
	waiters  []*Commit // their commits
	flushing bool
	wanted   bool          // a Wait is on a queued commit: the flusher writes without delay
	kick     chan struct{} // (1) wakes a flusher waiting for a Wait
	delay    time.Duration // flushDelay (tests change it)
	closed   bool
	err      error // the first failed commit: the file takes no more appends
	flusher  sync.WaitGroup
}

// batch is one Enqueue: its log, the sequence of its first record, its records.
type batch struct {
	l     *Log
	first uint64
	recs  [][]byte
}

// Log is one log of a DB. Its methods are safe for concurrent use.
type Log struct {
	db   *DB
	name []byte // its bucket
	dir  string // where a 0.2 log was imported from (else its name): for messages
	own  bool   // Close closes db (a log opened by Open)

	// Guarded by db.mu.
	next     uint64  // the sequence of the next record enqueued
	last     *Commit // the last commit enqueued
	closed   bool
	recovery Recovery
}

// Options configure OpenDB. The zero value is the safe default.
type Options struct {
	// Sync is SyncAlways unless set.
	Sync SyncPolicy
	// ReadOnly opens the file for reading (Replay, ReadFrom, Check), changing nothing: no
	// import, no damage recorded; appends fail. It must exist.
	ReadOnly bool
}

// Open opens (creating if needed, mode 0700) directory dir holding one log in its own file
// (FileName), importing a log of release 0.2 found there.
func Open(dir string, opts Options) (*Log, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	db, err := OpenDB(filepath.Join(dir, FileName), opts)
	if err != nil {
		return nil, err
	}
	l, err := db.Log("log", dir)
	if err != nil {
		db.Close()
		return nil, err
	}
	l.own = true
	return l, nil
}

// OpenDB opens (creating if needed, mode 0600) the bolt file at path. Another open DB on it, in
// any process, makes it fail with ErrLocked; a file of another format fails it with an error
// naming both formats, the file unchanged.
func OpenDB(path string, opts Options) (*DB, error) {
	if err := checkSize(path); err != nil {
		return nil, fmt.Errorf("durable: %s: %w", path, err)
	}
	// The free list is not written with each commit (fewer pages per fsync): Open rebuilds it.
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 200 * time.Millisecond, NoSync: opts.Sync == SyncNone,
		ReadOnly: opts.ReadOnly, NoFreelistSync: true, FreelistType: bolt.FreelistMapType})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("durable: %s: %w", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("durable: %s: %w", path, err)
	}
	db.AllocSize = allocSize
	var format []byte
	_ = db.View(func(tx *bolt.Tx) error {
		if m := tx.Bucket(bMeta); m != nil {
			format = bytes.Clone(m.Get(kFormat))
		}
		return nil
	})
	switch {
	case format == nil && opts.ReadOnly:
		err = fmt.Errorf("durable: %s is not a data file", path)
	case format == nil:
		err = db.Update(func(tx *bolt.Tx) error {
			m, err := tx.CreateBucketIfNotExists(bMeta)
			if err == nil {
				err = m.Put(kFormat, []byte(Format))
			}
			return err
		})
	case string(format) != Format:
		err = fmt.Errorf("durable: %s is of format %q; this server reads %q (a newer release wrote it)", path, format, Format)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	d := &DB{bolt: db, readOnly: opts.ReadOnly, kick: make(chan struct{}, 1), delay: flushDelay}
	if !opts.ReadOnly {
		if d.zeros, err = os.OpenFile(path, os.O_WRONLY, 0); err != nil {
			db.Close()
			return nil, fmt.Errorf("durable: %w", err)
		}
	}
	return d, nil
}

// Zeros written ahead of the file's used pages (zeroAhead).
const (
	zeroMin  = 1 << 20 // at least this far ahead
	zeroStep = 2 << 20 // written this far ahead when less
)

// zeroAhead keeps zeros written past the file's used pages, so that the pages a commit takes
// were written before: its fdatasync then flushes data only, not the block allocations of a
// file grown sparse (bbolt grows it with truncate; on ext4 that made each commit 2-3× slower).
// It runs in a write transaction: nothing allocates pages meanwhile.
func (db *DB) zeroAhead(tx *bolt.Tx) error {
	fi, err := db.zeros.Stat()
	if err != nil || fi.Size() >= tx.Size()+zeroMin {
		return err
	}
	buf := make([]byte, 256<<10)
	for off, end := fi.Size(), tx.Size()+zeroStep; off < end; off += int64(len(buf)) {
		if _, err := db.zeros.WriteAt(buf[:min(int64(len(buf)), end-off)], off); err != nil {
			return err
		}
	}
	return db.zeros.Sync()
}

// Log returns the log named name, made on first use: then a log of release 0.2 in directory
// importDir ("" none) is imported into it (its files moved into importDir/v0.2-backup/).
// Call it once per name.
func (db *DB) Log(name, importDir string) (*Log, error) {
	l := &Log{db: db, name: []byte(name), dir: cmp.Or(importDir, name), last: doneCommit(nil)}
	exists := false
	_ = db.bolt.View(func(tx *bolt.Tx) error { exists = tx.Bucket(l.name) != nil; return nil })
	if !exists && !db.readOnly { // a transaction (its fsyncs) only to make it
		var files []string
		err := db.bolt.Update(func(tx *bolt.Tx) error {
			if tx.Bucket(l.name) != nil {
				return nil
			}
			b, err := tx.CreateBucket(l.name)
			if err == nil {
				_, err = b.CreateBucket(bMeta)
			}
			if err == nil {
				_, err = b.CreateBucket(bLog)
			}
			if err == nil && importDir != "" {
				files, err = import02(b, importDir)
			}
			return err
		})
		if err == nil && len(files) > 0 {
			l.recovery.Imported, err = backup02(importDir, files)
		}
		if err != nil {
			return nil, fmt.Errorf("durable: log %s: %w", l.dir, err)
		}
	}
	err := db.bolt.View(l.recover)
	if err == nil && l.recovery.Damage != nil && !db.readOnly { // kept: appends after it must not hide it
		err = db.bolt.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(l.name).Bucket(bMeta).Put(kDamage, []byte(l.recovery.Damage.Error()))
		})
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Logs returns the names of the file's logs that start with prefix.
func (db *DB) Logs(prefix string) []string {
	var names []string
	_ = db.bolt.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			if !bytes.Equal(name, bMeta) && bytes.HasPrefix(name, []byte(prefix)) {
				names = append(names, string(name))
			}
			return nil
		})
	})
	return names
}

// checkSize refuses a bolt file shorter than its newest meta page says (cut short: a copy or a
// disk that filled up), which bbolt would read past through its memory map and crash on. The
// meta pages are the first two: a 16-byte page header, then magic (at 16), page size (24),
// high-water page id (56), transaction id (64) and the FNV-64a of bytes 16-72 (72),
// little-endian on the platforms Go runs bbolt on.
func checkSize(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	var need, txid uint64
	off := int64(0)
	for i := range 2 {
		var m [80]byte
		if _, err := f.ReadAt(m[:], off); err != nil || binary.LittleEndian.Uint32(m[16:]) != 0xED0CDAED {
			break
		}
		h := fnv.New64a()
		h.Write(m[16:72])
		if h.Sum64() != binary.LittleEndian.Uint64(m[72:]) {
			off = int64(binary.LittleEndian.Uint32(m[24:]))
			continue // torn: bbolt uses the other one
		}
		pageSize := binary.LittleEndian.Uint32(m[24:])
		if t := binary.LittleEndian.Uint64(m[64:]); i == 0 || t > txid {
			txid, need = t, binary.LittleEndian.Uint64(m[56:])*uint64(pageSize)
		}
		off = int64(pageSize) // the second meta page
	}
	if uint64(fi.Size()) < need {
		return fmt.Errorf("the file is cut short: %d bytes, its pages need %d", fi.Size(), need)
	}
	return nil
}

// recover reads the log's position (next sequence, snapshot) and checks its head.
func (l *Log) recover(tx *bolt.Tx) error {
	b := tx.Bucket(l.name)
	if b == nil {
		return fmt.Errorf("durable: no log %s in the file", l.name)
	}
	m, lg := b.Bucket(bMeta), b.Bucket(bLog)
	l.recovery.Snapshot = string(m.Get(kSnapshot))
	cut := u64(m.Get(kCut))
	l.next = max(cut, 1)
	l.recovery.Records = lg.Stats().KeyN
	last, rec := lg.Cursor().Last()
	if last != nil {
		l.next = u64(last) + 1
	}
	head := m.Get(kHead)
	switch {
	case m.Get(kDamage) != nil:
		l.recovery.Damage = fmt.Errorf("%w: %s", ErrHead, m.Get(kDamage))
	case head == nil && last == nil:
	case head == nil || len(head) != 8+sha256.Size:
		l.recovery.Damage = fmt.Errorf("%w: no head", ErrHead)
	case last == nil && u64(head[:8]) < cut:
	case last == nil || u64(head[:8]) != u64(last):
		l.recovery.Damage = fmt.Errorf("%w: the head is record %d, the log ends at %d", ErrHead, u64(head[:8]), l.next-1)
		l.next = max(l.next, u64(head[:8])+1)
	case [sha256.Size]byte(head[8:]) != sha256.Sum256(rec):
		l.recovery.Damage = fmt.Errorf("%w: record %d is not the one committed", ErrHead, u64(last))
	}
	return nil
}

// Recovery reports what Open found.
func (l *Log) Recovery() Recovery {
	l.db.mu.Lock()
	defer l.db.mu.Unlock()
	return l.recovery
}

// Commit is the outcome of an Enqueue: Wait returns once its records are on disk.
type Commit struct {
	db   *DB // nil when done at birth
	done chan struct{}
	err  error
	at   Position // the first record's position
}

func newCommit(db *DB) *Commit { return &Commit{db: db, done: make(chan struct{})} }

func doneCommit(err error) *Commit {
	c := &Commit{done: make(chan struct{}), err: err}
	close(c.done)
	return c
}

// Wait returns nil once the commit's records are on disk, the failure that kept them from it,
// or ctx's error.
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

// Position is where the commit's first record is (valid once Wait returned nil).
func (c *Commit) Position() Position { return c.at }

// Enqueue appends recs, in this order and after every record enqueued before, as one atomic
// batch, and returns at once: the commit's Wait says when they are on disk.
func (l *Log) Enqueue(recs ...[]byte) *Commit {
	db := l.db
	db.mu.Lock()
	defer db.mu.Unlock()
	switch {
	case l.closed || db.closed:
		return doneCommit(ErrClosed)
	case db.err != nil:
		return doneCommit(db.err)
	case db.readOnly:
		return doneCommit(bolterrors.ErrDatabaseReadOnly)
	}
	c := newCommit(db)
	c.at = Position{Seq: l.next}
	db.queue = append(db.queue, batch{l, l.next, recs})
	db.waiters = append(db.waiters, c)
	l.next += uint64(len(recs))
	l.last = c
	if !db.flushing {
		db.flushing = true
		db.flusher.Add(1)
		go db.flush()
	}
	return c
}

// flushDelay is how long the flusher waits for a Wait before writing records nobody waits for.
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

// flush writes what is queued, one transaction (one fsync) per round, until the queue is empty:
// the records of every caller that enqueued while the previous round was on disk go together.
// A round starts once a caller waits (or after flushDelay): the writes of a request come in a
// row — its change, then its audit event — and its Wait comes after the last, so they share
// one transaction.
func (db *DB) flush() {
	defer db.flusher.Done()
	for {
		db.mu.Lock()
		if len(db.waiters) == 0 {
			db.flushing = false
			db.mu.Unlock()
			return
		}
		if !db.wanted && !db.closed {
			delay := db.delay
			db.mu.Unlock()
			t := time.NewTimer(delay)
			select {
			case <-db.kick:
			case <-t.C:
			}
			t.Stop()
			db.mu.Lock()
		}
		queue, waiters := db.queue, db.waiters
		db.queue, db.waiters, db.wanted = nil, nil, false
		db.mu.Unlock()
		err := db.bolt.Update(func(tx *bolt.Tx) error {
			if err := db.zeroAhead(tx); err != nil {
				return err
			}
			for _, b := range queue {
				lb := tx.Bucket(b.l.name)
				lg := lb.Bucket(bLog)
				lg.FillPercent = 1 // keys only grow: full pages
				for i, r := range b.recs {
					if err := lg.Put(key(b.first+uint64(i)), r); err != nil {
						return err
					}
				}
				last := b.first + uint64(len(b.recs)) - 1
				if err := lb.Bucket(bMeta).Put(kHead, append(key(last), sumOf(b.recs[len(b.recs)-1])...)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			err = fmt.Errorf("durable: writing %s: %w", db.bolt.Path(), err)
			db.mu.Lock()
			if db.err == nil {
				db.err = err
			}
			db.mu.Unlock()
		}
		for _, c := range waiters {
			c.err = err
			close(c.done)
		}
	}
}

// Sync returns once every record enqueued so far is on disk (or with the failure).
func (l *Log) Sync(ctx context.Context) error {
	l.db.mu.Lock()
	c := l.last
	l.db.mu.Unlock()
	return c.Wait(ctx)
}

// Close waits for the log's queued records and takes no more; a log opened by Open closes its
// file. Later calls do nothing.
func (l *Log) Close() error {
	l.db.mu.Lock()
	closed, c := l.closed, l.last
	l.closed = true
	l.db.mu.Unlock()
	if closed {
		return nil
	}
	err := c.Wait(context.Background())
	if l.own {
		return l.db.Close()
	}
	if errors.Is(err, ErrClosed) {
		err = nil
	}
	return err
}

// Close waits for the queued records, then closes the file. Later calls do nothing.
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

// Path is the file's path.
func (db *DB) Path() string { return db.bolt.Path() }

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

func key(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

func u64(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

func sumOf(rec []byte) []byte {
	s := sha256.Sum256(rec)
	return s[:]
}
