package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/durable"
)

// event i of a test chain: an id of the server's form, numbered.
func testEvent(i int) Event {
	return Event{ID: fmt.Sprintf("aud_%032x", i+1), At: time.Unix(int64(1_700_000_000+i), 0).UTC(), Actor: "key_1",
		Action: "read", ResourceType: "patient", ResourceID: fmt.Sprintf("pat_%032x", i), RequestID: fmt.Sprintf("req_%032x", i),
		IP: "127.0.0.1", Outcome: Success}
}

// fileLog opens a log with opts over the data file in dir (made on first use); done closes both,
// and runs at the test's end.
func fileLog(t *testing.T, dir string, opts Options) (l *Log, db *durable.DB, done func()) {
	t.Helper()
	db, err := durable.OpenDB(filepath.Join(dir, durable.FileName), durable.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	opts.DB = db
	if l, err = Open(opts); err != nil {
		db.Close()
		t.Fatal(err)
	}
	done = func() { l.Close(); db.Close() }
	t.Cleanup(done)
	return l, db, done
}

func fill(t *testing.T, l *Log, account string, from, to int) []Event {
	t.Helper()
	var out []Event
	for i := from; i < to; i++ {
		e, err := l.Record(context.Background(), account, testEvent(i))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func TestRetentionKeepsTheNewestAndACheckpoint(t *testing.T) {
	t.Parallel()
	l, _ := Open(Options{Retention: 1500})
	all := fill(t, l, "acct", 0, 3*chunkEvents+100) // several chunks leave memory
	p := l.Kept("acct")
	if len(p.Events) != 1500 || !p.Verified {
		t.Fatalf("kept %d events, verified %v", len(p.Events), p.Verified)
	}
	dropped := len(all) - 1500
	if p.Checkpoint.Dropped != int64(dropped) || p.Checkpoint.Hash != all[dropped-1].Hash {
		t.Fatalf("checkpoint %+v, want %d and the hash of event %d", p.Checkpoint, dropped, dropped-1)
	}
	if p.Events[0] != all[dropped] || p.Events[0].PrevHash != p.Checkpoint.Hash || p.Events[1499] != all[len(all)-1] {
		t.Fatal("the kept events are not the newest, linked to the checkpoint")
	}
	if Verify(p.Events) {
		t.Error("kept events verify from the genesis hash although events were dropped")
	}
	// Nothing dropped: 0 and the genesis hash.
	if cp := l.Checkpoint("other"); cp != (Checkpoint{Hash: GenesisHash}) {
		t.Errorf("empty chain's checkpoint %+v", cp)
	}
	// Memory holds at most the retention and one spare chunk: chunks are reused.
	l.mu.Lock()
	chunks := len(l.chains["acct"].chunks)
	l.mu.Unlock()
	if chunks > 1500/chunkEvents+2 {
		t.Errorf("%d chunks for 1,500 events", chunks)
	}
}

func TestAnonymousRing(t *testing.T) {
	t.Parallel()
	l, _ := Open(Options{AnonymousLimit: 10})
	long := "/api/v1/patients/" + strings.Repeat("é", 200) // cut on a character boundary
	var all []Event
	for i := range 25 {
		e := testEvent(i)
		e.Actor, e.Outcome, e.Path = "key_should_go", Denied, fmt.Sprintf("/api/v1/p%d", i)
		if i == 24 {
			e.Path = long
		}
		got, err := l.Record(context.Background(), Anonymous, e)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, got)
	}
	p := l.Kept(Anonymous)
	if len(p.Events) != 10 || !p.Verified || p.Checkpoint.Dropped != 15 || p.Checkpoint.Hash != all[14].Hash {
		t.Fatalf("ring: %d events, verified %v, checkpoint %+v", len(p.Events), p.Verified, p.Checkpoint)
	}
	for i, e := range p.Events[:9] {
		if e.Path != fmt.Sprintf("/api/v1/p%d", 15+i) || e.Actor != "" || e.ResourceID != "" {
			t.Errorf("event %d: %+v", i, e)
		}
	}
	last := p.Events[9]
	if len(last.Path) > MaxPathBytes || !strings.HasPrefix(long, last.Path) || !strings.HasSuffix(last.Path, "é") {
		t.Errorf("long path kept as %q (%d bytes)", last.Path, len(last.Path))
	}
	b, _ := json.Marshal(last)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if v, ok := m["resourceId"]; !ok || v != nil || m["path"] != last.Path || m["actor"] != "" {
		t.Errorf("anonymous event JSON: %s", b)
	}
	// The hash covers the path and the null resource id: the JSON as answered, keys sorted.
	var canon map[string]any
	_ = json.Unmarshal(b, &canon)
	delete(canon, "hash")
	cb, _ := json.Marshal(canon)
	if ComputeHash(last) != hashOf(last.PrevHash, cb) {
		t.Errorf("the hash is not over the answered JSON: %s", cb)
	}
	// An account event has no path and a string resource id.
	e := l.Append("acct", Event{ID: "aud_1", Path: "/ignored"})
	if b, _ := json.Marshal(e); strings.Contains(string(b), "path") || !strings.Contains(string(b), `"resourceId":""`) {
		t.Errorf("account event JSON: %s", b)
	}
}

func TestSymbolTableIsBounded(t *testing.T) {
	t.Parallel()
	l, _ := Open(Options{Retention: 100, AnonymousLimit: 100})
	for i := range 50_000 {
		e := testEvent(i)
		e.IP = fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255) // a new address each time
		e.RequestID = fmt.Sprintf("odd-%d", i)                        // not of the server's form
		l.Append("a", e)
		l.Append(Anonymous, e)
	}
	l.mu.Lock()
	n := len(l.symbols)
	l.mu.Unlock()
	if n > 8192 {
		t.Fatalf("%d strings in the table for 200 events kept", n)
	}
	p := l.Kept("a")
	if !p.Verified || p.Events[99].IP != "10.0.195.79" || p.Events[99].RequestID != "odd-49999" {
		t.Fatalf("events after rebuilds: verified %v, last %+v", p.Verified, p.Events[99])
	}
}

func hashOf(prev string, canonical []byte) string {
	return sha256hex(append([]byte(prev), canonical...))
}

func TestAuditFilesKeepEverything(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := Options{Retention: 300}
	l, db, done := fileLog(t, dir, opts)
	const n = 2*PageLimit + 345
	all := fill(t, l, "acct_a", 0, n)
	fill(t, l, "odd/../name", 0, 3) // an account id that is not a safe file name
	want := []string{"audit/acct_a", "audit/~" + hex.EncodeToString([]byte("odd/../name"))}
	if got := db.Logs("audit/"); !slices.Equal(got, want) {
		t.Fatalf("audit files %q, want %q", got, want)
	}
	// Paging through the file from the start: every event, in order, each page verified.
	pageAll := func(l *Log) []Event {
		var got []Event
		after := ZeroID
		for pages := 0; ; pages++ {
			p, err := l.After("acct_a", after)
			if err != nil || !p.Verified || len(p.Events) > PageLimit || pages > 5 {
				t.Fatalf("page after %s: %v, verified %v, %d events", after, err, p.Verified, len(p.Events))
			}
			got = append(got, p.Events...)
			if !p.HasMore {
				return got
			}
			after = p.Events[len(p.Events)-1].ID
		}
	}
	if got := pageAll(l); len(got) != n || got[0] != all[0] || got[n-1] != all[n-1] {
		t.Fatalf("paged %d events, want %d", len(got), n)
	}
	// After an id held in memory: from memory, to the newest.
	p, err := l.After("acct_a", all[n-11].ID)
	if err != nil || len(p.Events) != 10 || p.HasMore || !p.Verified || p.Events[0] != all[n-10] {
		t.Fatalf("page after a kept event: %v %d %v", err, len(p.Events), p.HasMore)
	}
	// After an id that left memory and no page ended with: found in the file.
	p, err = l.After("acct_a", all[5].ID)
	if err != nil || len(p.Events) != PageLimit || !p.HasMore || p.Events[0] != all[6] {
		t.Fatalf("page after a dropped event: %v %d %v", err, len(p.Events), p.HasMore)
	}
	if _, err := l.After("acct_a", fmt.Sprintf("aud_%032x", 999_999)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	done()

	// A restart: memory holds the newest events again and the checkpoint of the rest.
	l, _, _ = fileLog(t, dir, opts)
	k := l.Kept("acct_a")
	if len(k.Events) != 300 || !k.Verified || k.Checkpoint.Dropped != n-300 || k.Events[299] != all[n-1] {
		t.Fatalf("after restart: %d events, verified %v, %+v", len(k.Events), k.Verified, k.Checkpoint)
	}
	if got := pageAll(l); len(got) != n {
		t.Fatalf("after restart, paged %d events", len(got))
	}
	if ev := l.Events("odd/../name"); len(ev) != 3 || !Verify(ev) {
		t.Fatalf("odd account after restart: %d events", len(ev))
	}
	// The chain goes on where it was.
	e, err := l.Record(context.Background(), "acct_a", testEvent(n))
	if err != nil || e.PrevHash != all[n-1].Hash {
		t.Fatalf("next event after restart: %v, prevHash %s", err, e.PrevHash)
	}
}

// TestPagingCostsOnePage proves the next page starts where the last one ended: the file before
// it is not read (damage there, which a read from the start reports, goes unnoticed).
func TestPagingCostsOnePage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, _, _ := fileLog(t, dir, Options{Retention: 10})
	all := fill(t, l, "acct", 0, 2*PageLimit+5)
	p, err := l.After("acct", ZeroID)
	if err != nil || len(p.Events) != PageLimit {
		t.Fatal(err, len(p.Events))
	}
	// The fourth event's id, early in the file, damaged in place (every copy of it: bbolt keeps
	// stale copies of pages until it reuses them).
	f, err := os.OpenFile(filepath.Join(dir, durable.FileName), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		j := strings.Index(string(b[i:]), all[3].ID)
		if j < 0 {
			break
		}
		i += j
		if _, err := f.WriteAt([]byte{b[i+4] ^ 0xff}, int64(i+4)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	if p, err := l.After("acct", ZeroID); err == nil && p.Verified {
		t.Fatal("a read from the start does not see the damage")
	}
	p, err = l.After("acct", p.Events[PageLimit-1].ID)
	if err != nil || len(p.Events) != PageLimit || p.Events[0] != all[PageLimit] || !p.Verified {
		t.Fatalf("second page: %v, %d events", err, len(p.Events))
	}
}

func TestExportImport(t *testing.T) {
	t.Parallel()
	src, _ := Open(Options{Retention: 50})
	all := fill(t, src, "acct", 0, 80)
	st := src.Export("acct")
	if len(st.Events) != 50 || st.Checkpoint.Dropped != 30 {
		t.Fatalf("export: %d events, %+v", len(st.Events), st.Checkpoint)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dst, _, done := fileLog(t, dir, Options{Retention: 50})
	fill(t, dst, "acct", 1000, 1003) // history the import replaces in memory, kept in the file
	if err := dst.Import(context.Background(), "acct", back); err != nil {
		t.Fatal(err)
	}
	k := dst.Kept("acct")
	if !k.Verified || k.Checkpoint != st.Checkpoint || len(k.Events) != 50 || k.Events[49] != all[79] {
		t.Fatalf("imported: verified %v, %+v, %d events", k.Verified, k.Checkpoint, len(k.Events))
	}
	e := dst.Append("acct", testEvent(80))
	if e.PrevHash != all[79].Hash {
		t.Fatal("the chain does not go on from the import")
	}
	// The file has the 3 earlier events, the checkpoint, the import and the new event; each page
	// verifies (the checkpoint record links the import).
	p, err := dst.After("acct", ZeroID)
	if err != nil || len(p.Events) != 3+50+1 || !p.Verified || p.HasMore {
		t.Fatalf("file after import: %v, %d events, verified %v", err, len(p.Events), p.Verified)
	}
	done()
	dst, _, _ = fileLog(t, dir, Options{Retention: 50})
	if k := dst.Kept("acct"); !k.Verified || k.Checkpoint.Dropped != 31 || k.Events[49] != e {
		t.Fatalf("restart after import: %+v, %d events", k.Checkpoint, len(k.Events))
	}
	// A state that does not verify is refused and changes nothing.
	back.Events[3].Actor = "key_forged"
	if err := dst.Import(context.Background(), "acct", back); err == nil {
		t.Fatal("a forged state was imported")
	}
}

func sha256hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
