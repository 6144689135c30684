package durable_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/medspa/medspa-go/mockserver/internal/durable"
	bolt "go.etcd.io/bbolt"
)

// fileLog is the log "log" of a file of its own: Close closes the file.
type fileLog struct {
	*durable.Log
	db *durable.DB
}

func (l fileLog) Close() { l.db.Close() }

func openDir(dir string, opts durable.Options) (*durable.DB, error) {
	return durable.OpenDB(filepath.Join(dir, durable.FileName), opts)
}

func open(t *testing.T, dir string) fileLog {
	t.Helper()
	db, err := openDir(dir, durable.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	l, err := db.Log("log")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fileLog{l, db}.Close)
	return fileLog{l, db}
}

func replayAll(t *testing.T, l *durable.Log) []string {
	t.Helper()
	var out []string
	if err := l.ReadFrom(durable.Position{}, func(rec []byte, _ durable.Position) error { out = append(out, string(rec)); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// Concurrent appends land whole and in the order of their Enqueue calls; a reopened log reads
// them all back.
func TestAppendReadBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := open(t, dir)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 20 {
				c := l.Enqueue(fmt.Appendf(nil, "g%d-%d-a", g, i), fmt.Appendf(nil, "g%d-%d-b", g, i))
				if err := c.Wait(context.Background()); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	l.Close()
	l = open(t, dir)
	got := replayAll(t, l.Log)
	if len(got) != 16*20*2 {
		t.Fatalf("%d records after reopen", len(got))
	}
	last := map[string]int{}
	for i := 0; i < len(got); i += 2 {
		var g, n int
		fmt.Sscanf(got[i], "g%d-%d-a", &g, &n)
		if got[i+1] != strings.TrimSuffix(got[i], "a")+"b" || n != last[fmt.Sprint(g)] {
			t.Fatalf("records %d, %d: %q %q (a batch split, or out of order)", i, i+1, got[i], got[i+1])
		}
		last[fmt.Sprint(g)] = n + 1
	}
	if got := replayAll(t, l.Log); len(got) != 16*20*2 {
		t.Fatalf("%d records after reopen", len(got))
	}
}

// removeNewest deletes the log's newest n records with the bbolt API, as a tamperer could.
func removeNewest(t *testing.T, dir string, n int) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, durable.FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		c := tx.Bucket([]byte("log")).Bucket([]byte("log")).Cursor()
		for range n {
			if k, _ := c.Last(); k == nil {
				return errors.New("no record to remove")
			}
			if err := c.Delete(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Records removed from the end of the log show at Open (the head, committed with the records,
// no longer matches), and stay shown after later appends and reopens.
func TestHeadCatchesRemovedNewestRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := open(t, dir)
	for i := range 5 {
		if err := l.Enqueue(fmt.Appendf(nil, "r%d", i)).Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	if l = open(t, dir); l.Damage() != nil {
		t.Fatalf("an intact log: %v", l.Damage())
	}
	l.Close()
	removeNewest(t, dir, 2)
	l = open(t, dir)
	if err := l.Damage(); !errors.Is(err, durable.ErrHead) {
		t.Fatalf("two newest records removed: damage %v", err)
	}
	if err := l.Enqueue([]byte("r5")).Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if l = open(t, dir); !errors.Is(l.Damage(), durable.ErrHead) {
		t.Fatal("an append after the damage hides it")
	}
}

// A second OpenDB of the same file fails with ErrLocked; a file of another format is refused
// and left as it was.
func TestLockedAndNewerFormat(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := open(t, dir)
	if _, err := openDir(dir, durable.Options{}); !errors.Is(err, durable.ErrLocked) {
		t.Fatalf("second Open: %v", err)
	}
	l.Close()
	db, err := bolt.Open(filepath.Join(dir, durable.FileName), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("format"), []byte("medspa-mock-log/99"))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(filepath.Join(dir, durable.FileName))
	_, err = openDir(dir, durable.Options{})
	if err == nil || !strings.Contains(err.Error(), `"medspa-mock-log/99"`) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a newer format: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, durable.FileName)); !bytes.Equal(before, after) {
		t.Fatal("the refused file changed")
	}
}
