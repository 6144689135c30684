package durable_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/medspa/medspa-go/mockserver/internal/durable"
)

// enqueueWithPositions appends recs in batches of 10, each enqueued at once and waited for
// together, and returns each record's position, by index in recs. The first batch is held back
// (the flusher waits at its first write) so that its records share group commits for sure.
func enqueueWithPositions(t *testing.T, l *durable.Log, recs [][]byte) []durable.Position {
	t.Helper()
	release := make(chan struct{})
	var once sync.Once
	durable.SetHook(l, func(step string) error {
		if step == "write" {
			once.Do(func() { <-release })
		}
		return nil
	})
	pos := make([]durable.Position, len(recs))
	for start := 0; start < len(recs); start += 10 {
		type queued struct {
			c   *durable.Commit
			idx int
		}
		var batch []queued
		for _, r := range recs[start:min(start+10, len(recs))] {
			c, idx := l.EnqueueRecord(r)
			batch = append(batch, queued{c, idx})
		}
		if start == 0 {
			close(release)
		}
		for i, q := range batch {
			if err := q.c.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
			pos[start+i] = q.c.Position(q.idx)
		}
	}
	return pos
}

// readFrom returns copies of the records ReadFrom hands back from pos, with their positions.
func readFrom(t *testing.T, l *durable.Log, pos durable.Position) ([][]byte, []durable.Position) {
	t.Helper()
	var recs [][]byte
	var at []durable.Position
	if err := l.ReadFrom(pos, func(rec []byte, p durable.Position) error {
		recs = append(recs, bytes.Clone(rec))
		at = append(at, p)
		return nil
	}); err != nil {
		t.Fatalf("ReadFrom(%+v): %v", pos, err)
	}
	return recs, at
}

func TestReadFromPositions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := durable.Options{Sync: durable.SyncNone, SegmentSize: 4 << 10} // several segments
	l := openLog(t, dir, opts)
	recs := records(0, 300)
	pos := enqueueWithPositions(t, l, recs)
	if s := l.Stats(); s.Segments < 3 || pos[9].Index == 0 {
		t.Fatalf("want several segments and shared group commits: %+v, %+v", s, pos[:10])
	}
	all, allPos := readFrom(t, l, durable.Position{})
	if diff := cmp.Diff(asStrings(recs), asStrings(all)); diff != "" {
		t.Fatalf("ReadFrom(zero) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(pos, allPos); diff != "" {
		t.Fatalf("positions handed back differ from those of the commits (-commit +read):\n%s", diff)
	}
	for _, k := range []int{0, 1, 57, 150, 299} {
		got, _ := readFrom(t, l, pos[k])
		if diff := cmp.Diff(asStrings(recs[k:]), asStrings(got)); diff != "" {
			t.Fatalf("ReadFrom(record %d) (-want +got):\n%s", k, diff)
		}
	}
	// Positions stay valid across a reopen.
	closeLog(t, l)
	l = openLog(t, dir, opts)
	got, _ := readFrom(t, l, pos[200])
	if diff := cmp.Diff(asStrings(recs[200:]), asStrings(got)); diff != "" {
		t.Fatalf("after reopen (-want +got):\n%s", diff)
	}
	// A callback error stops the read and comes back as is.
	stop := errors.New("stop")
	n := 0
	if err := l.ReadFrom(pos[10], func([]byte, durable.Position) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Fatalf("callback error: %v after %d records", err, n)
	}
}

// TestReadFromSkipsWhatIsBefore proves a positioned read does not read the log before its
// position: damage in the frames before it (which Replay would report) goes unnoticed.
func TestReadFromSkipsWhatIsBefore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := durable.Options{Sync: durable.SyncNone}
	l := openLog(t, dir, opts)
	var pos []durable.Position
	for i := range 20 {
		c, idx := l.EnqueueRecord(record(i))
		if err := c.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		pos = append(pos, c.Position(idx))
	}
	// Damage the first record's bytes in place.
	seg := filepath.Join(dir, "0000000000000001.seg")
	b, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	b[pos[0].Offset+12] ^= 0xff
	if err := os.WriteFile(seg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := l.Replay(func([]byte) error { return nil }); !errors.As(err, new(*durable.CorruptError)) {
		t.Fatalf("Replay over the damage: %v, want a CorruptError", err)
	}
	got, _ := readFrom(t, l, pos[10])
	if diff := cmp.Diff(asStrings(records(10, 20)), asStrings(got)); diff != "" {
		t.Fatalf("ReadFrom past the damage (-want +got):\n%s", diff)
	}
}

func TestReadFromCompacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := openLog(t, dir, durable.Options{Sync: durable.SyncNone})
	pos := enqueueWithPositions(t, l, records(0, 5))
	if err := l.Compact(func(w io.Writer) error { _, err := w.Write([]byte("state")); return err }); err != nil {
		t.Fatal(err)
	}
	if err := l.ReadFrom(pos[2], func([]byte, durable.Position) error { return nil }); !errors.Is(err, durable.ErrCompacted) {
		t.Fatalf("ReadFrom a compacted position: %v, want ErrCompacted", err)
	}
	// The zero position reads what follows the snapshot (here nothing); Replay still has it all.
	if got, _ := readFrom(t, l, durable.Position{}); len(got) != 0 {
		t.Fatalf("ReadFrom(zero) after Compact: %q", got)
	}
	appendAll(t, l, records(5, 7))
	if got, _ := readFrom(t, l, durable.Position{}); len(got) != 2 {
		t.Fatalf("ReadFrom(zero) after Compact and 2 appends: %q", got)
	}
}
