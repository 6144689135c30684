package main

import (
	"encoding/json"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/internal/testing/restarttest"
)

// The data directory of release 0.2 in testdata/datadir-0.2 (written by the 0.2 binary:
// testdata/make-datadir-0.2.sh, PHI key below) is imported on start into the bbolt file, its
// files kept under one directory, v0.2-backup/: patients with their PHI, appointments, an invoice paid, a
// webhook endpoint, the printed key and a second one, an OAuth client, a named snapshot, the
// account's own clock and its audit chain all come back; no PHI reaches the new files in clear;
// a second start imports nothing again.
func TestImportsDataDir02(t *testing.T) {
	t.Parallel()
	const (
		phiKey  = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
		account = "acct_019ca8a03e807000801f619207425759"
		key     = "msk_test_lOnRUK5BZnf8eeElJKWNIqVl0QeEzOB8"
		key2    = "msk_test_5usarZJ3IpWbDMtUeTh3zZMm9FZ6zHrP"
		client  = "cli_019ca8a03e807022a2527fe1221a2ca3"
		secret  = "mcs_FjPV8YTdSH6ay6NAcfjIOW3rFf95PRwl5k5RgCRK"
		patient = "pat_019ca8a03e807003bc5b4243093520d5"
	)
	dir := filepath.Join(t.TempDir(), "data")
	src := filepath.Join("testdata", "datadir-0.2")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, rel), b, 0o600)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		p := startBinary(t, "-data", dir, "-phi-key", phiKey, "-private-webhooks")
		if p.account != account || p.key != key {
			t.Fatalf("round %d: printed %s %s", round, p.account, p.key)
		}
		c := restarttest.NewClient(t, restarttest.Target{BaseURL: p.base, Key: key, Account: account})
		var pat map[string]any
		_ = json.Unmarshal(c.Must(t, 200, key, "GET", "/api/v1/patients/"+patient, ""), &pat)
		if pat["firstName"] != "Importfirst" || pat["notes"] != "import note one" || pat["dateOfBirth"] != "1991-05-02" {
			t.Fatalf("round %d: imported patient %v", round, pat)
		}
		for path, want := range map[string]string{
			"/api/v1/patients?email=IMPORT.TWO@example.test": "import note two, patched",
			"/api/v1/appointments":                           "import appointment note",
			"/api/v1/invoices":                               `"status":"paid"`,
			"/api/v1/webhooks":                               "http://127.0.0.1:9/hook",
		} {
			if b := c.Must(t, 200, key, "GET", path, ""); !strings.Contains(string(b), want) {
				t.Errorf("round %d: GET %s: %s", round, path, b)
			}
		}
		c.Must(t, 200, key2, "GET", "/api/v1/patients", "")
		if st, tok := c.Form(t, "/oauth/token", client, secret, url.Values{"grant_type": {"client_credentials"}}); st != 200 {
			t.Fatalf("round %d: the imported OAuth client: %d %v", round, st, tok)
		}
		if b := c.Must(t, 200, "", "GET", "/__admin/clock?account="+account, ""); !strings.Contains(string(b), "2026-03-01T10:00:00Z") {
			t.Errorf("round %d: the account's clock: %s", round, b)
		}
		var audit struct {
			Events   []json.RawMessage `json:"events"`
			Verified bool              `json:"verified"`
		}
		_ = json.Unmarshal(c.Must(t, 200, "", "GET", "/__admin/audit-events?account="+account, ""), &audit)
		if len(audit.Events) < 8 || !audit.Verified {
			t.Errorf("round %d: audit chain of %d events, verified %v", round, len(audit.Events), audit.Verified)
		}
		if round == 1 { // the snapshot was saved before the clock was set: it brings 09:00 back
			c.Must(t, 204, "", "POST", "/__admin/snapshots/imported/restore", `{"account":"`+account+`"}`)
		}
		p.stop(t, false)
	}
	for _, f := range []string{"v0.2-backup/state/0000000000000002.snap", "data.db",
		"v0.2-backup/audit/" + account + "/0000000000000001.seg", "v0.2-backup/snapshots"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("after the import: %v", err)
		}
	}
	for _, f := range []string{"state", "audit", "snapshots"} { // one backup directory, nothing beside it
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("after the import: %s is still there", f)
		}
	}
	os.RemoveAll(filepath.Join(dir, "v0.2-backup")) // the 0.2 files hold the same sealed values
	noPlaintext(t, dir, "Importfirst", "Importlast", "import.one", "import note", "2 Import Road", "Secondfirst", "1991-05-02")
}
