package import02

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/mockserver/internal/durable"
	"github.com/medspa/medspa-go/mockserver/internal/persist"
	bolt "go.etcd.io/bbolt"
)

// open opens the data file of dir as a server does: the import after the file's opening.
func open(dir string) (*durable.DB, error) {
	db, err := persist.OpenFile(dir, true)
	if err != nil {
		return nil, err
	}
	if err := Import(db, dir); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return db, nil
}

// copy02 copies the 0.2 data directory of cmd/medspa-mock/testdata into a new directory.
func copy02(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "..", "..", "cmd", "medspa-mock", "testdata", "datadir-0.2"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// counts returns how many keys each bucket of the file holds (sub-buckets by path).
func counts(t *testing.T, db *durable.DB) map[string]int {
	t.Helper()
	n := map[string]int{}
	var walk func(path string, b *bolt.Bucket)
	walk = func(path string, b *bolt.Bucket) {
		_ = b.ForEach(func(k, v []byte) error {
			if v == nil {
				walk(path+"/"+string(k), b.Bucket(k))
			} else {
				n[path]++
			}
			return nil
		})
	}
	_ = db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error { walk(string(name), b); return nil })
	})
	return n
}

// A 0.2 directory is imported once: a start cut short after the import but before its files
// moved into the backup imports nothing twice; under a file of a newer format nothing is read or
// moved.
func TestImport02Once(t *testing.T) {
	t.Parallel()
	dir := copy02(t)
	db, err := open(dir)
	if err != nil {
		t.Fatal(err)
	}
	first := counts(t, db)
	db.Close()
	if first["acct/acct_019ca8a03e807000801f619207425759/patient"] < 2 || first["snapshots"] != 1 {
		t.Fatalf("imported %v", first)
	}
	for _, n := range []string{"state", "audit", "snapshots"} { // as if the start stopped before the move
		if err := os.Rename(filepath.Join(dir, BackupDir, n), filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	if db, err = open(dir); err != nil {
		t.Fatal(err)
	}
	again := counts(t, db)
	db.Close()
	if fmt.Sprint(again) != fmt.Sprint(first) {
		t.Fatalf("a second import changed the file:\n%v\n%v", again, first)
	}
	if _, err := os.Stat(filepath.Join(dir, "state")); err == nil {
		t.Fatal("state/ is still there")
	}

	dir = copy02(t)
	bdb, err := bolt.Open(filepath.Join(dir, durable.FileName), 0o600, nil)
	if err == nil {
		err = bdb.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucket([]byte("meta"))
			if err == nil {
				err = b.Put([]byte("format"), []byte("medspa-mock-data/99"))
			}
			return err
		})
		bdb.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := open(dir); err == nil || !strings.Contains(err.Error(), `"medspa-mock-data/99"`) {
		t.Fatalf("a newer file: %v", err)
	}
	for _, n := range []string{"state/0000000000000002.snap", "audit", "snapshots"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("after the refusal: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, BackupDir)); err == nil {
		t.Error("a backup directory was made")
	}
}

// The state log of a data directory written by release 0.2 (cmd/medspa-mock/testdata) reads
// back: its snapshot then its segments.
func TestRead02(t *testing.T) {
	t.Parallel()
	src := filepath.Join("..", "..", "..", "..", "cmd", "medspa-mock", "testdata", "datadir-0.2", "state")
	var got []string
	found, err := Read02(src, func(rec []byte) error { got = append(got, string(rec)); return nil })
	if err != nil || !found {
		t.Fatal(found, err)
	}
	if len(got) < 5 || !strings.HasPrefix(got[0], `{"t":"header"`) || !strings.Contains(strings.Join(got, "\n"), `{"t":"end"`) {
		t.Fatalf("read %d records: %.60q … %.60q", len(got), got[0], got[len(got)-1])
	}
	if found, err := Read02(t.TempDir(), nil); found || err != nil {
		t.Fatalf("an empty directory: %v %v", found, err)
	}
}
