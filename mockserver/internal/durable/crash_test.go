package durable_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/medspa/medspa-go/mockserver/internal/durable"
)

// The file format these tests rely on: a 16-byte header, then frames of a 4-byte little-endian
// body length, a 4-byte CRC and the body.
const headerSize, frameHeaderSize = 16, 8

// frameStarts returns the offset of every frame of a log file, then its size.
func frameStarts(t testing.TB, path string) []int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for p := int64(headerSize); p < int64(len(b)); p += frameHeaderSize + int64(binary.LittleEndian.Uint32(b[p:])) {
		out = append(out, p)
	}
	return append(out, int64(len(b)))
}

// copyDir copies a log directory, without its LOCK file: a crash image of it.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "LOCK" {
			continue // opening it would drop the holder's lock (lock_unix.go)
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// A crash in the middle of the last write leaves any prefix of its frame: Open cuts it off and
// reports it, and the log replays exactly what came before and takes appends again. The last
// write here is a batch of three records: they go together.
func TestTornTailAtEveryOffset(t *testing.T) {
	t.Parallel()
	opts := durable.Options{Sync: durable.SyncNone} // recovery is the same; the loop is faster
	dir := t.TempDir()
	l := openLog(t, dir, opts)
	appendAll(t, l, records(0, 4))
	if err := l.AppendBatch(t.Context(), records(4, 7)); err != nil {
		t.Fatal(err)
	}
	closeLog(t, l)
	seg := files(t, dir, ".seg")[0]
	starts := frameStarts(t, seg)
	last, end := starts[len(starts)-2], starts[len(starts)-1]
	for cut := last; cut < end; cut++ {
		crashed := copyDir(t, dir)
		path := filepath.Join(crashed, filepath.Base(seg))
		if err := os.Truncate(path, cut); err != nil {
			t.Fatal(err)
		}
		l := openLog(t, crashed, opts)
		r := l.Recovery()
		want := durable.Recovery{Segments: 1, Records: 4}
		if cut > last {
			want.TruncatedFile, want.TruncatedAt, want.TruncatedBytes = path, last, cut-last
		}
		if diff := cmp.Diff(want, r); diff != "" {
			t.Fatalf("cut at %d: Recovery (-want +got):\n%s", cut, diff)
		}
		appendAll(t, l, records(7, 8))
		got := reopenAll(t, l, crashed, opts)
		if diff := cmp.Diff(asStrings(append(records(0, 4), record(7))), asStrings(got)); diff != "" {
			t.Fatalf("cut at %d: replay (-want +got):\n%s", cut, diff)
		}
	}
}

// A crash while a segment was being created leaves it shorter than its header.
func TestSegmentCutInsideItsHeader(t *testing.T) {
	t.Parallel()
	for cut := range int64(headerSize) {
		dir := t.TempDir()
		l := openLog(t, dir, durable.Options{SegmentSize: 1})
		appendAll(t, l, records(0, 3)) // rotates after each record: the last segment is empty
		closeLog(t, l)
		segs := files(t, dir, ".seg")
		if err := os.Truncate(segs[len(segs)-1], cut); err != nil {
			t.Fatal(err)
		}
		l = openLog(t, dir, durable.Options{SegmentSize: 1})
		if r := l.Recovery(); r.TruncatedBytes != cut {
			t.Errorf("cut at %d: Recovery = %+v, want %d bytes truncated", cut, r, cut)
		}
		appendAll(t, l, records(3, 4))
		if got := reopenAll(t, l, dir, durable.Options{}); !cmp.Equal(asStrings(got), asStrings(records(0, 4))) {
			t.Errorf("cut at %d: replayed %q", cut, got)
		}
	}
}

// Flipping any byte of any file: in the last frame of the last segment it is a torn write (cut
// off); anywhere else it is damage, reported with the file and the offset of the frame (0 for a
// header), and the files are left as they are.
func TestFlippedBytes(t *testing.T) {
	t.Parallel()
	opts := durable.Options{Sync: durable.SyncNone, SegmentSize: 120}
	dir := t.TempDir()
	l := openLog(t, dir, opts)
	appendAll(t, l, records(0, 6))
	if err := l.Compact(func(w io.Writer) error {
		for _, r := range records(0, 6) {
			if _, err := w.Write(r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	appendAll(t, l, records(6, 12))
	closeLog(t, l)
	all := asStrings(records(0, 12))
	names := append(files(t, dir, ".snap"), files(t, dir, ".seg")...)
	if len(names) < 3 || len(frameStarts(t, names[len(names)-1])) < 3 {
		t.Fatalf("files %v: want a snapshot and ≥ 2 segments, the last with ≥ 2 frames", names)
	}
	for i, name := range names {
		lastSegment := i == len(names)-1
		starts := frameStarts(t, name)
		for off := int64(0); off < starts[len(starts)-1]; off++ {
			crashed := copyDir(t, dir)
			path := filepath.Join(crashed, filepath.Base(name))
			flip(t, path, off)
			frame := int64(0) // the damaged frame's offset; 0 for the header
			for _, s := range starts[:len(starts)-1] {
				if off >= s {
					frame = s
				}
			}
			l, err := durable.Open(crashed, opts)
			if lastSegment && frame == starts[len(starts)-2] && off >= headerSize {
				if err != nil {
					t.Fatalf("%s: byte %d flipped in the last frame: Open = %v, want the tail cut off", filepath.Base(name), off, err)
				}
				got := replayAll(t, l)
				l.Close()
				if diff := cmp.Diff(all[:len(all)-1], asStrings(got)); diff != "" {
					t.Fatalf("%s: byte %d flipped: replay (-want +got):\n%s", filepath.Base(name), off, diff)
				}
				continue
			}
			var ce *durable.CorruptError
			if !errors.As(err, &ce) || ce.File != path || ce.Offset != frame {
				if err == nil {
					l.Close()
				}
				t.Fatalf("%s: byte %d flipped: Open = %v, want a CorruptError at %s offset %d", filepath.Base(name), off, err, path, frame)
			}
			flip(t, path, off)
			if b, _ := os.ReadFile(path); !bytes.Equal(b, mustRead(t, name)) {
				t.Fatalf("%s: byte %d flipped: Open changed the damaged file", filepath.Base(name), off)
			}
		}
	}
}

func flip(t testing.TB, path string, off int64) {
	t.Helper()
	b := mustRead(t, path)
	b[off] ^= 0x5a
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A sealed segment cut short is damage (it was synced before the next one was started), and so
// is garbage after the last frame of the last segment that holds an intact frame.
func TestDamageBeforeTheTail(t *testing.T) {
	t.Parallel()
	opts := durable.Options{Sync: durable.SyncNone, SegmentSize: 150}
	dir := t.TempDir()
	l := openLog(t, dir, opts)
	appendAll(t, l, records(0, 8))
	closeLog(t, l)
	segs := files(t, dir, ".seg")
	if len(segs) < 2 || len(frameStarts(t, segs[len(segs)-1])) < 3 {
		t.Fatalf("segments %v: want ≥ 2, the last with ≥ 2 frames", segs)
	}

	crashed := copyDir(t, dir)
	first := filepath.Join(crashed, filepath.Base(segs[0]))
	starts := frameStarts(t, first)
	if err := os.Truncate(first, starts[len(starts)-1]-3); err != nil {
		t.Fatal(err)
	}
	_, err := durable.Open(crashed, opts)
	var ce *durable.CorruptError
	if !errors.As(err, &ce) || ce.File != first || ce.Offset != starts[len(starts)-2] || !strings.Contains(ce.Reason, "partial") {
		t.Errorf("sealed segment cut short: Open = %v, want a CorruptError at %s offset %d", err, first, starts[len(starts)-2])
	}

	crashed = copyDir(t, dir)
	lastSeg := filepath.Join(crashed, filepath.Base(segs[len(segs)-1]))
	b := mustRead(t, lastSeg)
	starts = frameStarts(t, lastSeg)
	// An intact frame after a damaged one: the damaged one was synced data.
	b = append(b, b[starts[0]:starts[1]]...)
	b[starts[len(starts)-2]+frameHeaderSize] ^= 1
	if err := os.WriteFile(lastSeg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = durable.Open(crashed, opts)
	if !errors.As(err, &ce) || ce.File != lastSeg || ce.Offset != starts[len(starts)-2] {
		t.Errorf("intact frame after a damaged one: Open = %v, want a CorruptError at offset %d", err, starts[len(starts)-2])
	}
}
