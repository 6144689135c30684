package durable_test

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/medspa/medspa-go/mockserver/internal/durable"
)

// Appenders that wait together share one write and one fsync. The first commit is held at its
// fsync until every appender is waiting, so the count does not depend on scheduling; then they
// run free (under -race) and every record replays once, each appender's in its order.
func TestConcurrentAppendsShareFsyncs(t *testing.T) {
	t.Parallel()
	const appenders, each = 64, 40
	dir := t.TempDir()
	l := openLog(t, dir, durable.Options{})
	release := make(chan struct{})
	var once sync.Once
	durable.SetHook(l, func(step string) error {
		if step == "sync" {
			once.Do(func() { <-release })
		}
		return nil
	})
	var wg sync.WaitGroup
	start := func(round int) {
		for g := range appenders {
			wg.Go(func() {
				if err := l.Append(t.Context(), []byte(fmt.Sprintf("g%02d-%03d", g, round))); err != nil {
					t.Error(err)
				}
			})
		}
	}
	start(0)
	for l.Stats().Appends < appenders { // every appender has enqueued; the first commit is held
		waitABit()
	}
	close(release)
	wg.Wait()
	if st := l.Stats(); st.Syncs > 2 || st.Commits != st.Syncs {
		t.Errorf("%d appenders waiting together: %d commits, %d fsyncs; want at most 2 (the held one and all the rest)", appenders, st.Commits, st.Syncs)
	}

	for g := range appenders {
		wg.Go(func() {
			for round := 1; round < each; round++ {
				if err := l.Append(t.Context(), []byte(fmt.Sprintf("g%02d-%03d", g, round))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	st := l.Stats()
	if st.Appends != appenders*each || st.Syncs >= st.Appends {
		t.Errorf("Stats = %+v: want %d appends sharing fewer fsyncs", st, appenders*each)
	}
	t.Logf("%d appends, %d fsyncs", st.Appends, st.Syncs)
	checkPerAppenderOrder(t, reopenAll(t, l, dir, durable.Options{}), appenders, each)
}

// checkPerAppenderOrder checks that records "gNN-RRR" hold each of rounds 0..each-1 of each
// appender exactly once, in order.
func checkPerAppenderOrder(t *testing.T, got [][]byte, appenders, each int) {
	t.Helper()
	next := map[string]int{}
	for _, r := range got {
		var g, round int
		if _, err := fmt.Sscanf(string(r), "g%02d-%03d", &g, &round); err != nil {
			t.Fatalf("record %q: %v", r, err)
		}
		key := fmt.Sprint(g)
		if round != next[key] {
			t.Fatalf("appender %d: round %d after %d", g, round, next[key]-1)
		}
		next[key]++
	}
	if len(got) != appenders*each {
		t.Errorf("replayed %d records, want %d", len(got), appenders*each)
	}
}

// waitABit yields to the goroutines a test waits on.
func waitABit() { runtime.Gosched() }

// model is a test's state: a set of record ids. Applying a record adds its id, so a record
// replayed on a snapshot that already has it changes nothing, as Compact asks.
type model struct {
	mu  sync.Mutex
	ids map[string]bool
}

// add records id in the state first and then logs it, as a caller of Compact must: the state
// includes every record logged before a cut.
func (m *model) add(t *testing.T, l *durable.Log, id string) {
	m.mu.Lock()
	m.ids[id] = true
	m.mu.Unlock()
	if err := l.Append(t.Context(), []byte(id)); err != nil {
		t.Error(err)
	}
}

// writeSnapshot writes the state, one record per id.
func (m *model) writeSnapshot(w io.Writer) error {
	m.mu.Lock()
	ids := slices.Sorted(maps.Keys(m.ids))
	m.mu.Unlock()
	for _, id := range ids {
		if _, err := io.WriteString(w, id); err != nil {
			return err
		}
	}
	return nil
}

// replayIDs rebuilds the state from the log in dir.
func replayIDs(t *testing.T, dir string) []string {
	t.Helper()
	l := openLog(t, dir, durable.Options{})
	defer l.Close()
	ids := map[string]bool{}
	if err := l.Replay(func(rec []byte) error {
		ids[string(rec)] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return slices.Sorted(maps.Keys(ids))
}

// Compactions while appenders run: nothing appended is lost, the covered files go, and the
// state replays the same after a restart.
func TestCompactRacingAppends(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := durable.Options{SegmentSize: 2000}
	l := openLog(t, dir, opts)
	m := &model{ids: map[string]bool{}}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 150 {
				m.add(t, l, fmt.Sprintf("g%d-%03d", g, i))
			}
		})
	}
	compactions := 0
	for done := false; !done; {
		if err := l.Compact(m.writeSnapshot); err != nil {
			t.Fatal(err)
		}
		compactions++
		done = l.Stats().Appends == 8*150
	}
	wg.Wait()
	if err := l.Compact(m.writeSnapshot); err != nil {
		t.Fatal(err)
	}
	if snaps := files(t, dir, ".snap"); len(snaps) != 1 || l.Stats().Segments != 1 {
		t.Errorf("after compaction: snapshots %v, %d live segments; want 1 and 1", snaps, l.Stats().Segments)
	}
	m.add(t, l, "after")
	want := slices.Sorted(maps.Keys(m.ids))
	closeLog(t, l)
	if diff := cmp.Diff(want, replayIDs(t, dir)); diff != "" {
		t.Errorf("after %d compactions: (-want +got):\n%s", compactions, diff)
	}
}

// Reopening after a compaction replays the snapshot's records first, then the later ones.
func TestReopenAfterCompaction(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := openLog(t, dir, durable.Options{})
	appendAll(t, l, records(0, 5))
	err := l.Compact(func(w io.Writer) error {
		_, err := io.WriteString(w, "state of records 0-4")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, l, records(5, 7))
	want := []string{"state of records 0-4", string(record(5)), string(record(6))}
	if diff := cmp.Diff(want, asStrings(replayAll(t, l))); diff != "" {
		t.Errorf("before reopen (-want +got):\n%s", diff)
	}
	closeLog(t, l)
	l = openLog(t, dir, durable.Options{})
	if diff := cmp.Diff(want, asStrings(replayAll(t, l))); diff != "" {
		t.Errorf("after reopen (-want +got):\n%s", diff)
	}
	if r := l.Recovery(); r.SnapshotRecords != 1 || r.Records != 2 || !strings.HasSuffix(r.Snapshot, ".snap") {
		t.Errorf("Recovery = %+v, want a snapshot of 1 record and 2 records after it", r)
	}
	// A second compaction with nothing appended since replaces the snapshot in place.
	if err := l.Compact(func(w io.Writer) error {
		_, err := io.WriteString(w, "state of records 0-6")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := l.Compact(func(w io.Writer) error {
		_, err := io.WriteString(w, "state of records 0-6, again")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"state of records 0-6, again"}, asStrings(reopenAll(t, l, dir, durable.Options{}))); diff != "" {
		t.Errorf("after two compactions (-want +got):\n%s", diff)
	}
}

// A crash at each step of Compact (an image of the directory taken there) replays to the same
// state; so does a failure injected at each step, after which the log keeps working.
func TestCompactCrashAndFailureAtEachStep(t *testing.T) {
	t.Parallel()
	steps := []string{"cut", "mid-snapshot", "written", "renamed", "removed"}
	for _, failAt := range steps {
		t.Run(failAt, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			opts := durable.Options{SegmentSize: 200}
			l := openLog(t, dir, opts)
			m := &model{ids: map[string]bool{}}
			for i := range 20 { // several segments
				m.add(t, l, fmt.Sprintf("before-%02d", i))
			}
			if err := l.Compact(m.writeSnapshot); err != nil { // so there is an old snapshot
				t.Fatal(err)
			}
			for i := range 20 {
				m.add(t, l, fmt.Sprintf("middle-%02d", i))
			}
			want := slices.Sorted(maps.Keys(m.ids))
			var images []string // crash images, one per step reached
			injected := errors.New("injected at " + failAt)
			hook := func(step string) error {
				if step == "write" || step == "sync" {
					return nil
				}
				images = append(images, copyDir(t, dir))
				if step == failAt {
					return injected
				}
				return nil
			}
			durable.SetHook(l, hook)
			err := l.Compact(func(w io.Writer) error {
				if err := m.writeSnapshot(w); err != nil {
					return err
				}
				return hook("mid-snapshot") // the temporary snapshot is written but not synced
			})
			if !errors.Is(err, injected) {
				t.Fatalf("Compact = %v, want the injected failure", err)
			}
			if len(images) != slices.Index(steps, failAt)+1 {
				t.Fatalf("%d crash images, want one per step up to %s", len(images), failAt)
			}
			if len(files(t, dir, ".tmp")) != 0 {
				t.Errorf("a failed Compact left a temporary file")
			}
			for i, img := range images {
				if diff := cmp.Diff(want, replayIDs(t, img)); diff != "" {
					t.Errorf("crash image %d: (-want +got):\n%s", i, diff)
				}
			}
			// The log goes on after the failure, and a later Compact finishes the job.
			m.add(t, l, "after")
			want = slices.Sorted(maps.Keys(m.ids))
			durable.SetHook(l, nil)
			if err := l.Compact(m.writeSnapshot); err != nil {
				t.Fatal(err)
			}
			closeLog(t, l)
			if diff := cmp.Diff(want, replayIDs(t, dir)); diff != "" {
				t.Errorf("after the failure: (-want +got):\n%s", diff)
			}
		})
	}
}

// Open removes what an interrupted Compact leaves: a temporary snapshot, and the old snapshot
// and segments once the new snapshot is in place.
func TestOpenRemovesCompactionLeftovers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := openLog(t, dir, durable.Options{SegmentSize: 100})
	m := &model{ids: map[string]bool{}}
	for i := range 10 {
		m.add(t, l, fmt.Sprintf("r%02d", i))
	}
	if err := l.Compact(m.writeSnapshot); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		m.add(t, l, fmt.Sprintf("s%02d", i))
	}
	var image string
	durable.SetHook(l, func(step string) error {
		if step == "renamed" {
			image = copyDir(t, dir)
		}
		return nil
	})
	err := l.Compact(func(w io.Writer) error {
		if err := os.WriteFile(filepath.Join(dir, "0000000000000099.snap.tmp"), []byte("junk"), 0o600); err != nil {
			return err
		}
		return m.writeSnapshot(w)
	})
	if err != nil {
		t.Fatal(err)
	}
	closeLog(t, l)
	l = openLog(t, image, durable.Options{})
	r := l.Recovery()
	closeLog(t, l)
	var removed []string
	for _, name := range r.Removed {
		removed = append(removed, filepath.Ext(name))
	}
	slices.Sort(removed)
	if len(removed) < 3 || removed[0] != ".seg" || removed[len(removed)-2] != ".snap" || removed[len(removed)-1] != ".tmp" {
		t.Errorf("Removed = %v, want old segments, the old snapshot and the temporary file", r.Removed)
	}
	if got := len(files(t, image, ".snap")); got != 1 {
		t.Errorf("%d snapshots left, want 1", got)
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(m.ids)), replayIDs(t, image)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// An error from writeSnapshot aborts the compaction: nothing changes.
func TestCompactWriteSnapshotError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := openLog(t, dir, durable.Options{})
	appendAll(t, l, records(0, 3))
	boom := errors.New("boom")
	if err := l.Compact(func(w io.Writer) error {
		io.WriteString(w, "partial state")
		return boom
	}); !errors.Is(err, boom) {
		t.Errorf("Compact = %v, want boom", err)
	}
	if n := len(files(t, dir, ".snap")) + len(files(t, dir, ".tmp")); n != 0 {
		t.Errorf("%d snapshot files after a failed Compact, want 0", n)
	}
	if diff := cmp.Diff(asStrings(records(0, 3)), asStrings(reopenAll(t, l, dir, durable.Options{}))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
