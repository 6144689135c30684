package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/internal/testing/restarttest"
)

// The single-file -data of release 0.2 (testdata/v1, written by the binary of then: see its
// README) is migrated into a data directory at the same path: every record opens, PHI sealed
// again bound to its place, blind indexes per account, idempotency answers kept, keys and OAuth
// clients working; the old file is kept aside; a second start does not migrate again.
func TestMigratesSingleFileData(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "state.json")
	for _, f := range []string{"state.json", "state.json.key"} {
		b, err := os.ReadFile(filepath.Join("testdata", "v1", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const (
		oldKey   = "msk_test_T7nphq4tW5uN4jjzMKa85XTaQN0MNwk3"
		account  = "acct_019ca8a03e807000a2301fb8d82978da"
		patient1 = "pat_019ca8a03e80700395798d340c0a17e8"
	)
	// The file's records date from 2026-03-01 09:00 (its -start): a clock half an hour later
	// keeps its idempotency key within its 24 hours. -start applies to the new directory only.
	p := startBinary(t, "-data", data, "-start", "2026-03-01T09:30:00Z")
	if !strings.Contains(strings.Join(p.lines, "\n"), "migrated "+data) || p.account != account {
		t.Fatalf("start-up: %q", p.lines)
	}
	if fi, err := os.Stat(data); err != nil || !fi.IsDir() {
		t.Fatalf("%s is not a directory now: %v", data, err)
	}
	for _, f := range []string{"state.json.v1.bak", "state.json.v1.bak.key", "state.json/phi.key", "state.json/api-key", "state.json/README"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("after the migration: %v", err)
		}
	}
	c := restarttest.NewClient(t, restarttest.Target{BaseURL: p.base, Key: oldKey, Account: account})
	check := func(t *testing.T, c *restarttest.Client) {
		t.Helper()
		var pat map[string]any
		_ = json.Unmarshal(c.Must(t, 200, oldKey, "GET", "/api/v1/patients/"+patient1, ""), &pat)
		if pat["firstName"] != "Testfirst" || pat["notes"] != "synthetic note" || pat["email"] != "fixture.one@example.test" {
			t.Fatalf("migrated patient: %v", pat)
		}
		for path, want := range map[string]string{
			"/api/v1/patients?email=FIXTURE.TWO@example.test": "Othername",
			"/api/v1/appointments":                            "synthetic appointment note",
			"/api/v1/invoices":                                "synthetic invoice note",
		} {
			if b := c.Must(t, 200, oldKey, "GET", path, ""); !strings.Contains(string(b), want) {
				t.Errorf("GET %s after the migration: %s", path, b)
			}
		}
		// The idempotent answer of before still replays, for the same request only.
		st, h, _ := c.Do(t, oldKey, "POST", "/api/v1/patients", `{"firstName":"Testfirst","lastName":"Fixturelast","email":"fixture.one@example.test","phone":"+15550100001","dateOfBirth":"1990-04-01","notes":"synthetic note","address":{"line1":"1 Synthetic Way","city":"Nowhere","country":"US"}}`,
			"Idempotency-Key: fixture-key-1")
		if st != 201 || h.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("keyed POST of before the migration: %d %v", st, h)
		}
		if st, tok := c.Form(t, "/oauth/token", "cli_019ca8a03e80701289a55fd3bb467052", "mcs_VaBNofJU6ggpRHm76C2qafptvpSW4I7E0hFwF2gT",
			map[string][]string{"grant_type": {"client_credentials"}}); st != 200 {
			t.Fatalf("the OAuth client of before the migration: %d %v", st, tok)
		}
	}
	check(t, c)
	p.stop(t, false)
	noPlaintext(t, data, "Testfirst", "Fixturelast", "fixture.one", "synthetic note", "1 Synthetic Way", "synthetic appointment note", "synthetic invoice note", "synthetic adjustment note")

	again := startBinary(t, "-data", data)
	if strings.Contains(strings.Join(again.lines, "\n"), "migrated") || again.key != p.key {
		t.Fatalf("second start: %q (printed key before: %s)", again.lines, p.key)
	}
	check(t, restarttest.NewClient(t, restarttest.Target{BaseURL: again.base, Key: oldKey, Account: account}))
}

// A single -data file of the binary with the bounds work (testdata/v1-audit: its audit files
// beside it, in <data>.d/audit/) migrates with them: the account's chain goes on, verified, with
// its two events of before first.
func TestMigratesSingleFileDataWithAuditFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "state.json")
	src := filepath.Join("testdata", "v1-audit")
	if err := copyTree(dir, src); err != nil {
		t.Fatal(err)
	}
	const (
		key     = "msk_test_0OQDMjeaeAJJVap9Xc38ec2j0mtk9nDp"
		account = "acct_019ca8a03e8070008e42d4cae8864908"
	)
	p := startBinary(t, "-data", data, "-start", "2026-03-01T09:30:00Z")
	if p.account != account {
		t.Fatalf("start-up: %q", p.lines)
	}
	if _, err := os.Stat(data + ".d"); !os.IsNotExist(err) {
		t.Fatalf("the old audit directory is still there: %v", err)
	}
	c := restarttest.NewClient(t, restarttest.Target{BaseURL: p.base, Key: key, Account: account})
	c.Must(t, 200, key, "GET", "/api/v1/patients", "") // a third event, after the two of before
	var audit struct {
		Events []struct {
			Action string `json:"action"`
		} `json:"events"`
		Verified bool `json:"verified"`
	}
	_ = json.Unmarshal(c.Must(t, 200, "", "GET", "/__admin/audit-events?account="+account, ""), &audit)
	var actions []string
	for _, e := range audit.Events {
		actions = append(actions, e.Action)
	}
	if !audit.Verified || len(actions) < 3 || actions[0] != "create" || actions[1] != "list" {
		t.Fatalf("the audit chain after the migration: %v, verified %v", actions, audit.Verified)
	}
	p.stop(t, false)
	noPlaintext(t, data, "Auditfirst", "Fixturelast", "audit.one", "synthetic audited note")
}
