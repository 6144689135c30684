package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/internal/testing/restarttest"
	bolt "go.etcd.io/bbolt"
)

// medspa-mock -data DIR -check passes an intact directory and fails (non-zero, a message naming
// what is wrong) one whose audit file lost its newest event, or whose file was cut short; it
// changes nothing.
func TestCheckDataDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	p := startBinary(t, "-data", dir)
	c := restarttest.NewClient(t, restarttest.Target{BaseURL: p.base, Key: p.key, Account: p.account})
	for range 3 {
		c.Must(t, 201, p.key, "POST", "/api/v1/patients", `{"firstName":"Checkfirst","lastName":"Checklast","email":"check@example.org"}`)
	}
	account := p.account
	p.stop(t, false)
	check := func() (string, error) {
		out, err := exec.Command(binary(t), "-data", dir, "-check").CombinedOutput()
		return string(out), err
	}
	if out, err := check(); err != nil || !strings.Contains(out, "ok") {
		t.Fatalf("an intact directory: %v %s", err, out)
	}

	file := filepath.Join(dir, "data.db")
	db, err := bolt.Open(file, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		c := tx.Bucket([]byte("audit/" + account)).Bucket([]byte("log")).Cursor()
		c.Last()
		return c.Delete()
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(file)
	out, err := check()
	if err == nil || !strings.Contains(out, account) || !strings.Contains(out, "head") {
		t.Fatalf("the newest audit event removed: %v %s", err, out)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Fatal("-check changed the file")
	}

	if err := os.WriteFile(file, before[:3*4096], 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := check(); err == nil || !strings.Contains(out, "cut short") {
		t.Fatalf("the file cut short: %v %s", err, out)
	}
}

// A data directory whose file a newer release wrote (another format in its meta bucket) is
// refused at start with one line naming both formats, and left as it was.
func TestRefusesNewerDataFile(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	p := startBinary(t, "-data", dir)
	c := restarttest.NewClient(t, restarttest.Target{BaseURL: p.base, Key: p.key, Account: p.account})
	c.Must(t, 200, p.key, "GET", "/api/v1/patients", "")
	p.stop(t, false)
	file := filepath.Join(dir, "data.db")
	db, err := bolt.Open(file, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("format"), []byte("medspa-mock-log/99"))
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(file)
	out, err := exec.Command(binary(t), "-addr", "127.0.0.1:0", "-quiet", "-data", dir).CombinedOutput()
	msg := strings.TrimSpace(string(out))
	if err == nil || strings.Count(msg, "\n") != 0 || !strings.Contains(msg, `"medspa-mock-log/99"`) || !strings.Contains(msg, "newer release") {
		t.Fatalf("a newer file: %v %q", err, msg)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Fatal("the refused file changed")
	}
}
