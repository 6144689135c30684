package durable

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// Position locates a record of the log: its sequence number. The zero Position is the start of
// the log (after the snapshot).
type Position struct{ Seq uint64 }

// Replay calls fn for every record in order: the snapshot's, then the log's. rec is valid until
// fn returns. Records enqueued while Replay runs may or may not be included. An error from fn
// stops Replay and is returned as is.
func (l *Log) Replay(fn func(rec []byte) error) error {
	return l.db.bolt.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(l.name)
		if name := b.Bucket(bMeta).Get(kSnapshot); name != nil {
			if err := each(b.Bucket(name), nil, func(_, v []byte) error { return fn(v) }); err != nil {
				return err
			}
		}
		return each(b.Bucket(bLog), nil, func(_, v []byte) error { return fn(v) })
	})
}

// ReadFrom calls fn, as Replay does, for the record at pos and every record after it (not the
// snapshot's), with each record's position. A position a Compact removed is ErrCompacted.
func (l *Log) ReadFrom(pos Position, fn func(rec []byte, pos Position) error) error {
	return l.db.bolt.View(func(tx *bolt.Tx) error {
		lg := tx.Bucket(l.name).Bucket(bLog)
		if pos.Seq != 0 {
			if first, _ := lg.Cursor().First(); first == nil || u64(first) > pos.Seq {
				return ErrCompacted
			}
		}
		return each(lg, key(pos.Seq), func(k, v []byte) error { return fn(v, Position{u64(k)}) })
	})
}

// each calls fn for b's keys from start (nil: the first) on.
func each(b *bolt.Bucket, start []byte, fn func(k, v []byte) error) error {
	c := b.Cursor()
	k, v := c.First()
	if start != nil {
		k, v = c.Seek(start)
	}
	for ; k != nil; k, v = c.Next() {
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

// snapshotChunk is how many bytes of snapshot records go into one transaction.
const snapshotChunk = 8 << 20

// Compact replaces the log's records enqueued so far by a snapshot: writeSnapshot writes it, each
// Write one record. Records enqueued after the cut stay and replay after the snapshot even when
// the state writeSnapshot saw includes them, so they must be safe to apply again. The snapshot
// is written into a new bucket (in transactions of bounded size); one last transaction makes it
// current and drops the records it covers and the previous snapshot, so a crash at any step
// leaves the log as it was or compacted. An error aborts the compaction: the log is unchanged.
func (l *Log) Compact(writeSnapshot func(w io.Writer) error) error {
	l.db.mu.Lock()
	cut, last, closed := l.next, l.last, l.closed || l.db.closed
	l.db.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if err := last.Wait(context.Background()); err != nil {
		return err
	}
	name := []byte("snapshot-" + strconv.FormatUint(cut, 10))
	w := &snapshotWriter{l: l, name: name}
	err := l.db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(l.name)
		_ = b.DeleteBucket(name) // a compaction cut short at the same point
		_, err := b.CreateBucket(name)
		return err
	})
	if err == nil {
		err = writeSnapshot(w)
	}
	if err == nil {
		err = w.flush()
	}
	if err == nil {
		err = l.db.bolt.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(l.name)
			m := b.Bucket(bMeta)
			if old := m.Get(kSnapshot); old != nil && !bytes.Equal(old, name) {
				if err := b.DeleteBucket(old); err != nil {
					return err
				}
			}
			c := b.Bucket(bLog).Cursor()
			for k, _ := c.First(); k != nil && u64(k) < cut; k, _ = c.First() {
				if err := c.Delete(); err != nil {
					return err
				}
			}
			if err := m.Put(kSnapshot, name); err != nil {
				return err
			}
			return m.Put(kCut, key(cut))
		})
	}
	if err != nil {
		_ = l.db.bolt.Update(func(tx *bolt.Tx) error { return tx.Bucket(l.name).DeleteBucket(name) })
		return fmt.Errorf("durable: compact: %w", err)
	}
	l.db.mu.Lock()
	l.recovery.Snapshot = string(name)
	l.db.mu.Unlock()
	return nil
}

// snapshotWriter writes a snapshot's records into its bucket, a chunk per transaction.
type snapshotWriter struct {
	l     *Log
	name  []byte
	n     uint64
	recs  [][]byte
	bytes int
}

// Write adds p as the snapshot's next record.
func (s *snapshotWriter) Write(p []byte) (int, error) {
	s.recs = append(s.recs, bytes.Clone(p))
	s.bytes += len(p)
	if s.bytes >= snapshotChunk {
		if err := s.flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (s *snapshotWriter) flush() error {
	err := s.l.db.bolt.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(s.l.name).Bucket(s.name)
		b.FillPercent = 1
		for i, r := range s.recs {
			if err := b.Put(key(s.n+uint64(i)), r); err != nil {
				return err
			}
		}
		return nil
	})
	s.n += uint64(len(s.recs))
	s.recs, s.bytes = s.recs[:0], 0
	return err
}

// Check verifies the log: its file (DB.Check without the other logs' heads), then its head.
func (l *Log) Check() error {
	return errors.Join(l.db.checkFile(), l.Recovery().Damage)
}

// Check verifies the file: bbolt's own consistency check (pages, free list, B+tree), then every
// log's head. It returns every problem found, joined.
func (db *DB) Check() error {
	errs := []error{db.checkFile()}
	for _, name := range db.Logs("") {
		l := &Log{db: db, name: []byte(name)}
		if err := db.bolt.View(l.recover); err != nil {
			errs = append(errs, err)
		} else if l.recovery.Damage != nil {
			errs = append(errs, fmt.Errorf("log %s: %w", name, l.recovery.Damage))
		}
	}
	return errors.Join(errs...)
}

func (db *DB) checkFile() error {
	var errs []error
	err := db.bolt.View(func(tx *bolt.Tx) error {
		for e := range tx.Check() {
			errs = append(errs, e)
		}
		return nil
	})
	return errors.Join(append(errs, err)...)
}
