package durable_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/durable"
)

// openDB opens a file with two logs, closed at the test's end.
func openDB(t *testing.T) (db *durable.DB, state, audit *durable.Log) {
	t.Helper()
	db, err := durable.OpenDB(filepath.Join(t.TempDir(), durable.FileName), durable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if state, err = db.Log("state"); err == nil {
		audit, err = db.Log("audit")
	}
	if err != nil {
		t.Fatal(err)
	}
	return db, state, audit
}

// txid reads the id of the file's newest committed transaction from its two meta pages (bbolt's
// layout: page size at byte 24, transaction id at byte 64 of each).
func txid(t *testing.T, path string) uint64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	second := int(binary.LittleEndian.Uint32(b[24:]))
	return max(binary.LittleEndian.Uint64(b[64:]), binary.LittleEndian.Uint64(b[second+64:]))
}

// Records enqueued in a row, in two logs of one file, before anyone waits — a request's change,
// then its audit event — are committed in one transaction (one pair of fsyncs, not two), and a
// Wait on either returns once both are on disk.
func TestEnqueuedBeforeAWaitShareOneTransaction(t *testing.T) {
	t.Parallel()
	db, state, audit := openDB(t)
	durable.SetFlushDelay(db, time.Hour) // only the Wait starts the commit
	before := txid(t, durable.Path(db))
	change := state.Enqueue([]byte("change"))
	time.Sleep(20 * time.Millisecond) // the request's work between its change and its event
	event := audit.Enqueue([]byte("event"))
	if err := change.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := event.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := txid(t, durable.Path(db)) - before; n != 1 {
		t.Errorf("the change and its event took %d transactions, want 1", n)
	}
	if got := replayAll(t, audit); !slices.Equal(got, []string{"event"}) {
		t.Errorf("audit log %q", got)
	}
}

// A record nobody waits for is written all the same, after a short delay; Close writes what is
// queued without waiting for the delay.
func TestRecordsNobodyWaitsForAreWritten(t *testing.T) {
	t.Parallel()
	db, state, _ := openDB(t)
	state.Enqueue([]byte("unwaited"))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if got := replayAll(t, state); slices.Equal(got, []string{"unwaited"}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a record nobody waited for was not written within 10 s")
		}
	}
	path := durable.Path(db)
	durable.SetFlushDelay(db, time.Hour)
	state.Enqueue([]byte("queued at close"))
	start := time.Now()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("Close took %v", d)
	}
	db, err := durable.OpenDB(path, durable.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	l, err := db.Log("state")
	if err != nil {
		t.Fatal(err)
	}
	if got := replayAll(t, l); !slices.Equal(got, []string{"unwaited", "queued at close"}) {
		t.Errorf("after Close: %q", got)
	}
}

// freeListKept says whether the file's newest meta page points at a free list (bbolt's layout:
// the free list's page id at byte 48 of a meta page; all ones when none is kept).
func freeListKept(t *testing.T, path string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	meta := 0
	if second := int(binary.LittleEndian.Uint32(b[24:])); binary.LittleEndian.Uint64(b[second+64:]) > binary.LittleEndian.Uint64(b[64:]) {
		meta = second
	}
	return binary.LittleEndian.Uint64(b[meta+48:]) != ^uint64(0)
}

// Group commits leave the free list out of the file (OpenDB rebuilds it); a transaction with
// WriteFreeList — a clean close's last — writes it, so that the next open reads it; the first
// commit after that drops it again, and the file stays consistent throughout.
func TestFreeListWrittenAtACleanClose(t *testing.T) {
	t.Parallel()
	db, state, _ := openDB(t)
	path := durable.Path(db)
	for i := range 50 {
		if err := state.Enqueue(bytes.Repeat([]byte{byte(i)}, 3000)).Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if freeListKept(t, path) {
		t.Fatal("a group commit wrote the free list")
	}
	if err := errors.Join(db.Enqueue(durable.WriteFreeList).Wait(context.Background()), db.Close()); err != nil {
		t.Fatal(err)
	}
	if !freeListKept(t, path) {
		t.Fatal("no free list after WriteFreeList")
	}
	db, err := durable.OpenDB(path, durable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := db.Log("state")
	if err == nil {
		err = l.Enqueue([]byte("after")).Wait(context.Background())
	}
	if err = errors.Join(err, db.Check()); err != nil {
		t.Fatal(err)
	}
	if freeListKept(t, path) {
		t.Error("the first group commit after the open kept the free list")
	}
	if got := replayAll(t, l); len(got) != 51 || got[50] != "after" {
		t.Errorf("read back %d records", len(got))
	}
	db.Close()
}
