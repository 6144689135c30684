package mockserver_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
)

// TestIdempotency covers docs/protocol.md §8 over HTTP: replay byte for byte, reuse with another request, stored
// 4xx, per-credential keys, retention on the server clock, and key syntax.
func TestIdempotency(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	acct := env.Key.Account
	env.Server.SetTime(acct, time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	body := `{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com"}`
	post := func(key, b string, headers ...string) (*http.Response, []byte) {
		t.Helper()
		return env.DoInvalid(t, http.MethodPost, "/api/v1/patients", b, append([]string{"Idempotency-Key: " + key}, headers...)...)
	}

	first, b1 := post("k-1", body)
	again, b2 := post("k-1", body)
	if first.StatusCode != 201 || again.StatusCode != 201 || !bytes.Equal(b1, b2) {
		t.Fatalf("replay: %d %s / %d %s", first.StatusCode, b1, again.StatusCode, b2)
	}
	if again.Header.Get("Idempotent-Replayed") != "true" || first.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("Idempotent-Replayed: first %q, replay %q", first.Header.Get("Idempotent-Replayed"), again.Header.Get("Idempotent-Replayed"))
	}
	if n := countPatients(t, env); n != 1 {
		t.Fatalf("%d patients after a replay, want 1", n)
	}

	// Same key, another body or another path: 422 idempotency_key_reused, nothing created.
	if resp, b := post("k-1", strings.Replace(body, "Ada", "Bea", 1)); resp.StatusCode != 422 || !strings.Contains(string(b), `"code":"idempotency_key_reused"`) {
		t.Errorf("other body: %d %s", resp.StatusCode, b)
	}
	resp, b := env.DoInvalid(t, http.MethodPost, "/api/v1/products", `{"sku":"X","name":"X","category":"other","price":1}`, "Idempotency-Key: k-1")
	if resp.StatusCode != 422 || !strings.Contains(string(b), `"code":"idempotency_key_reused"`) {
		t.Errorf("other path: %d %s", resp.StatusCode, b)
	}

	// A 4xx outcome is stored and replayed too.
	bad := `{"firstName":"Ada"}`
	r1, e1 := post("k-bad", bad)
	r2, e2 := post("k-bad", bad)
	if r1.StatusCode != 422 || r2.StatusCode != 422 || !bytes.Equal(e1, e2) || r2.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("stored 4xx: %d / %d replayed=%q", r1.StatusCode, r2.StatusCode, r2.Header.Get("Idempotent-Replayed"))
	}

	// Keys are per credential: another key of the same account runs the request anew.
	other := env.NewKey(t, mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}, Account: acct})
	if resp, _ := post("k-1", body, "Authorization: Bearer "+other.Key); resp.StatusCode != 201 || resp.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("other credential: %d replayed=%q", resp.StatusCode, resp.Header.Get("Idempotent-Replayed"))
	}
	if n := countPatients(t, env); n != 2 {
		t.Errorf("%d patients, want 2", n)
	}

	// Kept 24 h on the server clock: just before, a replay; after, a new request.
	env.Server.AdvanceTime(acct, 24*time.Hour-time.Second)
	if resp, _ := post("k-1", body); resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay expected just before 24 h: %d", resp.StatusCode)
	}
	env.Server.AdvanceTime(acct, time.Second)
	resp, b = post("k-1", body)
	if resp.StatusCode != 201 || resp.Header.Get("Idempotent-Replayed") != "" || bytes.Equal(b, b1) {
		t.Errorf("after 24 h the key must be new: %d replayed=%q", resp.StatusCode, resp.Header.Get("Idempotent-Replayed"))
	}
	if n := countPatients(t, env); n != 3 {
		t.Errorf("%d patients, want 3", n)
	}

	// Key syntax: 1–255 printable ASCII characters.
	for _, key := range []string{strings.Repeat("k", 256), "tab\there", "é"} {
		resp, b := post(key, body)
		var p struct{ Code string }
		_ = json.Unmarshal(b, &p)
		if resp.StatusCode != 422 || p.Code != "validation_error" {
			t.Errorf("key %q: %d %s", key, resp.StatusCode, b)
		}
	}
	if resp, _ := post(strings.Repeat("k", 255), body); resp.StatusCode != 201 {
		t.Errorf("255-character key: %d", resp.StatusCode)
	}
}

// TestReplayOfPHIIsAudited: a replay hands out the same patient, so it is audited as the
// original was.
func TestReplayOfPHIIsAudited(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	body := `{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com"}`
	creates := func() int {
		n := 0
		for _, e := range env.Server.AuditEvents(env.Key.Account) {
			if e.Action == "create" && e.ResourceType == "patient" && e.Outcome == "success" {
				n++
			}
		}
		return n
	}
	env.Do(t, http.MethodPost, "/api/v1/patients", body, "Idempotency-Key: a-1")
	if n := creates(); n != 1 {
		t.Fatalf("%d create events after the original", n)
	}
	resp, _ := env.Do(t, http.MethodPost, "/api/v1/patients", body, "Idempotency-Key: a-1")
	if resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatal("not a replay")
	}
	if n := creates(); n != 2 {
		t.Errorf("%d create events after the replay, want 2", n)
	}
	if !mockserver.VerifyAuditChain(env.Server.AuditEvents(env.Key.Account)) {
		t.Error("chain does not verify")
	}
}
