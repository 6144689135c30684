package durable_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/medspa/medspa-go/mockserver/internal/durable"
)

// openLog opens dir and closes the log when the test ends (a second Close is harmless here).
func openLog(t testing.TB, dir string, opts durable.Options) *durable.Log {
	t.Helper()
	l, err := durable.Open(dir, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func closeLog(t testing.TB, l *durable.Log) {
	t.Helper()
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// replayAll returns copies of every record Replay hands back.
func replayAll(t testing.TB, l *durable.Log) [][]byte {
	t.Helper()
	out := [][]byte{}
	if err := l.Replay(func(rec []byte) error {
		out = append(out, bytes.Clone(rec))
		return nil
	}); err != nil {
		t.Fatalf("Replay: %v", err)
	}
	return out
}

// reopenAll closes l, opens dir again and returns every record it replays.
func reopenAll(t testing.TB, l *durable.Log, dir string, opts durable.Options) [][]byte {
	t.Helper()
	closeLog(t, l)
	l2 := openLog(t, dir, opts)
	defer closeLog(t, l2)
	return replayAll(t, l2)
}

// record i: distinct, of a length that varies with i.
func record(i int) []byte {
	return []byte(fmt.Sprintf("record-%05d-%s", i, strings.Repeat("x", i%97)))
}

func records(from, to int) [][]byte {
	var out [][]byte
	for i := from; i < to; i++ {
		out = append(out, record(i))
	}
	return out
}

func appendAll(t testing.TB, l *durable.Log, recs [][]byte) {
	t.Helper()
	for _, r := range recs {
		if err := l.Append(context.Background(), r); err != nil {
			t.Fatalf("Append: %v", err)
		}
	}
}

// asStrings makes cmp diffs readable.
func asStrings(recs [][]byte) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = string(r)
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("0123456789abcdef"), 3<<20/16) // over one group commit
	tests := []struct {
		name    string
		opts    durable.Options
		batches [][][]byte // each AppendBatch; a batch of one goes through Append
		minSegs int
	}{
		{name: "empty log"},
		{name: "one record", batches: [][][]byte{{[]byte("hello")}}},
		{name: "empty, nil and binary records", batches: [][][]byte{
			{nil}, {[]byte{}}, {[]byte{0, 0, 0, 0, 0, 0, 0, 0}}, {[]byte{0xff, 0xfe, 0x80, 0x01}},
			{[]byte("MSDL\x01S\x00\x00")}, // looks like a header
		}},
		{name: "records spread over many segments", opts: durable.Options{SegmentSize: 300},
			batches: wrap(records(0, 200)), minSegs: 10},
		{name: "a record larger than a group commit", batches: [][][]byte{{[]byte("a")}, {big}, {[]byte("b")}}},
		{name: "batches", batches: [][][]byte{records(0, 3), {}, records(3, 4), records(4, 50)}},
		{name: "without fsync", opts: durable.Options{Sync: durable.SyncNone, SegmentSize: 1000},
			batches: append(wrap(records(0, 50)), records(50, 90)), minSegs: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			l := openLog(t, dir, tt.opts)
			want := [][]byte{}
			for _, b := range tt.batches {
				var err error
				if len(b) == 1 {
					err = l.Append(t.Context(), b[0])
				} else {
					err = l.AppendBatch(t.Context(), b)
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range b {
					want = append(want, append([]byte{}, r...))
				}
			}
			if diff := cmp.Diff(asStrings(want), asStrings(replayAll(t, l))); diff != "" {
				t.Errorf("replay before close (-want +got):\n%s", diff)
			}
			if st := l.Stats(); st.Segments < tt.minSegs || st.Records != uint64(len(want)) {
				t.Errorf("Stats = %+v, want ≥ %d segments and %d records", st, tt.minSegs, len(want))
			}
			closeLog(t, l)
			l = openLog(t, dir, tt.opts)
			if diff := cmp.Diff(asStrings(want), asStrings(replayAll(t, l))); diff != "" {
				t.Errorf("replay after reopen (-want +got):\n%s", diff)
			}
			if r := l.Recovery(); r.Records != len(want) || r.TruncatedFile != "" || len(r.Removed) != 0 || r.Snapshot != "" {
				t.Errorf("Recovery = %+v, want %d records and nothing repaired", r, len(want))
			}
		})
	}
}

func wrap(recs [][]byte) [][][]byte {
	var out [][][]byte
	for _, r := range recs {
		out = append(out, [][]byte{r})
	}
	return out
}

func TestReopenAppendsAfterExistingRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := durable.Options{SegmentSize: 500}
	l := openLog(t, dir, opts)
	appendAll(t, l, records(0, 20))
	closeLog(t, l)
	l = openLog(t, dir, opts)
	appendAll(t, l, records(20, 40))
	got := reopenAll(t, l, dir, opts)
	if diff := cmp.Diff(asStrings(records(0, 40)), asStrings(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Enqueue order is log order, even when nobody waits between calls.
func TestEnqueueKeepsCallOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := openLog(t, dir, durable.Options{})
	var commits []*durable.Commit
	for i := range 300 {
		commits = append(commits, l.Enqueue(record(i)))
	}
	for _, c := range commits {
		if err := c.Wait(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(asStrings(records(0, 300)), asStrings(reopenAll(t, l, dir, durable.Options{}))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Close writes everything enqueued before it, and only then returns.
func TestCloseWritesQueuedAppends(t *testing.T) {
	t.Parallel()
	for _, policy := range []durable.SyncPolicy{durable.SyncAlways, durable.SyncNone} {
		dir := t.TempDir()
		l := openLog(t, dir, durable.Options{Sync: policy})
		var commits []*durable.Commit
		for i := range 200 {
			commits = append(commits, l.Enqueue(record(i)))
		}
		closeLog(t, l)
		for i, c := range commits {
			select {
			case <-c.Done():
			default:
				t.Fatalf("sync policy %d: append %d not done when Close returned", policy, i)
			}
			if err := c.Wait(t.Context()); err != nil {
				t.Fatalf("sync policy %d: append %d: %v", policy, i, err)
			}
		}
		l = openLog(t, dir, durable.Options{Sync: policy})
		if diff := cmp.Diff(asStrings(records(0, 200)), asStrings(replayAll(t, l))); diff != "" {
			t.Errorf("sync policy %d: (-want +got):\n%s", policy, diff)
		}
	}
}

func TestClosedLog(t *testing.T) {
	t.Parallel()
	l := openLog(t, t.TempDir(), durable.Options{})
	appendAll(t, l, records(0, 3))
	closeLog(t, l)
	checks := map[string]error{
		"Append":      l.Append(t.Context(), []byte("x")),
		"AppendBatch": l.AppendBatch(t.Context(), records(0, 2)),
		"Enqueue":     l.Enqueue([]byte("x")).Wait(t.Context()),
		"Replay":      l.Replay(func([]byte) error { return nil }),
		"Compact":     l.Compact(func(io.Writer) error { return nil }),
		"Close":       l.Close(),
	}
	for op, err := range checks {
		if !errors.Is(err, durable.ErrClosed) {
			t.Errorf("%s after Close = %v, want ErrClosed", op, err)
		}
	}
}

func TestAppendWithDoneContextAppendsNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := openLog(t, dir, durable.Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := l.Append(ctx, []byte("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("Append = %v, want context.Canceled", err)
	}
	if err := l.AppendBatch(ctx, records(0, 2)); !errors.Is(err, context.Canceled) {
		t.Errorf("AppendBatch = %v, want context.Canceled", err)
	}
	if got := reopenAll(t, l, dir, durable.Options{}); len(got) != 0 {
		t.Errorf("replayed %q, want nothing", got)
	}
}

func TestTooLargeRecordsAreRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := openLog(t, dir, durable.Options{})
	huge := make([]byte, durable.MaxRecordSize)
	if err := l.Append(t.Context(), huge); !errors.Is(err, durable.ErrTooLarge) {
		t.Errorf("Append(MaxRecordSize bytes, with its length prefix) = %v, want ErrTooLarge", err)
	}
	if err := l.AppendBatch(t.Context(), [][]byte{huge[:durable.MaxRecordSize/2], huge[:durable.MaxRecordSize/2]}); !errors.Is(err, durable.ErrTooLarge) {
		t.Errorf("AppendBatch over MaxRecordSize = %v, want ErrTooLarge", err)
	}
	err := l.Compact(func(w io.Writer) error {
		_, err := w.Write(huge)
		return err
	})
	if !errors.Is(err, durable.ErrTooLarge) {
		t.Errorf("snapshot record over MaxRecordSize: Compact = %v, want ErrTooLarge", err)
	}
	appendAll(t, l, records(0, 1)) // the log still works
	if got := reopenAll(t, l, dir, durable.Options{}); len(got) != 1 {
		t.Errorf("replayed %d records, want 1", len(got))
	}
}

// An error from fn stops Replay and comes back as is.
func TestReplayStopsAtCallbackError(t *testing.T) {
	t.Parallel()
	l := openLog(t, t.TempDir(), durable.Options{})
	appendAll(t, l, records(0, 10))
	stop := errors.New("stop")
	n := 0
	err := l.Replay(func([]byte) error {
		if n++; n == 4 {
			return stop
		}
		return nil
	})
	if err != stop || n != 4 {
		t.Errorf("Replay = %v after %d records, want stop after 4", err, n)
	}
}

// A failed fsync stops the log: the failing append and every later one get the error; records
// acknowledged before it replay after a restart.
func TestFailedSyncStopsTheLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := openLog(t, dir, durable.Options{})
	injected := errors.New("injected fsync failure")
	syncs := 0
	durable.SetHook(l, func(step string) error {
		if step == "sync" {
			if syncs++; syncs == 3 {
				return injected
			}
		}
		return nil
	})
	appendAll(t, l, records(0, 2))
	if err := l.Append(t.Context(), record(2)); !errors.Is(err, injected) {
		t.Fatalf("third Append = %v, want the injected failure", err)
	}
	if err := l.Append(t.Context(), record(3)); !errors.Is(err, injected) {
		t.Errorf("Append after the failure = %v, want the same failure", err)
	}
	if err := l.Compact(func(io.Writer) error { return nil }); !errors.Is(err, injected) {
		t.Errorf("Compact after the failure = %v, want the same failure", err)
	}
	if err := l.Close(); !errors.Is(err, injected) {
		t.Errorf("Close = %v, want the failure that stopped the log", err)
	}
	l = openLog(t, dir, durable.Options{})
	got := replayAll(t, l)
	// The record whose fsync failed was written, so it may replay: it was never acknowledged.
	if len(got) < 2 || len(got) > 3 || !slices.EqualFunc(got, records(0, len(got)), bytes.Equal) {
		t.Errorf("replayed %q, want records 0, 1 and maybe 2", got)
	}
}

func TestLockRefusesSecondOpener(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := openLog(t, dir, durable.Options{})
	if _, err := durable.Open(dir, durable.Options{}); !errors.Is(err, durable.ErrLocked) || !strings.Contains(err.Error(), dir) {
		t.Errorf("second Open = %v, want ErrLocked naming %s", err, dir)
	}
	closeLog(t, l)
	l = openLog(t, dir, durable.Options{})
	closeLog(t, l)
}

// The lock holds across processes, and a killed holder (kill -9) does not block the next Open.
func TestLockAcrossProcesses(t *testing.T) {
	if dir := os.Getenv("DURABLE_LOCK_HELPER"); dir != "" {
		lockHelper(dir)
		return
	}
	t.Parallel()
	dir := t.TempDir()
	l := openLog(t, dir, durable.Options{})
	if out := runHelper(t, dir); out != "locked" {
		t.Errorf("another process opening a held log: %q, want locked", out)
	}
	closeLog(t, l)

	// A helper that keeps the log open until it is killed.
	cmd := helperCmd(t, dir, "hold")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, len("opened\n"))
	if _, err := io.ReadFull(stdout, line); err != nil || string(line) != "opened\n" {
		t.Fatalf("holder said %q, %v", line, err)
	}
	if _, err := durable.Open(dir, durable.Options{}); !errors.Is(err, durable.ErrLocked) {
		t.Errorf("Open while another process holds the log = %v, want ErrLocked", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	l = openLog(t, dir, durable.Options{})
	closeLog(t, l)
}

func TestMissingSegmentIsCorruption(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := openLog(t, dir, durable.Options{SegmentSize: 200})
	appendAll(t, l, records(0, 40))
	closeLog(t, l)
	segs := files(t, dir, ".seg")
	if len(segs) < 3 {
		t.Fatalf("%d segments, want ≥ 3", len(segs))
	}
	if err := os.Remove(segs[1]); err != nil {
		t.Fatal(err)
	}
	_, err := durable.Open(dir, durable.Options{})
	var ce *durable.CorruptError
	if !errors.As(err, &ce) || ce.File != segs[1] || !strings.Contains(ce.Reason, "missing") {
		t.Errorf("Open = %v, want a CorruptError naming %s as missing", err, segs[1])
	}
}

// Files the log does not name are left alone.
func TestUnknownFilesAreLeftAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	others := []string{"notes.txt", "README.seg", "00000000000000zz.seg", "0000000000000001.seg.bak"}
	for _, name := range others {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("not ours"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	l := openLog(t, dir, durable.Options{})
	appendAll(t, l, records(0, 3))
	if got := reopenAll(t, l, dir, durable.Options{}); len(got) != 3 {
		t.Errorf("replayed %d records, want 3", len(got))
	}
	for _, name := range others {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// files returns the paths in dir with that suffix, sorted.
func files(t testing.TB, dir, suffix string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*"+suffix))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(m)
	return m
}

// Replay's allocations do not grow with the number of records: it streams. (Not parallel:
// AllocsPerRun counts every allocation of the process.)
func TestReplayMemoryDoesNotGrowWithTheLog(t *testing.T) {
	allocs := func(n int) float64 {
		l := openLog(t, t.TempDir(), durable.Options{Sync: durable.SyncNone})
		rec := bytes.Repeat([]byte("r"), 100)
		var batch [][]byte
		for range n {
			batch = append(batch, rec)
		}
		for b := range slices.Chunk(batch, 100) {
			if err := l.AppendBatch(t.Context(), b); err != nil {
				t.Fatal(err)
			}
		}
		return testing.AllocsPerRun(3, func() {
			if err := l.Replay(func([]byte) error { return nil }); err != nil {
				t.Fatal(err)
			}
		})
	}
	// 100,000 records are 1,000 frames: one allocation per frame or per record would show.
	// The slack is for the race detector, which adds one of its own.
	small, large := allocs(100), allocs(100_000)
	if large > small+3 {
		t.Errorf("Replay allocates %v times for 100,000 records and %v for 100: it should stream", large, small)
	}
}

// helperCmd runs this test binary as the other process of TestLockAcrossProcesses.
func helperCmd(t *testing.T, dir, mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockAcrossProcesses$", "-test.count=1")
	cmd.Env = append(os.Environ(), "DURABLE_LOCK_HELPER="+dir, "DURABLE_LOCK_HELPER_MODE="+mode)
	cmd.Stderr = os.Stderr
	if mode == "hold" {
		r, w, err := os.Pipe() // never written: the helper waits on it until killed (or we exit)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close(); r.Close() })
		cmd.Stdin = r
	}
	return cmd
}

// runHelper runs a helper that tries to open dir and says what happened.
func runHelper(t *testing.T, dir string) string {
	out, err := helperCmd(t, dir, "try").Output()
	if err != nil {
		t.Fatalf("helper: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// lockHelper is the helper process: it opens dir and prints "locked" or "opened"; in mode hold it
// then keeps the log open until its stdin closes.
func lockHelper(dir string) {
	l, err := durable.Open(dir, durable.Options{})
	switch {
	case errors.Is(err, durable.ErrLocked):
		fmt.Println("locked")
		os.Exit(0)
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("opened")
	if os.Getenv("DURABLE_LOCK_HELPER_MODE") == "hold" {
		io.Copy(io.Discard, os.Stdin)
	}
	l.Close()
	os.Exit(0)
}
