package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/httpsig"
)

// post sends a JSON POST with a bearer key and returns the status and body.
func post(t *testing.T, url, key, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	return roundTrip(t, req)
}

// roundTrip sends req and returns the status and body.
func roundTrip(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestLoopbackWebhooksRefusedOnTheNetwork (issue 32, item 3): a binary listening on every
// interface refuses webhook endpoints on loopback (its users could otherwise make it reach, or
// scan, services of its host), with the reason; -loopback-webhooks allows them; a loopback
// listener allows them as before.
func TestLoopbackWebhooksRefusedOnTheNetwork(t *testing.T) {
	t.Parallel()
	hook := `{"url":"http://127.0.0.1:9/hook","events":["*"]}`
	named := `{"url":"http://localhost:9/hook","events":["*"]}`
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"every interface", []string{"-addr", "0.0.0.0:0"}, 422},
		{"every interface, trusted network", []string{"-addr", "0.0.0.0:0", "-loopback-webhooks"}, 201},
		{"loopback", nil, 201},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startBinary(t, tc.args...)
			base := strings.Replace(p.base, "0.0.0.0", "127.0.0.1", 1)
			for _, body := range []string{hook, named} {
				status, answer := post(t, base+"/api/v1/webhooks", p.key, body)
				if status != tc.want {
					t.Fatalf("%s: %d %s, want %d", body, status, answer, tc.want)
				}
				if status == 422 && (!strings.Contains(answer, `"pointer":"/url"`) || !strings.Contains(answer, "loopback")) {
					t.Errorf("refusal does not name the field and the reason: %s", answer)
				}
			}
		})
	}
}

// TestSignedRequestsDoNotReplayAfterARestart (issue 32, item 4): the signature nonce cache
// lives in memory, so a signed POST resent byte for byte after a restart on the same data
// directory (SIGKILL or SIGTERM), within the 300 s window, would run again. A signature made
// before the server started is refused: 401 invalid_signature, and no second patient.
func TestSignedRequestsDoNotReplayAfterARestart(t *testing.T) {
	t.Parallel()
	for _, kill := range []bool{true, false} {
		t.Run(map[bool]string{false: "sigterm", true: "sigkill"}[kill], func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "data")
			p := startBinary(t, "-data", dir)
			status, answer := post(t, p.base+"/__admin/api-keys", "",
				`{"plan":"enterprise","scopes":["*"],"signingRequired":true,"account":"`+p.account+`"}`)
			var k struct{ ID, Key, SigningSecret string }
			if err := json.Unmarshal([]byte(answer), &k); status != 201 || err != nil {
				t.Fatalf("key: %d %s", status, answer)
			}
			secret, err := httpsig.ParseSecret(k.SigningSecret)
			if err != nil {
				t.Fatal(err)
			}
			body := []byte(`{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com"}`)
			signed, err := http.NewRequest(http.MethodPost, p.base+"/api/v1/patients", nil)
			if err != nil {
				t.Fatal(err)
			}
			signed.Header.Set("Authorization", "Bearer "+k.Key)
			signed.Header.Set("Content-Type", "application/json")
			if err := httpsig.SignRequest(signed, body, k.ID, secret, time.Now()); err != nil {
				t.Fatal(err)
			}
			host := signed.URL.Host
			// send sends the signed request's very bytes (its Host too) to base.
			send := func(base string) (int, string) {
				req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/patients", bytes.NewReader(body))
				req.Header, req.Host = signed.Header.Clone(), host
				return roundTrip(t, req)
			}
			if status, answer := send(p.base); status != 201 {
				t.Fatalf("signed POST: %d %s", status, answer)
			}
			if status, answer := send(p.base); status != 401 || !strings.Contains(answer, "invalid_signature") {
				t.Fatalf("replay before the restart: %d %s", status, answer)
			}
			time.Sleep(1100 * time.Millisecond) // created has whole seconds: the restart comes a second later
			p.stop(t, kill)
			again := startBinary(t, "-data", dir)
			status, answer = send(again.base)
			if status != 401 || !strings.Contains(answer, "invalid_signature") {
				t.Errorf("replay after the restart: %d %s, want 401 invalid_signature", status, answer)
			}
			req, _ := http.NewRequest(http.MethodGet, again.base+"/api/v1/patients", nil)
			req.Header.Set("Authorization", "Bearer "+again.key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var page struct {
				Meta struct{ Total int } `json:"meta"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || page.Meta.Total != 1 {
				t.Errorf("patients after the replay: %d (%v), want 1", page.Meta.Total, err)
			}
		})
	}
}

// TestSeedLeavesSecretsRandom (issue 32, item 7): -seed makes ids and data reproducible, not
// secrets: two servers with the same seed print the same account but different API keys, and
// give different webhook secrets. -predictable-secrets (which needs -seed) derives them from
// the seed, for tests that compare whole answers.
func TestSeedLeavesSecretsRandom(t *testing.T) {
	t.Parallel()
	secrets := func(args ...string) (account, key, webhookSecret string) {
		p := startBinary(t, args...)
		status, answer := post(t, p.base+"/api/v1/webhooks", p.key, `{"url":"http://127.0.0.1:9/hook","events":["*"]}`)
		var w struct{ Secret string }
		if err := json.Unmarshal([]byte(answer), &w); status != 201 || err != nil || w.Secret == "" {
			t.Fatalf("webhook: %d %s", status, answer)
		}
		return p.account, p.key, w.Secret
	}
	seeded := []string{"-seed", "42", "-start", "2026-11-22T09:00:00Z"}
	a1, k1, w1 := secrets(seeded...)
	a2, k2, w2 := secrets(seeded...)
	if a1 != a2 {
		t.Errorf("the seed no longer makes ids reproducible: accounts %s, %s", a1, a2)
	}
	if k1 == k2 || w1 == w2 {
		t.Errorf("with -seed alone, secrets repeat: keys equal %v, webhook secrets equal %v", k1 == k2, w1 == w2)
	}
	predictable := append(seeded, "-predictable-secrets")
	_, k1, w1 = secrets(predictable...)
	_, k2, w2 = secrets(predictable...)
	if k1 != k2 || w1 != w2 {
		t.Errorf("-predictable-secrets: keys equal %v, webhook secrets equal %v", k1 == k2, w1 == w2)
	}
	if _, err := parse([]string{"-predictable-secrets"}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-quiet", "-predictable-secrets"}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "-seed") {
		t.Errorf("-predictable-secrets without -seed: %v", err)
	}
}
