package mockserver_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver"
)

func do(t *testing.T, method, url string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestHealthEndpoints: /healthz and /readyz answer without credentials, as often as asked (no
// rate limit), leave nothing in the journal or the audit log, and /readyz turns 503 with the
// reason while the data directory cannot be written, then ready again.
func TestHealthEndpoints(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	ts := mockserver.NewTest(t, mockserver.WithLoopbackListener(), mockserver.WithDataDir(dir))
	for i := range 50 {
		for path, want := range map[string]string{"/healthz": `{"status":"ok"}`, "/readyz": `{"status":"ready"}`} {
			resp, body := do(t, http.MethodGet, ts.BaseURL+path, nil)
			if resp.StatusCode != http.StatusOK || strings.TrimSpace(body) != want || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("#%d %s: %d %q", i, path, resp.StatusCode, body)
			}
		}
	}
	if resp, body := do(t, http.MethodHead, ts.BaseURL+"/readyz", nil); resp.StatusCode != http.StatusOK || body != "" {
		t.Fatalf("HEAD: %d %q", resp.StatusCode, body)
	}
	if resp, _ := do(t, http.MethodPost, ts.BaseURL+"/healthz", nil); resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Fatalf("POST: %d %v", resp.StatusCode, resp.Header)
	}
	for _, e := range ts.Server.Requests("") {
		if strings.HasSuffix(e.Path, "z") {
			t.Fatalf("journaled: %+v", e)
		}
	}
	if ev := ts.Server.AuditEvents(mockserver.AnonymousAudit); len(ev) != 0 {
		t.Fatalf("audited: %+v", ev)
	}

	// The data directory goes away (a volume unmounted, read-only): not ready, with the reason.
	moved := dir + ".away"
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // the check runs at most once a second
	if resp, body := do(t, http.MethodGet, ts.BaseURL+"/readyz", nil); resp.StatusCode != http.StatusServiceUnavailable ||
		!strings.Contains(body, `"status":"not_ready"`) || !strings.Contains(body, "not writable") || strings.Contains(body, filepath.Base(filepath.Dir(dir))) {
		t.Fatalf("unwritable: %d %s (the reason, without the directory's path)", resp.StatusCode, body)
	}
	if resp, _ := do(t, http.MethodGet, ts.BaseURL+"/healthz", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz while not ready: %d", resp.StatusCode)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(moved, dir); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	if resp, body := do(t, http.MethodGet, ts.BaseURL+"/readyz", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("back: %d %s", resp.StatusCode, body)
	}
}

// TestCORS: an allowed origin's preflight is answered without credentials and its requests to
// /api/v1 (and /v1) carry CORS headers; another origin gets none; the admin surface never does.
func TestCORS(t *testing.T) {
	t.Parallel()
	const allowed = "http://localhost:5173"
	ts := mockserver.NewTest(t, mockserver.WithLoopbackListener(), mockserver.WithCORSOrigins(allowed, "https://app.example.test"))
	preflight := map[string]string{"Origin": allowed, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type"}
	resp, _ := do(t, http.MethodOptions, ts.BaseURL+"/api/v1/patients", preflight)
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != allowed ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Authorization") ||
		!strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	auth := "Bearer " + ts.Key.Key
	for _, path := range []string{"/api/v1/patients", "/v1/patients"} {
		resp, _ = do(t, http.MethodGet, ts.BaseURL+path, map[string]string{"Origin": allowed, "Authorization": auth})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != allowed ||
			!strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "X-Request-Id") || resp.Header.Get("Vary") != "Origin" {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, resp.Header)
		}
	}
	other := map[string]string{"Origin": "http://evil.example.test", "Access-Control-Request-Method": "POST", "Authorization": auth}
	for _, m := range []string{http.MethodOptions, http.MethodGet} {
		resp, _ = do(t, m, ts.BaseURL+"/api/v1/patients", other)
		if v := resp.Header.Get("Access-Control-Allow-Origin"); v != "" || resp.StatusCode == http.StatusNoContent {
			t.Fatalf("%s from another origin: %d, Access-Control-Allow-Origin %q", m, resp.StatusCode, v)
		}
	}
	for _, m := range []string{http.MethodOptions, http.MethodGet} {
		h := map[string]string{"Origin": allowed, "Access-Control-Request-Method": "GET"}
		resp, body := do(t, m, ts.BaseURL+"/__admin/requests", h)
		if resp.Header.Get("Access-Control-Allow-Origin") != "" || resp.StatusCode != http.StatusForbidden {
			t.Fatalf("admin %s: %d %v %s", m, resp.StatusCode, resp.Header, body)
		}
	}
	if _, err := mockserver.New(mockserver.WithCORSOrigins("http://localhost:5173/")); err == nil || !strings.Contains(err.Error(), "CORS origin") {
		t.Fatalf("a path in an origin: %v", err)
	}
}

// TestKnownKey: a key created with its own secret (what medspa-mock -api-key does) works from
// its first request; a malformed or already registered secret is refused.
func TestKnownKey(t *testing.T) {
	t.Parallel()
	ts := mockserver.NewTest(t, mockserver.WithLoopbackListener())
	const secret = "msk_test_0123456789abcdefghijABCDEFGHIJ01"
	k, err := ts.CreateAPIKey(mockserver.APIKeyParams{Key: secret, Plan: "starter", Scopes: []string{"patients:read"}, Account: ts.Account})
	if err != nil || k.Key != secret || k.Account != ts.Account {
		t.Fatalf("%+v, %v", k, err)
	}
	if resp, body := do(t, http.MethodGet, ts.BaseURL+"/api/v1/patients", map[string]string{"Authorization": "Bearer " + secret}); resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	for _, bad := range []string{secret, ts.Key.Key, "msk_test_short", "msk_live_0123456789abcdefghijABCDEFGHIJ01"} {
		if _, err := ts.CreateAPIKey(mockserver.APIKeyParams{Key: bad, Plan: "starter", Scopes: []string{"*"}}); err == nil {
			t.Errorf("%s… was registered", bad[:12])
		}
	}
}
