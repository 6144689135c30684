package mockserver_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
)

// TestLargeSignedBodies: a signed body over 1 MiB is verified as strictly as a small one — its
// digest over the whole body, its created time, its nonce — and then refused 413 in its place in
// the order of checks (docs/protocol.md §4, §6). A tampered, stale or replayed one is 401
// invalid_signature and consumes nothing: a replay of a victim's large request cannot burn the
// victim's rate limit. A signed body too long to hash (over 16 MiB) is 413 at once, also
// consuming nothing.
func TestLargeSignedBodies(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	k := env.NewKey(t, mockserver.APIKeyParams{Plan: "custom", RatePerMinute: 60, Burst: 10, Daily: 100,
		Scopes: []string{"*"}, SigningRequired: true})
	env.Server.SetTime(k.Account, t0)
	big := `{"firstName":"A","lastName":"B","email":"a@example.com","notes":"` + strings.Repeat("x", 1<<20) + `"}`

	// remaining is the bucket after one small signed request (which itself takes a token).
	remaining := func() string {
		t.Helper()
		resp, b := send(t, env, signedReq(t, env, k, "GET", "/api/v1/patients", "", t0, nil))
		if resp.StatusCode != 200 {
			t.Fatalf("probe: %d %s", resp.StatusCode, b)
		}
		return resp.Header.Get("X-RateLimit-Remaining")
	}
	if got := remaining(); got != "9" {
		t.Fatalf("start: %s tokens left", got)
	}

	// A valid large signed request passes the signature and the limiter, then gets 413.
	req := signedReq(t, env, k, "POST", "/api/v1/patients", big, t0, nil)
	replay := req.Clone(req.Context()) // the same headers: signature, nonce, digest
	resp, b := send(t, env, invalid(req))
	if resp.StatusCode != 413 || code(b) != "payload_too_large" || resp.Header.Get("X-RateLimit-Remaining") != "8" {
		t.Fatalf("valid large signed request: %d %s (remaining %q)", resp.StatusCode, b, resp.Header.Get("X-RateLimit-Remaining"))
	}
	if resp.Header.Get("Signature") == "" {
		t.Error("the answer to a verified signed request is not signed")
	}

	refusals := []struct {
		name   string
		req    func() *http.Request
		detail string
	}{
		{"replay", func() *http.Request {
			replay.Body, replay.GetBody, replay.ContentLength = nopBody(big), nil, int64(len(big))
			return replay
		}, "nonce"},
		{"body changed past the first MiB", func() *http.Request {
			return signedReq(t, env, k, "POST", "/api/v1/patients", big, t0, func(r *http.Request) {
				tampered := big[:len(big)-3] + `y"}`
				r.Body, r.ContentLength = nopBody(tampered), int64(len(tampered))
			})
		}, "Content-Digest"},
		{"body cut", func() *http.Request {
			return signedReq(t, env, k, "POST", "/api/v1/patients", big, t0, func(r *http.Request) {
				cut := big[:(1<<20)+10]
				r.Body, r.ContentLength = nopBody(cut), int64(len(cut))
			})
		}, "Content-Digest"},
		{"stale", func() *http.Request {
			return signedReq(t, env, k, "POST", "/api/v1/patients", big, t0.Add(-301*time.Second), nil)
		}, "300 seconds"},
		{"another route, stale", func() *http.Request {
			return signedReq(t, env, k, "POST", "/api/v1/nowhere", big, t0.Add(301*time.Second), nil)
		}, "300 seconds"},
	}
	for _, tc := range refusals {
		resp, b := send(t, env, invalid(tc.req()))
		if resp.StatusCode != 401 || code(b) != "invalid_signature" || !strings.Contains(string(b), tc.detail) {
			t.Errorf("%s: %d %s, want 401 invalid_signature (%s)", tc.name, resp.StatusCode, b, tc.detail)
		}
		if resp.Header.Get("RateLimit") != "" {
			t.Errorf("%s: the refusal carries rate-limit state: it must consume nothing", tc.name)
		}
	}
	if got := remaining(); got != "7" {
		t.Fatalf("after the refusals %s tokens are left, want 7 (only the valid request and the probes consume)", got)
	}

	// Over 16 MiB (httpapi.MaxSignedBodyBytes): 413 before the signature, the limiter or the nonce cache.
	huge := `{"notes":"` + strings.Repeat("z", 16<<20) + `"}`
	resp, b = send(t, env, invalid(signedReq(t, env, k, "POST", "/api/v1/patients", huge, t0, nil)))
	if resp.StatusCode != 413 || code(b) != "payload_too_large" || resp.Header.Get("RateLimit") != "" {
		t.Fatalf("16 MiB+ signed body: %d %.200s (RateLimit %q)", resp.StatusCode, b, resp.Header.Get("RateLimit"))
	}
	// The order of checks stays: a large signed body on an unknown route is 404 once verified.
	resp, b = send(t, env, invalid(signedReq(t, env, k, "POST", "/api/v1/nowhere", big, t0, nil)))
	if resp.StatusCode != 404 || code(b) != "not_found" {
		t.Fatalf("large signed body, unknown route: %d %.200s", resp.StatusCode, b)
	}
	if got := remaining(); got != "5" {
		t.Fatalf("%s tokens left, want 5", got)
	}
	reader := env.NewKey(t, mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}, Account: k.Account})
	if _, b := env.Do(t, "GET", "/api/v1/patients", "", "Authorization: Bearer "+reader.Key); !strings.Contains(string(b), `"total":0`) {
		t.Fatalf("patients created: %.300s", b)
	}
}

func nopBody(s string) io.ReadCloser { return io.NopCloser(strings.NewReader(s)) }
