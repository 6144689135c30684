package durable

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Compact replaces the records logged so far by a snapshot. writeSnapshot writes the state those
// records build, as records: each Write on w is one record (at most MaxRecordSize; a
// json.Encoder's Encode is one Write), and Replay hands them back, in order, before the records
// appended after the snapshot.
//
// The snapshot covers every record enqueued before Compact was called, so writeSnapshot must
// write a state that includes all of them. Appends go on while it runs; the records enqueued
// after the cut stay in the log and replay after the snapshot even when the state writeSnapshot
// saw already includes them, so they must be safe to apply again (idempotent, or stamped with a
// sequence number that the snapshot records and replay skips up to).
//
// The snapshot goes to a temporary file that is synced, renamed into place, and its directory
// synced; only then are the segments it covers and the previous snapshot removed. A crash at any
// step leaves a directory that replays to the same state, and Open finishes the job. An error
// from writeSnapshot aborts the compaction and is returned (wrapped); the log is unchanged.
func (l *Log) Compact(writeSnapshot func(w io.Writer) error) error {
	l.compactMu.Lock()
	defer l.compactMu.Unlock()
	seq, err := l.cut()
	if err != nil {
		return err
	}
	if err := l.step("cut"); err != nil {
		return fmt.Errorf("durable: compact: %w", err)
	}
	tmp := filepath.Join(l.dir, snapshotName(seq)+".tmp")
	err = l.writeSnapshotFile(tmp, seq, writeSnapshot)
	if err == nil {
		err = l.step("written")
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(l.dir, snapshotName(seq)))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("durable: compact: %w", err)
	}
	// From here on the new snapshot is what Open will pick: failures leave only leftovers,
	// which the next Open removes.
	err = l.syncDir()
	l.mu.Lock()
	old, first := l.snapshot, l.first
	l.snapshot, l.first = seq, seq
	l.mu.Unlock()
	if err == nil {
		err = l.step("renamed")
	}
	if err == nil {
		err = l.removeCovered(old, first, seq)
	}
	if err != nil {
		return fmt.Errorf("durable: compact: the snapshot is in place; removing what it covers: %w", err)
	}
	return nil
}

// removeCovered removes the previous snapshot old and the segments first..seq-1.
func (l *Log) removeCovered(old, first, seq uint64) error {
	var names []string
	if old != 0 && old != seq {
		names = append(names, snapshotName(old))
	}
	for s := first; s < seq; s++ {
		names = append(names, segmentName(s))
	}
	for _, name := range names {
		if err := os.Remove(filepath.Join(l.dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if err := l.step("removed"); err != nil {
			return err
		}
	}
	return l.syncDir()
}

// cut has the flusher write everything queued so far and start a new segment, and returns that
// segment's sequence: the first one the snapshot does not cover.
func (l *Log) cut() (uint64, error) {
	c := newCommit()
	c.cut = true
	l.mu.Lock()
	switch {
	case l.closed:
		l.mu.Unlock()
		return 0, fmt.Errorf("durable: compact: %w", ErrClosed)
	case l.err != nil:
		l.mu.Unlock()
		return 0, l.err
	}
	l.queue = append(l.queue, c)
	l.open = nil // later appends go after the cut
	l.startFlusher()
	l.mu.Unlock()
	<-c.done
	return c.seq, c.err
}

// writeSnapshotFile writes the snapshot file of seq at path and syncs it.
func (l *Log) writeSnapshotFile(path string, seq uint64, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	sw := &snapshotWriter{w: bw, frame: newFrame(nil, bodyRecords)}
	_, err = bw.Write(appendHeader(nil, kindSnapshot, seq))
	if err == nil {
		err = write(sw)
	}
	if err == nil {
		err = sw.finish()
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = l.sync(f)
	}
	return errors.Join(err, f.Close())
}

// snapshotWriter frames what writeSnapshot writes: each Write is one record.
type snapshotWriter struct {
	w       *bufio.Writer
	frame   []byte
	inFrame int // records in frame
	records int
	err     error // sticky: the first write failure, or errFinished
}

var errFinished = errors.New("durable: write to a snapshot after its writeSnapshot returned")

// Write appends p as one record of the snapshot.
func (s *snapshotWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	size := uvarintLen(len(p)) + len(p)
	if size > MaxRecordSize {
		return 0, fmt.Errorf("durable: snapshot record of %d bytes: %w", len(p), ErrTooLarge)
	}
	if s.inFrame > 0 && len(s.frame)-frameHeaderSize+size > groupLimit {
		if err := s.flushFrame(); err != nil {
			return 0, err
		}
	}
	s.frame = appendRecord(s.frame, p)
	s.inFrame++
	s.records++
	return len(p), nil
}

func (s *snapshotWriter) flushFrame() error {
	sealFrame(s.frame)
	if _, err := s.w.Write(s.frame); err != nil {
		s.err = err
		return err
	}
	s.frame = newFrame(s.frame, bodyRecords)
	s.inFrame = 0
	return nil
}

// finish writes the pending records and the end frame, which tells a complete snapshot from a
// cut-short one.
func (s *snapshotWriter) finish() error {
	if s.err != nil {
		return s.err
	}
	if s.inFrame > 0 {
		if err := s.flushFrame(); err != nil {
			return err
		}
	}
	end := binary.AppendUvarint(newFrame(s.frame, bodySnapshotEnd), uint64(s.records))
	sealFrame(end)
	_, err := s.w.Write(end)
	s.err = errFinished
	return err
}
