package durable

import (
	"context"
	"fmt"
	"path/filepath"
)

// Commit is the outcome of an Enqueue: done once its records are on disk, or failed. Appends that
// share a group commit share one Commit.
type Commit struct {
	done chan struct{}
	err  error // set before done is closed

	// Guarded by Log.mu until the flusher takes the Commit from the queue.
	frame   []byte // a frame under construction (newFrame)
	records int
	// cut marks a Compact cut rather than a frame: the flusher starts a new segment (unless the
	// active one is still empty) and sets seq to the active segment.
	cut bool
	seq uint64
	// at is where the frame was written (set by the flusher before done is closed).
	at Position
}

// Done is closed when the commit is done.
func (c *Commit) Done() <-chan struct{} { return c.done }

// Wait returns nil once the commit's records are on disk, or the failure that kept them off it.
// If ctx ends first, Wait returns ctx.Err(): the records may still reach the disk, as after a
// crash, so the caller must not acknowledge them.
func (c *Commit) Wait(ctx context.Context) error {
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		select {
		case <-c.done:
			return c.err
		default:
			return ctx.Err()
		}
	}
}

// Position is where the commit's record number index (as EnqueueRecord returned it) is in the
// log. It is valid once Wait returned nil.
func (c *Commit) Position(index int) Position {
	p := c.at
	p.Index = index
	return p
}

func newCommit() *Commit { return &Commit{done: make(chan struct{})} }

func doneCommit(err error) *Commit {
	c := newCommit()
	c.err = err
	close(c.done)
	return c
}

// Append appends rec and returns once it is on disk (with SyncAlways; written, with SyncNone).
// If ctx is already done, nothing is appended. If ctx ends while Append waits, it returns
// ctx.Err() and rec may or may not be in the log.
func (l *Log) Append(ctx context.Context, rec []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.Enqueue(rec).Wait(ctx)
}

// AppendBatch appends recs atomically, as Append does one record: after a crash either all of
// them replay or none does. An empty batch is a no-op.
func (l *Log) AppendBatch(ctx context.Context, recs [][]byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return l.Enqueue(recs...).Wait(ctx)
}

// Enqueue queues recs as one atomic batch and returns at once; the Commit says when they are on
// disk. Records are logged in the order of Enqueue calls, so a caller that must log its changes
// in the order it makes them enqueues under its own lock and waits outside it, and concurrent
// callers still share fsyncs. recs are copied: the caller may reuse them at once. A batch over
// MaxRecordSize (record lengths included) fails with ErrTooLarge.
func (l *Log) Enqueue(recs ...[]byte) *Commit {
	c, _ := l.enqueue(recs)
	return c
}

// EnqueueRecord is Enqueue of one record that also returns the record's index in its Commit:
// once the Commit is done, c.Position(index) is where the record is (for ReadFrom).
func (l *Log) EnqueueRecord(rec []byte) (c *Commit, index int) { return l.enqueue([][]byte{rec}) }

// enqueue queues recs and returns their commit and the index of the first of them in it.
func (l *Log) enqueue(recs [][]byte) (*Commit, int) {
	size := encodedSize(recs)
	if size > MaxRecordSize {
		return doneCommit(fmt.Errorf("durable: append %d bytes: %w", size, ErrTooLarge)), 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return doneCommit(fmt.Errorf("durable: append: %w", ErrClosed)), 0
	}
	if l.err != nil {
		return doneCommit(l.err), 0
	}
	if len(recs) == 0 {
		return doneCommit(nil), 0
	}
	c := l.open
	if c == nil || (c.records > 0 && len(c.frame)-frameHeaderSize+size > groupLimit) {
		c = newCommit()
		var buf []byte
		if n := len(l.spare); n > 0 {
			buf, l.spare = l.spare[n-1], l.spare[:n-1]
		}
		c.frame = newFrame(buf, bodyRecords)
		l.queue = append(l.queue, c)
		l.open = c
	}
	index := c.records
	for _, r := range recs {
		c.frame = appendRecord(c.frame, r)
	}
	c.records += len(recs)
	l.stats.Appends++
	l.stats.Records += uint64(len(recs))
	l.startFlusher()
	return c, index
}

// startFlusher starts the flusher goroutine unless one runs. l.mu is held.
func (l *Log) startFlusher() {
	if !l.flushing {
		l.flushing = true
		l.flusher.Add(1)
		go l.flush()
	}
}

// flush writes queued frames until the queue is empty, one write and one fsync per frame, then
// exits (so an idle log holds no goroutine). Appends that arrive during a write+fsync gather in
// the next frame: that is the group commit.
func (l *Log) flush() {
	defer l.flusher.Done()
	for {
		l.mu.Lock()
		if len(l.queue) == 0 {
			l.flushing = false
			l.mu.Unlock()
			return
		}
		c := l.queue[0]
		l.queue[0] = nil
		l.queue = l.queue[1:]
		if c == l.open {
			l.open = nil
		}
		err := l.err
		l.mu.Unlock()

		if err == nil {
			if c.cut {
				err = l.cutSegment(c)
			} else {
				err = l.commit(c)
			}
			if err != nil {
				err = fmt.Errorf("durable: %s: %w", filepath.Join(l.dir, segmentName(l.active)), err)
			}
		}
		l.mu.Lock()
		if err != nil && l.err == nil {
			l.err = err // the file's state after a failed write or fsync is unknown: stop here
		}
		if c.frame != nil && cap(c.frame) <= 4*groupLimit && len(l.spare) < 4 {
			l.spare = append(l.spare, c.frame)
		}
		c.frame = nil
		l.mu.Unlock()
		c.err = err
		close(c.done)
	}
}

// commit writes one frame to the active segment and syncs it, then rotates a full segment.
func (l *Log) commit(c *Commit) error {
	sealFrame(c.frame)
	c.at = Position{Segment: l.active, Offset: l.size}
	if err := l.step("write"); err != nil {
		return err
	}
	if _, err := l.file.Write(c.frame); err != nil {
		return err
	}
	synced := l.opts.Sync == SyncAlways
	if synced {
		if err := l.step("sync"); err != nil {
			return err
		}
		if err := l.file.Sync(); err != nil {
			return err
		}
	}
	l.size += int64(len(c.frame))
	l.mu.Lock()
	l.committed = l.size
	l.stats.Commits++
	if synced {
		l.stats.Syncs++
	}
	l.mu.Unlock()
	if l.size >= l.opts.SegmentSize {
		return l.rotate()
	}
	return nil
}

// cutSegment serves a Compact cut: every frame queued before it is written, so a new segment
// (the current one if it holds no record yet) starts the records the snapshot will not cover.
func (l *Log) cutSegment(c *Commit) error {
	if l.size > headerSize {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	c.seq = l.active
	return nil
}

// rotate closes the active segment and starts the next one.
func (l *Log) rotate() error {
	old := l.file
	next := l.active + 1
	if err := l.createSegment(next); err != nil {
		return err
	}
	l.mu.Lock()
	l.active = next
	l.committed = l.size
	l.mu.Unlock()
	return old.Close() // written and synced already
}

// step runs the test hook at a named step.
func (l *Log) step(name string) error {
	if l.hook == nil {
		return nil
	}
	return l.hook(name)
}
