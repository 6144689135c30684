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

// CorruptError reports damage that a crash cannot explain: a bad file header, a damaged record
// with intact records after it, a sealed segment or snapshot cut short, a missing segment.
// Open and Replay return it; nothing is repaired, so the files can be inspected.
type CorruptError struct {
	File   string // path of the damaged file
	Offset int64  // where in it the damage starts
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("durable: %s: corrupt at offset %d: %s", e.File, e.Offset, e.Reason)
}

// fileReader reads whole log files with one buffer, so replay memory is one frame however long
// the log is.
type fileReader struct {
	br  *bufio.Reader
	buf []byte
}

// read reads the file of kind and seq in dir from the frame at offset from (0: the first) up to
// end (-1: all of it), calling fn for each record in order with its frame's offset and its index
// in the frame. It returns the offset just past the last intact frame and the record count,
// and an error: *CorruptError for a bad header or a damaged snapshot; *frameError for a frame
// that is cut short or damaged (the caller decides whether that is a torn tail); fn's error as
// is; or an I/O error.
func (r *fileReader) read(dir string, kind byte, seq uint64, from, end int64, fn func(rec []byte, at int64, i int) error) (good int64, records int, err error) {
	name := segmentName(seq)
	if kind == kindSnapshot {
		name = snapshotName(seq)
	}
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	if end < 0 {
		fi, err := f.Stat()
		if err != nil {
			return 0, 0, err
		}
		end = fi.Size()
	}
	if end < headerSize {
		return 0, 0, &CorruptError{path, 0, "file shorter than its header"}
	}
	if r.br == nil {
		r.br = bufio.NewReaderSize(f, 64<<10)
	} else {
		r.br.Reset(f)
	}
	var h [headerSize]byte
	if _, err := io.ReadFull(r.br, h[:]); err != nil {
		return 0, 0, unexpected(err)
	}
	if why := checkHeader(h[:], kind, seq); why != "" {
		return 0, 0, &CorruptError{path, 0, why}
	}
	start := int64(headerSize)
	if from > start {
		// A positioned read (ReadFrom): the frames before from are not read at all.
		if from > end {
			return 0, 0, &CorruptError{path, from, "position past the end of the segment"}
		}
		if _, err := f.Seek(from, io.SeekStart); err != nil {
			return 0, 0, err
		}
		r.br.Reset(f)
		start = from
	}
	fr := frameReader{r: r.br, off: start, end: end, buf: r.buf}
	defer func() { r.buf = fr.buf }()
	for {
		at := fr.off
		body, err := fr.next()
		if errors.Is(err, io.EOF) {
			if kind == kindSnapshot {
				return at, records, &CorruptError{path, at, "snapshot has no end frame"}
			}
			return at, records, nil
		}
		if err != nil {
			return at, records, err
		}
		switch {
		case body[0] == bodyRecords:
			i := 0
			n, err := eachRecord(body, func(rec []byte) error {
				err := fn(rec, at, i)
				i++
				return err
			})
			records += n
			if errors.Is(err, errMalformed) {
				return at, records, &CorruptError{path, at, err.Error()}
			}
			if err != nil {
				return at, records, err
			}
		case body[0] == bodySnapshotEnd && kind == kindSnapshot:
			count, k := binary.Uvarint(body[1:])
			if k != len(body)-1 || count != uint64(records) {
				return at, records, &CorruptError{path, at, "snapshot end frame does not match its records"}
			}
			if fr.off != end {
				return at, records, &CorruptError{path, fr.off, "data after the snapshot's end frame"}
			}
			return fr.off, records, nil
		default:
			return at, records, &CorruptError{path, at, fmt.Sprintf("unknown frame kind %d", body[0])}
		}
	}
}

// corrupt turns a *frameError in the file at path into a *CorruptError; other errors pass.
func corrupt(path string, err error) error {
	var fe *frameError
	if errors.As(err, &fe) {
		return &CorruptError{path, fe.off, fe.reason}
	}
	return err
}

// Replay calls fn for every record in log order: the snapshot's records first, then every record
// appended after it. rec is valid only during the call (Replay reuses its buffer: copy what you
// keep), so Replay holds one frame in memory, whatever the size of the log. Records appended
// while Replay runs may or may not be included; fn may append, but not call Compact or Replay.
// An error from fn stops Replay and is returned as is; damage found on the way is a
// *CorruptError.
func (l *Log) Replay(fn func(rec []byte) error) error {
	return l.replay(Position{}, true, func(rec []byte, _ Position) error { return fn(rec) })
}

// Position locates a record appended to a log: its segment, the offset of the frame (group
// commit) that holds it, and its index among that frame's records. Commit.Position gives it once
// the record is on disk; ReadFrom starts there. The zero Position is the start of the log.
type Position struct {
	Segment uint64
	Offset  int64
	Index   int
}

// ErrCompacted is returned by ReadFrom for a position in a segment a Compact has removed.
var ErrCompacted = errors.New("position no longer in the log (compacted)")

// ReadFrom calls fn, as Replay does, for the record at pos and every record after it, with each
// record's position; it reads nothing before pos (the frames before it are skipped by seeking),
// so a page read from a position costs that page, whatever the size of the log. The zero
// Position starts at the first record after the snapshot (a snapshot's records have no
// position). A position whose segment a Compact removed is ErrCompacted; one that names no
// record of the log is a *CorruptError or reads nothing.
func (l *Log) ReadFrom(pos Position, fn func(rec []byte, pos Position) error) error {
	return l.replay(pos, false, fn)
}

// replay reads the snapshot (withSnapshot, from the zero position only), then the segments from
// pos on.
func (l *Log) replay(pos Position, withSnapshot bool, fn func(rec []byte, pos Position) error) error {
	l.compactMu.Lock()
	defer l.compactMu.Unlock()
	l.mu.Lock()
	closed, snapshot, first, active, committed := l.closed, l.snapshot, l.first, l.active, l.committed
	l.mu.Unlock()
	if closed {
		return fmt.Errorf("durable: replay: %w", ErrClosed)
	}
	if pos.Segment != 0 && pos.Segment < first {
		return fmt.Errorf("durable: read from segment %d: %w", pos.Segment, ErrCompacted)
	}
	var fnErr error
	var seg uint64
	call := func(rec []byte, at int64, i int) error {
		if seg == pos.Segment && at == pos.Offset && i < pos.Index {
			return nil // before pos in its frame
		}
		fnErr = fn(rec, Position{Segment: seg, Offset: at, Index: i})
		return fnErr
	}
	var r fileReader
	read := func(kind byte, seq uint64, name string, from, end int64) error {
		seg = seq
		_, _, err := r.read(l.dir, kind, seq, from, end, call)
		if err == nil || fnErr != nil {
			return fnErr
		}
		path := filepath.Join(l.dir, name)
		if err = corrupt(path, err); errors.As(err, new(*CorruptError)) {
			return err
		}
		return fmt.Errorf("durable: replay %s: %w", path, err)
	}
	if withSnapshot && snapshot != 0 && pos == (Position{}) {
		if err := read(kindSnapshot, snapshot, snapshotName(snapshot), 0, -1); err != nil {
			return err
		}
	}
	for s := max(first, pos.Segment); s <= active; s++ {
		end := int64(-1)
		if s == active {
			end = committed
		}
		from := int64(0)
		if s == pos.Segment {
			from = pos.Offset
		}
		if err := read(kindSegment, s, segmentName(s), from, end); err != nil {
			return err
		}
	}
	return nil
}
