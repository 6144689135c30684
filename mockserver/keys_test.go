package mockserver_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
)

// keyLife serves the key lifecycle tests: a server over a loopback listener (traffic validated
// against the OpenAPI document) and its admin surface.
type keyLife struct {
	env *testenv.Env
}

func newKeyLife(t *testing.T) keyLife { return keyLife{env: testenv.New(t, nil)} }

// admin sends an admin request as test code does (JSON when it has a body).
func (l keyLife) admin(t *testing.T, method, path, body string, headers ...string) adminAnswer {
	t.Helper()
	return adminCall{method, path, body, headers}.do(t, l.env.URL)
}

// createKey creates a key over the admin surface.
func (l keyLife) createKey(t *testing.T, body string) mockserver.APIKey {
	t.Helper()
	got := l.admin(t, "POST", "/__admin/api-keys", body)
	var k mockserver.APIKey
	if got.status != 201 || json.Unmarshal(got.body, &k) != nil {
		t.Fatalf("creating a key: %d %s", got.status, got.body)
	}
	return k
}

// get is GET /api/v1/patients with a bearer secret: status and answer.
func (l keyLife) get(t *testing.T, bearer string) (*http.Response, []byte) {
	t.Helper()
	return l.env.Do(t, "GET", "/api/v1/patients", "", "Authorization: Bearer "+bearer)
}

func (l keyLife) status(t *testing.T, bearer string) int {
	t.Helper()
	resp, _ := l.get(t, bearer)
	return resp.StatusCode
}

// auditOf returns the account's audit events "actor action resourceType resourceId" whose
// resource is an API key.
func (l keyLife) keyAudit(t *testing.T, account string) []string {
	t.Helper()
	// Not checked against the admin document: the audit log's paging members are issue 18's.
	got := adminCall{"GET", "/__admin/audit-events?account=" + account, "", nil}.send(t, l.env.URL, false)
	var a struct {
		Events []struct {
			Actor, Action, ResourceType, ResourceID, Outcome, RequestID string
		}
		Verified bool
	}
	if err := json.Unmarshal(got.body, &a); err != nil || !a.Verified {
		t.Fatalf("audit: %v %s", err, got.body)
	}
	var out []string
	for _, e := range a.Events {
		if e.ResourceType == "apiKey" {
			if e.Outcome != "success" || !requestIDShape.MatchString(e.RequestID) {
				t.Errorf("audit event %+v", e)
			}
			out = append(out, e.Actor+" "+e.Action+" "+e.ResourceType+" "+e.ResourceID)
		}
	}
	return out
}

func TestRevokeAPIKey(t *testing.T) {
	t.Parallel()
	l := newKeyLife(t)
	k := l.createKey(t, `{"plan":"starter","scopes":["*"]}`)
	other := l.env.NewKey(t, mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}, Account: k.Account})
	if resp, b := l.env.Do(t, "POST", "/api/v1/patients", patientJSON, "Authorization: Bearer "+k.Key); resp.StatusCode != 201 {
		t.Fatalf("before: %d %s", resp.StatusCode, b)
	}
	got := l.admin(t, "DELETE", "/__admin/api-keys/"+k.ID, "")
	if got.status != 204 || len(got.body) != 0 {
		t.Fatalf("revoke: %d %q", got.status, got.body)
	}
	resp, b := l.get(t, k.Key)
	if resp.StatusCode != 401 || code(b) != "unauthorized" || resp.Header.Get("WWW-Authenticate") != `Bearer realm="medspa"` {
		t.Fatalf("a revoked key: %d %s", resp.StatusCode, b)
	}
	// The account and its records stay, for its other keys.
	if _, b := l.get(t, other.Key); !strings.Contains(string(b), `"total":1`) {
		t.Fatalf("the account's data after a revocation: %s", b)
	}
	// Twice, unknown, malformed: 404 not_found (a malformed id never reaches the registry).
	for _, id := range []string{k.ID, "key_" + strings.Repeat("0", 32), "..", ".", "key_..", "key_" + strings.Repeat("A", 32),
		strings.Replace(other.ID, "key_", "pat_", 1), "%2e%2e", "key_%00"} {
		if got := l.admin(t, "DELETE", "/__admin/api-keys/"+id, ""); got.status != 404 || got.code != "not_found" {
			t.Errorf("DELETE %s: %d %s", id, got.status, got.body)
		}
	}
	if l.status(t, other.Key) != 200 {
		t.Fatal("a failed revocation touched another key")
	}
	if got := l.keyAudit(t, k.Account); !slices.Equal(got, []string{"admin delete apiKey " + k.ID}) {
		t.Fatalf("audit %q", got)
	}
	// The Go method does the same, and says 404 the second time.
	if err := l.env.Server.RevokeAPIKey(other.ID); err != nil {
		t.Fatal(err)
	}
	if l.status(t, other.Key) != 401 {
		t.Fatal("revoked in Go, still works")
	}
	var p interface{ Error() string }
	if err := l.env.Server.RevokeAPIKey(other.ID); err == nil || !errors.As(err, &p) || !strings.Contains(err.Error(), "404 not_found") {
		t.Fatalf("revoking twice in Go: %v", err)
	}
}

// rotation is the answer of a rotation.
type rotation struct {
	mockserver.APIKey
	PreviousKeyExpiresAt *time.Time `json:"previousKeyExpiresAt"`
}

func TestRotateAPIKey(t *testing.T) {
	t.Parallel()
	l := newKeyLife(t)
	k := l.createKey(t, `{"plan":"custom","ratePerMinute":60,"burst":10,"daily":100,"scopes":["patients:read"],"allowedIps":["127.0.0.1"],"expiresAt":"2030-01-01T00:00:00Z"}`)
	l.env.Server.SetTime(k.Account, t0.Add(500*time.Millisecond)) // the grace period ends on a whole second, never early

	got := l.admin(t, "POST", "/__admin/api-keys/"+k.ID+"/rotate", `{"graceSeconds":60}`)
	var r rotation
	if got.status != 200 || json.Unmarshal(got.body, &r) != nil {
		t.Fatalf("rotate: %d %s", got.status, got.body)
	}
	if !strings.HasPrefix(r.Key, "msk_test_") || len(r.Key) != len(k.Key) || r.Key == k.Key {
		t.Fatalf("new key %q", r.Key)
	}
	wantKey := k
	wantKey.Key, wantKey.AllowedIPs = r.Key, []string{"127.0.0.1/32"}
	if gotJSON, wantJSON := mustJSON(t, r.APIKey), mustJSON(t, wantKey); gotJSON != wantJSON {
		t.Fatalf("everything but the secret stays:\n got %s\nwant %s", gotJSON, wantJSON)
	}
	if r.PreviousKeyExpiresAt == nil || !r.PreviousKeyExpiresAt.Equal(t0.Add(61*time.Second)) {
		t.Fatalf("previousKeyExpiresAt %v, want %v", r.PreviousKeyExpiresAt, t0.Add(61*time.Second))
	}
	// Both secrets work in the grace period, on one rate limit.
	remaining := func(bearer string) string {
		resp, b := l.get(t, bearer)
		if resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
		return resp.Header.Get("X-RateLimit-Remaining")
	}
	if a, b := remaining(k.Key), remaining(r.Key); a != "9" || b != "8" {
		t.Fatalf("the two secrets do not share the bucket: %s then %s", a, b)
	}
	l.env.Server.AdvanceTime(k.Account, 60*time.Second) // 0.5 s before the end
	if l.status(t, k.Key) != 200 {
		t.Fatal("the old secret stopped before its time")
	}
	l.env.Server.AdvanceTime(k.Account, 500*time.Millisecond)
	if l.status(t, k.Key) != 401 || l.status(t, r.Key) != 200 {
		t.Fatal("after the grace period the old secret must be refused and the new one work")
	}

	// At most two secrets: rotating again ends the one still in its grace period.
	r2 := l.rotate(t, k.ID, `{"graceSeconds":86400}`)
	r3 := l.rotate(t, k.ID, `{"graceSeconds":86400}`)
	if l.status(t, r.Key) != 401 || l.status(t, r2.Key) != 200 || l.status(t, r3.Key) != 200 {
		t.Fatal("three secrets after two rotations with grace")
	}
	// No grace (0, or no body at all): the old secret stops at once.
	r4 := l.rotate(t, k.ID, `{"graceSeconds":0}`)
	if r4.PreviousKeyExpiresAt != nil || l.status(t, r3.Key) != 401 || l.status(t, r2.Key) != 401 {
		t.Fatalf("graceSeconds 0: %v", r4.PreviousKeyExpiresAt)
	}
	r5 := l.rotate(t, k.ID, "")
	if r5.PreviousKeyExpiresAt != nil || l.status(t, r4.Key) != 401 || l.status(t, r5.Key) != 200 {
		t.Fatal("a rotation without a body")
	}
	if got := l.keyAudit(t, k.Account); len(got) != 5 || got[0] != "admin update apiKey "+k.ID {
		t.Fatalf("audit %q", got)
	}

	// Bad rotations change nothing: 415, 400, 422 (before 404), 404.
	id := "/__admin/api-keys/" + k.ID + "/rotate"
	unknown := "/__admin/api-keys/key_" + strings.Repeat("0", 32) + "/rotate"
	for _, tc := range []struct {
		path, body string
		headers    []string
		status     int
		fields     string
	}{
		{id, `{"graceSeconds":1}`, []string{"Content-Type: text/plain"}, 415, ""},
		{id, "", []string{"Content-Type:"}, 415, ""},
		{id, `{"graceSeconds":`, nil, 400, ""},
		{id, `{"graceSeconds":-1}`, nil, 422, "/graceSeconds out_of_range"},
		{id, `{"graceSeconds":86401}`, nil, 422, "/graceSeconds out_of_range"},
		{id, `{"graceSeconds":99999999999999999999}`, nil, 422, "/graceSeconds out_of_range"},
		{id, `{"graceSeconds":1.5}`, nil, 422, "/graceSeconds invalid_value"},
		{id, `{"graceSeconds":"60"}`, nil, 422, "/graceSeconds invalid_value"},
		{id, `{"graceSeconds":true}`, nil, 422, "/graceSeconds invalid_value"},
		{id, `{"grace":60}`, nil, 422, "/grace unknown_field"},
		{unknown, `{"graceSeconds":-1}`, nil, 422, "/graceSeconds out_of_range"},
		{unknown, `{"graceSeconds":1}`, nil, 404, ""},
		{"/__admin/api-keys/../rotate", `{}`, nil, 404, ""},
		{"/__admin/api-keys/key_..%2F/rotate", `{}`, nil, 404, ""},
	} {
		got := l.admin(t, "POST", tc.path, tc.body, tc.headers...)
		var p struct {
			Errors []struct{ Pointer, Code string }
		}
		_ = json.Unmarshal(got.body, &p)
		var fields []string
		for _, e := range p.Errors {
			fields = append(fields, e.Pointer+" "+e.Code)
		}
		if got.status != tc.status || strings.Join(fields, ",") != tc.fields {
			t.Errorf("POST %s %s: %d %s", tc.path, tc.body, got.status, got.body)
		}
	}
	if l.status(t, r5.Key) != 200 {
		t.Fatal("a refused rotation changed the key")
	}
	// Revoked keys cannot be rotated, and a revocation ends a secret in its grace period too.
	r6 := l.rotate(t, k.ID, `{"graceSeconds":600}`)
	if got := l.admin(t, "DELETE", "/__admin/api-keys/"+k.ID, ""); got.status != 204 {
		t.Fatal(got.status)
	}
	if l.status(t, r5.Key) != 401 || l.status(t, r6.Key) != 401 {
		t.Fatal("a revoked key's secrets still work")
	}
	if got := l.admin(t, "POST", id, `{"graceSeconds":1}`); got.status != 404 || got.code != "not_found" {
		t.Fatalf("rotating a revoked key: %d %s", got.status, got.body)
	}
}

func (l keyLife) rotate(t *testing.T, id, body string) rotation {
	t.Helper()
	got := l.admin(t, "POST", "/__admin/api-keys/"+id+"/rotate", body, "Content-Type: application/json")
	var r rotation
	if got.status != 200 || json.Unmarshal(got.body, &r) != nil {
		t.Fatalf("rotate: %d %s", got.status, got.body)
	}
	return r
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRotateKeepsTheSigningSecret: a signed request made with the new bearer secret and the
// unchanged signing secret verifies; the Go method rotates as the admin endpoint does.
func TestRotateKeepsTheSigningSecret(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	k := env.NewKey(t, mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}, SigningRequired: true})
	env.Server.SetTime(k.Account, t0)
	r, err := env.Server.RotateAPIKey(k.ID, 90*time.Second+time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != k.ID || r.SigningSecret != k.SigningSecret || r.Key == k.Key || !r.SigningRequired ||
		r.PreviousKeyExpiresAt == nil || !r.PreviousKeyExpiresAt.Equal(t0.Add(91*time.Second)) {
		t.Fatalf("rotation %+v", r)
	}
	for _, bearer := range []string{k.Key, r.Key} {
		signer := k
		signer.Key = bearer
		if resp, b := send(t, env, signedReq(t, env, signer, "GET", "/api/v1/patients", "", t0, nil)); resp.StatusCode != 200 {
			t.Fatalf("signed with %s: %d %s", bearer[:12], resp.StatusCode, b)
		}
	}
	for _, grace := range []time.Duration{-time.Second, 24*time.Hour + time.Second} {
		if _, err := env.Server.RotateAPIKey(k.ID, grace); err == nil || !strings.Contains(err.Error(), "422") {
			t.Errorf("grace %v: %v", grace, err)
		}
	}
	if _, err := env.Server.RotateAPIKey("key_nope", 0); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("unknown key: %v", err)
	}
}

// TestRotatedKeysSurviveSaveAndLoad: a saved state keeps the rotated key and its old secret's
// grace period.
func TestRotatedKeysSurviveSaveAndLoad(t *testing.T) {
	t.Parallel()
	key := make([]byte, 32)
	a := newServer(t, mockserver.WithPHIKey(key))
	k := newKey(t, a, "")
	a.SetTime(k.Account, t0)
	r, err := a.RotateAPIKey(k.ID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	revoked := newKey(t, a, k.Account)
	if err := a.RevokeAPIKey(revoked.ID); err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	if err := a.SaveState(&buf); err != nil {
		t.Fatal(err)
	}
	b := newServer(t, mockserver.WithPHIKey(key))
	if err := b.LoadState(strings.NewReader(buf.String())); err != nil {
		t.Fatal(err)
	}
	b.SetTime(k.Account, t0)
	for bearer, want := range map[string]int{k.Key: 200, r.Key: 200, revoked.Key: 401} {
		if st, _, _ := raw(t, b, bearer, "GET", "/api/v1/patients", ""); st != want {
			t.Errorf("after load, %s…: %d, want %d", bearer[:14], st, want)
		}
	}
	b.AdvanceTime(k.Account, time.Minute)
	if st, _, _ := raw(t, b, k.Key, "GET", "/api/v1/patients", ""); st != 401 {
		t.Errorf("after load, the old secret outlived its grace period: %d", st)
	}
	if _, err := b.RotateAPIKey(k.ID, 0); err != nil {
		t.Errorf("rotating a loaded key: %v", err)
	}
	if st, _, _ := raw(t, b, r.Key, "GET", "/api/v1/patients", ""); st != 401 {
		t.Errorf("a loaded key's secrets are not one key's: %d", st)
	}
}
