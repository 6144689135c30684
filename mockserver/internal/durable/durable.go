// Package durable is an append-only, crash-safe log of opaque records: the primitive under the
// mock server's data directory (docs/protocol.md §13: "a write is durable before its response is
// sent") and its per-account audit files (§10).
//
// A log is a directory: numbered segment files of CRC-framed records, at most one snapshot, and a
// lock file. Append returns once its record is on disk; concurrent appends share one write and one
// fsync (group commit). Replay hands back the snapshot's records, then every record appended after
// it, in order. Compact replaces the records so far by a snapshot the caller writes, while appends
// go on. Open repairs what a crash leaves (a torn last write) and refuses what a crash cannot
// explain (damage before the tail), naming the file and offset.
//
// An open log costs two file descriptors and no goroutine while idle (the flusher that writes
// group commits exits when the queue is empty), so a process may hold one per account. The
// directory's LOCK file keeps a second Log, in this process or another, from opening it; nothing
// else may open that file (on Unix, closing any descriptor of it drops the process's lock).
package durable

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// SyncPolicy says when appended records reach the disk.
type SyncPolicy int

const (
	// SyncAlways (the default) fsyncs every group commit before Append returns: an appended
	// record survives a process kill and a power loss.
	SyncAlways SyncPolicy = iota
	// SyncNone writes without fsync: an appended record survives the process being killed (it
	// is in the kernel's page cache) but not a power loss. For tests that do not need more.
	SyncNone
)

// DefaultSegmentSize is the segment size used when Options.SegmentSize is 0.
const DefaultSegmentSize = 64 << 20

// Options configure Open. The zero value is the safe default.
type Options struct {
	// Sync is SyncAlways unless set.
	Sync SyncPolicy
	// SegmentSize is the size past which the active segment is closed and a new one started
	// (DefaultSegmentSize when 0). A segment is removed only when a snapshot covers it.
	SegmentSize int64
}

var (
	// ErrLocked is returned by Open when another Log, in this or another process, has the
	// directory open.
	ErrLocked = errors.New("log is locked by another user")
	// ErrClosed is returned by operations on a closed Log.
	ErrClosed = errors.New("log is closed")
	// ErrTooLarge is returned for a record, or a batch, over MaxRecordSize.
	ErrTooLarge = errors.New("record larger than MaxRecordSize")
)

// Stats are counters since Open.
type Stats struct {
	Appends  uint64 // accepted Append, AppendBatch and Enqueue calls
	Records  uint64 // records in them
	Commits  uint64 // group commits: one write (and, with SyncAlways, one fsync) each
	Syncs    uint64 // fsyncs of segment files
	Segments int    // live segment files
}

// Recovery is what Open found in the directory and what it repaired.
type Recovery struct {
	Snapshot        string // the snapshot file replay starts from; "" if none
	SnapshotRecords int
	Segments        int // live segment files
	Records         int // records in them
	// TruncatedFile is the segment whose torn tail (a write cut short by a crash: a partial or
	// damaged last frame) was cut off at TruncatedAt, removing TruncatedBytes; "" if none.
	// None of those records had been acknowledged.
	TruncatedFile  string
	TruncatedAt    int64
	TruncatedBytes int64
	// Removed lists the files an interrupted Compact left behind that Open removed: temporary
	// files and the segments and snapshot a newer snapshot covers.
	Removed []string
}

// Log is an open log directory. Its methods are safe for concurrent use.
type Log struct {
	dir  string
	opts Options
	lock io.Closer
	// hook, set only by tests, runs at the named steps of Compact and of a group commit;
	// an error it returns is injected as that step's failure.
	hook func(step string) error

	// compactMu serialises Compact, Replay and Close: the files a replay reads are not
	// removed under it.
	compactMu sync.Mutex

	mu       sync.Mutex
	queue    []*Commit // frames and cuts for the flusher, in order
	open     *Commit   // the last queued frame, still taking appends
	flushing bool      // a flusher goroutine runs
	closed   bool
	err      error // the first write, sync or rotation failure: the log takes no more appends
	spare    [][]byte
	flusher  sync.WaitGroup
	snapshot uint64 // snapshot replay starts from; 0: none
	first    uint64 // live segments are first..active
	active   uint64
	// committed is how much of the active segment is written (and synced, with SyncAlways).
	committed int64
	stats     Stats
	recovery  Recovery

	// Owned by the flusher (by Open and Close when none runs).
	file *os.File // the active segment, positioned at its end
	size int64
}

// Open opens the log in directory dir, creating it (mode 0700) if needed, and recovers it: a torn
// tail of the last segment is truncated and reported in Recovery; leftovers of an interrupted
// Compact are removed. Damage before the tail is a *CorruptError naming the file and offset.
// Another open Log on dir, in any process, makes Open fail with ErrLocked.
func Open(dir string, opts Options) (*Log, error) {
	if opts.SegmentSize <= 0 {
		opts.SegmentSize = DefaultSegmentSize
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("durable: %w", err)
	}
	lock, err := lockFile(filepath.Join(dir, "LOCK"))
	if err != nil {
		return nil, fmt.Errorf("durable: %s: %w", dir, err)
	}
	l := &Log{dir: dir, opts: opts, lock: lock}
	if err := l.recover(); err != nil {
		lock.Close()
		if l.file != nil {
			l.file.Close()
		}
		return nil, err
	}
	return l, nil
}

// recover reads the directory, removes leftovers, verifies every live file and repairs the tail.
func (l *Log) recover() error {
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return fmt.Errorf("durable: %w", err)
	}
	var segs, snaps []uint64
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".tmp") {
			if err := l.remove(name); err != nil {
				return err
			}
		} else if seq, ok := parseName(name, ".seg"); ok {
			segs = append(segs, seq)
		} else if seq, ok := parseName(name, ".snap"); ok {
			snaps = append(snaps, seq)
		}
	}
	slices.Sort(segs)
	slices.Sort(snaps)
	var r fileReader
	skip := func([]byte, int64, int) error { return nil }
	if len(snaps) > 0 {
		// The newest snapshot is checked before anything it covers is removed.
		l.snapshot = snaps[len(snaps)-1]
		_, n, err := r.read(l.dir, kindSnapshot, l.snapshot, 0, -1, skip)
		if err != nil {
			return corrupt(filepath.Join(l.dir, snapshotName(l.snapshot)), err)
		}
		l.recovery.Snapshot, l.recovery.SnapshotRecords = snapshotName(l.snapshot), n
		for _, s := range snaps[:len(snaps)-1] {
			if err := l.remove(snapshotName(s)); err != nil {
				return err
			}
		}
	}
	l.first = max(l.snapshot, 1)
	var live []uint64
	for _, s := range segs {
		if s < l.first {
			if err := l.remove(segmentName(s)); err != nil {
				return err
			}
			continue
		}
		if want := l.first + uint64(len(live)); s != want {
			return &CorruptError{filepath.Join(l.dir, segmentName(want)), 0, "segment missing"}
		}
		live = append(live, s)
	}
	if len(l.recovery.Removed) > 0 {
		if err := l.syncDir(); err != nil {
			return err
		}
	}
	if len(live) == 0 {
		l.active = l.first
		if err := l.createSegment(l.active); err != nil {
			return fmt.Errorf("durable: %w", err)
		}
		l.committed = l.size
		return nil
	}
	for _, s := range live[:len(live)-1] {
		_, n, err := r.read(l.dir, kindSegment, s, 0, -1, skip)
		if err != nil {
			return corrupt(filepath.Join(l.dir, segmentName(s)), err)
		}
		l.recovery.Records += n
	}
	l.active = live[len(live)-1]
	l.recovery.Segments = len(live)
	return l.openTail(&r)
}

// openTail opens the last segment for appending, cutting off a torn tail.
func (l *Log) openTail(r *fileReader) error {
	path := filepath.Join(l.dir, segmentName(l.active))
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("durable: %w", err)
	}
	l.file = f
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("durable: %w", err)
	}
	size := fi.Size()
	good := int64(0) // a segment shorter than a header was being created: it is rewritten
	if size >= headerSize {
		var n int
		good, n, err = r.read(l.dir, kindSegment, l.active, 0, size, func([]byte, int64, int) error { return nil })
		l.recovery.Records += n
		var fe *frameError
		if errors.As(err, &fe) {
			torn, terr := tornTail(f, fe.off, size)
			if terr != nil {
				return fmt.Errorf("durable: %s: %w", path, terr)
			}
			if !torn {
				return &CorruptError{path, fe.off, fe.reason}
			}
		} else if err != nil {
			return corrupt(path, err)
		}
	}
	if good < size {
		if err := f.Truncate(good); err != nil {
			return fmt.Errorf("durable: %w", err)
		}
		l.recovery.TruncatedFile, l.recovery.TruncatedAt, l.recovery.TruncatedBytes = path, good, size-good
	}
	if good == 0 {
		if _, err := f.WriteAt(appendHeader(nil, kindSegment, l.active), 0); err != nil {
			return fmt.Errorf("durable: %w", err)
		}
		good = headerSize
	}
	if good < size || size < headerSize {
		if err := l.sync(f); err != nil {
			return fmt.Errorf("durable: %w", err)
		}
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		return fmt.Errorf("durable: %w", err)
	}
	l.size, l.committed = good, good
	return nil
}

// createSegment creates segment seq with its header, synced with its directory entry, and
// makes it the active segment.
func (l *Log) createSegment(seq uint64) error {
	path := filepath.Join(l.dir, segmentName(seq))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(appendHeader(nil, kindSegment, seq))
	if err == nil {
		err = l.sync(f)
	}
	if err == nil {
		err = l.syncDir()
	}
	if err != nil {
		f.Close()
		os.Remove(path) // nothing was ever in it
		return err
	}
	l.file, l.size = f, headerSize
	return nil
}

// remove deletes a leftover file of the directory and records it in Recovery.
func (l *Log) remove(name string) error {
	if err := os.Remove(filepath.Join(l.dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("durable: %w", err)
	}
	l.recovery.Removed = append(l.recovery.Removed, name)
	return nil
}

func (l *Log) sync(f *os.File) error {
	if l.opts.Sync == SyncNone {
		return nil
	}
	return f.Sync()
}

// SyncDir makes a directory's entries — files created, renamed or removed in it — durable, as
// the log does its own (a no-op on Windows, where NTFS journals them): for files a caller keeps
// beside a log.
func SyncDir(dir string) error { return syncDir(dir) }

func (l *Log) syncDir() error {
	if l.opts.Sync == SyncNone {
		return nil
	}
	return syncDir(l.dir)
}

// Recovery returns what Open found and repaired.
func (l *Log) Recovery() Recovery {
	r := l.recovery
	r.Removed = slices.Clone(r.Removed)
	return r
}

// Stats returns the counters since Open.
func (l *Log) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Segments = int(l.active - l.first + 1)
	return s
}

// Close waits for queued appends to be written, syncs the active segment (whatever the Sync
// policy, so a clean shutdown is durable) and releases the directory. It returns the failure
// that stopped the log, if any. Operations after Close return ErrClosed.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return ErrClosed
	}
	l.closed = true
	l.mu.Unlock()
	l.flusher.Wait()
	l.compactMu.Lock() // a running Compact or Replay finishes first
	defer l.compactMu.Unlock()
	l.mu.Lock()
	err := l.err
	l.mu.Unlock()
	if err == nil {
		err = l.file.Sync()
	}
	return errors.Join(err, l.file.Close(), l.lock.Close())
}
