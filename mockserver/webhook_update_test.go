package mockserver_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/webhooks"
)

// Webhook endpoint updates and secret rotation (docs/protocol.md §9 "Webhooks and events"),
// against a loopback receiver, on a frozen account clock moved by the test.

// hookReceiver records the deliveries a loopback receiver gets; answer scripts its status
// (nil: 204).
type hookReceiver struct {
	url    string
	mu     sync.Mutex
	got    []hookDelivery
	answer func(n int) int
}

type hookDelivery struct {
	header http.Header
	body   []byte
}

func newHookReceiver(t *testing.T, answer func(n int) int) *hookReceiver {
	t.Helper()
	rc := &hookReceiver{answer: answer}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, hookDelivery{r.Header.Clone(), b})
		n := len(rc.got)
		rc.mu.Unlock()
		status := http.StatusNoContent
		if rc.answer != nil {
			status = rc.answer(n)
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(ts.Close)
	rc.url = ts.URL + "/hook"
	return rc
}

// wait returns the first n deliveries once they have arrived.
func (rc *hookReceiver) wait(t *testing.T, n int) []hookDelivery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rc.mu.Lock()
		got := slices.Clone(rc.got)
		rc.mu.Unlock()
		if len(got) >= n {
			return got[:n]
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries after 10 s, want %d", len(got), n)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestWebhookSecretRotation: during the overlap every delivery verifies with the old secret and
// with the new one (the new one's signature first); from the expiry on the account's clock only
// the new one does; 0 drops the old at once; at most two secrets sign; a retried rotation with
// the same Idempotency-Key replays the same secret and rotates nothing.
func TestWebhookSecretRotation(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2030, 7, 1, 10, 0, 0, 0, time.UTC)
	c, acct := newWireAPIAt(t, t0)
	rc := newHookReceiver(t, func(n int) int {
		if n == 3 {
			return http.StatusInternalServerError // the third delivery is retried after 5 s
		}
		return http.StatusNoContent
	})
	var e webhooks.Endpoint
	c.expect(http.StatusCreated, http.MethodPost, "/api/v1/webhooks", `{"url":"`+rc.url+`","events":["patient.created"]}`, &e)
	s1 := e.Secret
	now := t0
	deliveries := 0
	// deliver makes one event and returns its delivery (and the retry's, when retried).
	deliver := func() hookDelivery {
		t.Helper()
		c.patient()
		deliveries++
		return rc.wait(t, deliveries)[deliveries-1]
	}
	// check asserts which of the secrets verify d at the account clock, and the signature order.
	check := func(what string, d hookDelivery, accepted []string, rejected ...string) {
		t.Helper()
		at := func() time.Time { return now }
		for _, s := range accepted {
			if _, err := webhooks.Verify(s, d.header, d.body, webhooks.WithNow(at)); err != nil {
				t.Fatalf("%s: a receiver with secret %s… refused the delivery: %v", what, s[:10], err)
			}
		}
		for _, s := range rejected {
			if _, err := webhooks.Verify(s, d.header, d.body, webhooks.WithNow(at)); !errors.Is(err, webhooks.ErrSignatureMismatch) {
				t.Fatalf("%s: a receiver with the retired secret %s… got %v, want ErrSignatureMismatch", what, s[:10], err)
			}
		}
		sigs := strings.Fields(d.header.Get(webhooks.HeaderSignature))
		if len(sigs) != len(accepted) {
			t.Fatalf("%s: %d signatures %q, want %d", what, len(sigs), sigs, len(accepted))
		}
		for i, s := range accepted {
			want, _ := webhooks.Sign(s, d.header.Get(webhooks.HeaderID), now, d.body)
			if sigs[i] != want {
				t.Fatalf("%s: signature %d is not secret %d's (the new one comes first)", what, i, i)
			}
		}
	}
	check("before any rotation", deliver(), []string{s1})

	// Rotate with a one-hour overlap.
	var rot webhooks.SecretRotation
	c.expect(http.StatusOK, http.MethodPost, "/api/v1/webhooks/"+e.ID+"/rotate-secret", `{"expiresInSeconds":3600}`, &rot,
		"Idempotency-Key: rotate-1")
	s2 := rot.Secret
	if s2 == s1 || !strings.HasPrefix(s2, webhooks.SecretPrefix) || rot.PreviousSecretExpiresAt == nil ||
		!rot.PreviousSecretExpiresAt.Equal(t0.Add(time.Hour)) {
		t.Fatalf("rotation = %+v", rot)
	}
	var again webhooks.SecretRotation
	h := c.expect(http.StatusOK, http.MethodPost, "/api/v1/webhooks/"+e.ID+"/rotate-secret", `{"expiresInSeconds":3600}`, &again,
		"Idempotency-Key: rotate-1")
	if again.Secret != s2 || h.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("a retried rotation: %+v, replayed %q", again, h.Get("Idempotent-Replayed"))
	}
	check("in the overlap", deliver(), []string{s2, s1})

	// A delivery that fails in the overlap is retried after it: the retry carries the new
	// signature only.
	c.env.Server.AdvanceTime(acct, time.Hour-3*time.Second)
	now = now.Add(time.Hour - 3*time.Second)
	check("the last second but two of the overlap", deliver(), []string{s2, s1}) // answered 500
	c.env.Server.AdvanceTime(acct, 5*time.Second)
	now = now.Add(5 * time.Second)
	deliveries++
	check("a retry after the expiry", rc.wait(t, deliveries)[deliveries-1], []string{s2}, s1)
	check("after the expiry", deliver(), []string{s2}, s1)

	// The test endpoint's delivery is signed the same way.
	c.expect(http.StatusOK, http.MethodPost, "/api/v1/webhooks/"+e.ID+"/rotate-secret", "", &rot) // bare: 86,400 s
	s3 := rot.Secret
	if rot.PreviousSecretExpiresAt == nil || !rot.PreviousSecretExpiresAt.Equal(now.Add(24*time.Hour)) {
		t.Fatalf("default overlap: %+v", rot)
	}
	var tr struct{ Delivered bool }
	c.expect(http.StatusOK, http.MethodPost, "/api/v1/webhooks/"+e.ID+"/test", "", &tr)
	deliveries++
	check("a test delivery", rc.wait(t, deliveries)[deliveries-1], []string{s3, s2}, s1)

	// Rotating again while the old secret is live replaces it: at most two secrets sign.
	c.expect(http.StatusOK, http.MethodPost, "/api/v1/webhooks/"+e.ID+"/rotate-secret", `{"expiresInSeconds":600}`, &rot)
	s4 := rot.Secret
	check("rotated twice", deliver(), []string{s4, s3}, s2, s1)

	// 0 drops the old secret at once.
	var raw map[string]any
	c.expect(http.StatusOK, http.MethodPost, "/api/v1/webhooks/"+e.ID+"/rotate-secret", `{"expiresInSeconds":0}`, &raw)
	s5, _ := raw["secret"].(string)
	if v, ok := raw["previousSecretExpiresAt"]; !ok || v != nil {
		t.Fatalf("rotation with 0: %v, want previousSecretExpiresAt null", raw)
	}
	check("rotated with 0", deliver(), []string{s5}, s4, s3)

	// The secret is never shown again: not by GET, nor by a PATCH.
	var got map[string]any
	c.expect(http.StatusOK, http.MethodGet, "/api/v1/webhooks/"+e.ID, "", &got)
	if _, shown := got["secret"]; shown {
		t.Fatalf("GET shows the secret: %v", got)
	}
}

// TestWebhookUpdate: a merge patch of url, events, description and enabled, with the null rules
// of the protocol; deliveries follow the new URL and events; an endpoint disabled and enabled
// again gets none of what happened meanwhile.
func TestWebhookUpdate(t *testing.T) {
	t.Parallel()
	c, acct := newWireAPIAt(t, time.Date(2030, 7, 1, 10, 0, 0, 0, time.UTC))
	first, second := newHookReceiver(t, nil), newHookReceiver(t, nil)
	var e webhooks.Endpoint
	c.expect(http.StatusCreated, http.MethodPost, "/api/v1/webhooks", `{"url":"`+first.url+`","events":["patient.created"],"description":"front desk"}`, &e)
	path := "/api/v1/webhooks/" + e.ID

	var patched map[string]any
	c.expect(http.StatusOK, http.MethodPatch, path, `{"url":"`+second.url+`","events":["refund.created","patient.created"],"description":null}`,
		&patched, "Content-Type: application/merge-patch+json")
	if patched["url"] != second.url || patched["description"] != nil && patched["description"] != "" || patched["enabled"] != true ||
		patched["createdAt"] == nil || patched["secret"] != nil {
		t.Fatalf("patched = %v", patched)
	}
	var ep webhooks.Endpoint
	c.expect(http.StatusOK, http.MethodGet, path, "", &ep)
	if ep.URL != second.url || !slices.Equal(ep.Events, []webhooks.EventType{"refund.created", "patient.created"}) || ep.Description != "" ||
		!ep.Enabled || !ep.CreatedAt.Equal(e.CreatedAt) {
		t.Fatalf("after the patch: %+v", ep)
	}
	// Deliveries go to the new URL, still signed with the endpoint's secret.
	c.patient()
	d := second.wait(t, 1)[0]
	if _, err := webhooks.Verify(e.Secret, d.header, d.body, webhooks.WithNow(func() time.Time { return c.env.Server.Now(acct) })); err != nil {
		t.Fatalf("delivery to the new URL: %v", err)
	}

	// Disabled: nothing is delivered; enabled again (null restores the default, true): only what
	// happens from then on.
	c.expect(http.StatusOK, http.MethodPatch, path, `{"enabled":false}`, &ep)
	if ep.Enabled {
		t.Fatal("still enabled")
	}
	missed := c.patient()
	c.expect(http.StatusOK, http.MethodPatch, path, `{"enabled":null}`, &ep)
	if !ep.Enabled {
		t.Fatal("null did not restore enabled")
	}
	after := c.patient()
	got := second.wait(t, 2)
	if !strings.Contains(string(got[1].body), after) {
		t.Fatalf("second delivery %s, want the patient made after re-enabling", got[1].body)
	}
	for _, d := range got {
		if strings.Contains(string(d.body), missed) {
			t.Fatalf("the event missed while disabled was replayed: %s", d.body)
		}
	}
	first.mu.Lock()
	old := len(first.got)
	first.mu.Unlock()
	if old != 0 {
		t.Fatalf("%d deliveries to the old URL", old)
	}

	// A patch that changes nothing answers the endpoint as it is.
	var same webhooks.Endpoint
	c.expect(http.StatusOK, http.MethodPatch, path, `{"enabled":true,"events":["refund.created","patient.created"]}`, &same)
	if same.URL != ep.URL || !same.Enabled {
		t.Fatalf("no-op patch: %+v", same)
	}
	// Scope: webhooks:read may read but not patch or rotate.
	reader := c.env.NewKey(t, mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"webhooks:read"}, Account: acct})
	r := c
	r.key = reader.Key
	r.expect(http.StatusOK, http.MethodGet, path, "", nil)
	r.problem(403, "insufficient_scope", http.MethodPatch, path, `{"enabled":false}`)
	r.problem(403, "insufficient_scope", http.MethodPost, path+"/rotate-secret", "")
	c.expect(http.StatusOK, http.MethodGet, path, "", &ep)
	if !ep.Enabled {
		t.Fatal("a denied patch changed the endpoint")
	}
}
