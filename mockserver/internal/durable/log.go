package durable

import (
	"bytes"
	"crypto/sha256"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Log is an append-only sequence of records in a bucket of a DB (its records under sequence
// keys in the sub-bucket "log", its head in "meta"). Its methods are safe for concurrent use.
type Log struct {
	db   *DB
	name []byte // its bucket

	next   uint64 // the sequence of the next record enqueued; guarded by db.mu
	damage error  // set by Log, then only read
}

// Position locates a record of the log: its sequence number. The zero Position is its start.
type Position struct{ Seq uint64 }

// Log returns the log named name, made on first use. Call it once per name.
func (db *DB) Log(name string) (*Log, error) {
	l := &Log{db: db, name: []byte(name)}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		if tx.Bucket(l.name) == nil && !db.readOnly {
			return nil
		}
		return l.recover(tx)
	})
	if err == nil && !db.readOnly && (l.next == 0 || l.damage != nil) {
		err = db.bolt.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists(l.name)
			for _, sub := range [][]byte{bLog, bMeta} {
				if err == nil {
					_, err = b.CreateBucketIfNotExists(sub)
				}
			}
			if err == nil && l.damage != nil { // kept: appends after it must not hide it
				err = b.Bucket(bMeta).Put(kDamage, []byte(l.damage.Error()))
			}
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("durable: log %s: %w", name, err)
	}
	l.next = max(l.next, 1)
	return l, nil
}

// Logs returns the names of the file's logs that start with prefix.
func (db *DB) Logs(prefix string) []string {
	var names []string
	_ = db.bolt.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			if bytes.HasPrefix(name, []byte(prefix)) && b.Bucket(bLog) != nil && b.Bucket(bMeta) != nil {
				names = append(names, string(name))
			}
			return nil
		})
	})
	return names
}

// recover reads the log's next sequence and checks its head.
func (l *Log) recover(tx *bolt.Tx) error {
	b := tx.Bucket(l.name)
	if b == nil || b.Bucket(bMeta) == nil || b.Bucket(bLog) == nil {
		return fmt.Errorf("no log %s in the file", l.name)
	}
	m := b.Bucket(bMeta)
	last, rec := b.Bucket(bLog).Cursor().Last()
	l.next = U64(last) + 1
	head := m.Get(kHead)
	switch {
	case m.Get(kDamage) != nil:
		l.damage = fmt.Errorf("%w: %s", ErrHead, m.Get(kDamage))
	case head == nil && last == nil:
	case head == nil || len(head) != 8+sha256.Size:
		l.damage = fmt.Errorf("%w: no head", ErrHead)
	case last == nil || U64(head[:8]) != U64(last):
		l.damage = fmt.Errorf("%w: the head is record %d, the log ends at %d", ErrHead, U64(head[:8]), l.next-1)
		l.next = max(l.next, U64(head[:8])+1)
	case [sha256.Size]byte(head[8:]) != sha256.Sum256(rec):
		l.damage = fmt.Errorf("%w: record %d is not the one committed", ErrHead, U64(last))
	}
	return nil
}

// Damage is what the head check found wrong when the log was opened (wrapping ErrHead), or
// nil: the log is readable, its end is not what was committed.
func (l *Log) Damage() error { return l.damage }

// Enqueue appends recs, in this order and after every record enqueued before, as one atomic
// batch, and returns at once: the commit's Wait says when they are on disk.
func (l *Log) Enqueue(recs ...[]byte) *Commit {
	db := l.db
	db.mu.Lock()
	defer db.mu.Unlock()
	first := l.next
	c := db.enqueueLocked(func(tx *bolt.Tx) error {
		b := tx.Bucket(l.name)
		lg := b.Bucket(bLog)
		lg.FillPercent = 1 // keys only grow: full pages
		for i, r := range recs {
			if err := lg.Put(Key(first+uint64(i)), r); err != nil {
				return err
			}
		}
		s := sha256.Sum256(recs[len(recs)-1])
		return b.Bucket(bMeta).Put(kHead, append(Key(first+uint64(len(recs))-1), s[:]...))
	})
	if c.db != nil {
		l.next += uint64(len(recs))
	}
	return c
}

// ReadFrom calls fn for the record at pos and every record after it, in order, with each
// record's position. rec is valid until fn returns; an error from fn stops it and is returned
// as is. Records enqueued meanwhile may or may not be included.
func (l *Log) ReadFrom(pos Position, fn func(rec []byte, pos Position) error) error {
	return l.db.bolt.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(l.name).Bucket(bLog).Cursor()
		for k, v := c.Seek(Key(pos.Seq)); k != nil; k, v = c.Next() {
			if err := fn(v, Position{U64(k)}); err != nil {
				return err
			}
		}
		return nil
	})
}
