package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/internal/restarttest"
	bolt "go.etcd.io/bbolt"
)

// medspa-mock -data DIR -check passes an intact directory and fails (non-zero, one message naming
// what is wrong) one whose audit file lost its newest events, or whose state file was cut short;
// it changes nothing.
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

	auditFile := filepath.Join(dir, "audit", account, "data.db")
	db, err := bolt.Open(auditFile, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		c := tx.Bucket([]byte("log")).Cursor()
		c.Last()
		return c.Delete()
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(auditFile)
	out, err := check()
	if err == nil || !strings.Contains(out, account) || !strings.Contains(out, "head") {
		t.Fatalf("the newest audit event removed: %v %s", err, out)
	}
	if after, _ := os.ReadFile(auditFile); string(after) != string(before) {
		t.Fatal("-check changed the audit file")
	}

	state := filepath.Join(dir, "state", "data.db")
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(state, b[:3*4096], 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := check(); err == nil || !strings.Contains(out, "state") {
		t.Fatalf("the state file cut short: %v %s", err, out)
	}
}
