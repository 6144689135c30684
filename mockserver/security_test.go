package mockserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/httpsig"
	"github.com/medspa/medspa-go/internal/testing/oapitest"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// code returns the problem code of a body ("" if none).
func code(body []byte) string {
	var p struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(body, &p)
	return p.Code
}

const patientJSON = `{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com"}`

func TestIPAllowlist(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		trusted bool
		allowed []string
		xff     string
		want    int
	}{
		{"v4 loopback in list", false, []string{"127.0.0.0/8"}, "", 200},
		{"v4 single address", false, []string{"127.0.0.1"}, "", 200},
		{"v4 not in list", false, []string{"10.0.0.0/8"}, "", 403},
		{"xff ignored when untrusted", false, []string{"10.0.0.0/8"}, "10.1.2.3", 403},
		{"xff trusted v4", true, []string{"10.0.0.0/8"}, "10.1.2.3", 200},
		{"xff trusted: the proxy's hop counts", true, []string{"10.0.0.0/8"}, "192.168.1.1, 10.1.2.3", 200},
		{"xff trusted: a forged first hop does not", true, []string{"10.0.0.0/8"}, "10.1.2.3, 192.168.1.1", 403},
		{"xff trusted v4 outside", true, []string{"10.0.0.0/8"}, "192.168.1.1", 403},
		{"xff trusted v6", true, []string{"2001:db8::/32"}, "2001:db8::17", 200},
		{"xff trusted v6 outside", true, []string{"2001:db8::/32"}, "2001:db9::1", 403},
		{"xff v4-mapped v6", true, []string{"10.0.0.0/8"}, "::ffff:10.0.0.9", 200},
		{"v6 list, v4 caller", false, []string{"::1/128"}, "", 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []mockserver.Option
			if tt.trusted {
				opts = append(opts, mockserver.WithTrustedProxy())
			}
			env := testenv.New(t, opts)
			k := env.NewKey(t, mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}, AllowedIPs: tt.allowed})
			h := []string{"Authorization: Bearer " + k.Key}
			if tt.xff != "" {
				h = append(h, "X-Forwarded-For: "+tt.xff)
			}
			resp, body := env.Do(t, "GET", "/api/v1/patients", "", h...)
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d %s, want %d", resp.StatusCode, body, tt.want)
			}
			if tt.want == 403 && code(body) != "ip_not_allowed" {
				t.Fatalf("code %s", body)
			}
		})
	}
	env := testenv.New(t, nil)
	if _, err := env.Server.CreateAPIKey(mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}, AllowedIPs: []string{"10.0.0.0/33", "nope"}}); err == nil {
		t.Fatal("invalid CIDRs accepted")
	}
}

// signedReq builds a signed request for key k; mutate runs after signing.
func signedReq(t *testing.T, env *testenv.Env, k mockserver.APIKey, method, path, body string, created time.Time, mutate func(*http.Request)) *http.Request {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, env.URL+path, rd)
	req.Header.Set("Authorization", "Bearer "+k.Key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	key, err := httpsig.ParseSecret(k.SigningSecret)
	if err != nil {
		t.Fatal(err)
	}
	if err := httpsig.SignRequest(req, []byte(body), k.ID, key, created); err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(req)
	}
	return req
}

// invalid marks a request that breaks the OpenAPI document on purpose.
func invalid(req *http.Request) *http.Request {
	return req.WithContext(oapitest.WithoutRequestValidation(req.Context()))
}

func send(t *testing.T, env *testenv.Env, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := env.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestSignatureVerification(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	k := env.NewKey(t, mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}, SigningRequired: true})
	env.Server.SetTime(k.Account, t0)
	key, _ := httpsig.ParseSecret(k.SigningSecret)

	// A good signed POST: accepted, and the response is signed, bound to the request.
	req := signedReq(t, env, k, "POST", "/api/v1/patients", patientJSON, t0, nil)
	resp, body := send(t, env, req)
	if resp.StatusCode != 201 {
		t.Fatalf("signed POST: %d %s", resp.StatusCode, body)
	}
	if err := httpsig.VerifyResponse(resp.StatusCode, resp.Header, body, "POST", req.URL.String(), key); err != nil {
		t.Fatalf("response signature: %v", err)
	}
	if err := httpsig.VerifyResponse(resp.StatusCode, resp.Header, body, "GET", req.URL.String(), key); err == nil {
		t.Fatal("response signature not bound to the request method")
	}
	// Errors after the signature check are signed too (here a 404 from routing and a 422).
	for _, tc := range []struct{ method, path, body string }{{"GET", "/api/v1/nowhere", ""}, {"POST", "/api/v1/patients", `{}`}} {
		req := signedReq(t, env, k, tc.method, tc.path, tc.body, t0, nil)
		resp, body := send(t, env, invalid(req))
		if resp.StatusCode < 400 {
			t.Fatalf("%s %s: %d", tc.method, tc.path, resp.StatusCode)
		}
		if err := httpsig.VerifyResponse(resp.StatusCode, resp.Header, body, tc.method, req.URL.String(), key); err != nil {
			t.Fatalf("%s %s error response signature: %v", tc.method, tc.path, err)
		}
	}
	// The /v1 alias and a query string: @target-uri is what the client used.
	req = signedReq(t, env, k, "GET", "/v1/patients?perPage=5", "", t0, nil)
	if resp, body := send(t, env, req); resp.StatusCode != 200 {
		t.Fatalf("alias: %d %s", resp.StatusCode, body)
	}

	other := env.NewKey(t, mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}})
	rejections := []struct {
		name   string
		req    func() *http.Request
		detail string
	}{
		{"missing", func() *http.Request {
			return signedReq(t, env, k, "GET", "/api/v1/patients", "", t0, func(r *http.Request) { r.Header.Del("Signature"); r.Header.Del("Signature-Input") })
		}, "must be signed"},
		{"wrong key", func() *http.Request {
			// k's key id and bearer key, but signed with another key's secret.
			forged := other
			forged.Key, forged.ID = k.Key, k.ID
			return signedReq(t, env, forged, "GET", "/api/v1/patients", "", t0, nil)
		}, "does not verify"},
		{"wrong keyid", func() *http.Request {
			o := k
			o.ID = other.ID
			return signedReq(t, env, o, "GET", "/api/v1/patients", "", t0, nil)
		}, "keyid"},
		{"tampered path", func() *http.Request {
			return signedReq(t, env, k, "GET", "/api/v1/patients", "", t0, func(r *http.Request) { r.URL.RawQuery = "perPage=1" })
		}, "does not verify"},
		{"tampered authorization", func() *http.Request {
			return signedReq(t, env, k, "GET", "/api/v1/patients", "", t0, func(r *http.Request) { r.Header.Set("Authorization", "bearer "+k.Key) })
		}, "does not verify"},
		{"digest mismatch", func() *http.Request {
			return signedReq(t, env, k, "POST", "/api/v1/patients", patientJSON, t0, func(r *http.Request) {
				b := strings.Replace(patientJSON, "Ada", "Eve", 1)
				r.Body, r.ContentLength = io.NopCloser(strings.NewReader(b)), int64(len(b))
			})
		}, "Content-Digest"},
		{"body without digest component", func() *http.Request {
			// Signed as a body-less request, then a body is added: content-digest is not covered.
			return signedReq(t, env, k, "POST", "/api/v1/patients", "", t0, func(r *http.Request) {
				r.Header.Set("Content-Type", "application/json")
				r.Body, r.ContentLength = io.NopCloser(strings.NewReader(patientJSON)), int64(len(patientJSON))
			})
		}, "required component"},
		{"other algorithm", func() *http.Request {
			return signedReq(t, env, k, "GET", "/api/v1/patients", "", t0, func(r *http.Request) {
				r.Header.Set("Signature-Input", strings.Replace(r.Header.Get("Signature-Input"), `alg="hmac-sha256"`, `alg="rsa-pss-sha512"`, 1))
			})
		}, "does not verify"},
		{"malformed header", func() *http.Request {
			return signedReq(t, env, k, "GET", "/api/v1/patients", "", t0, func(r *http.Request) { r.Header.Set("Signature", "sig1=not-bytes") })
		}, "does not verify"},
		{"stale", func() *http.Request {
			return signedReq(t, env, k, "GET", "/api/v1/patients", "", t0.Add(-301*time.Second), nil)
		}, "300 seconds"},
		{"future", func() *http.Request {
			return signedReq(t, env, k, "GET", "/api/v1/patients", "", t0.Add(301*time.Second), nil)
		}, "300 seconds"},
	}
	for _, tt := range rejections {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := send(t, env, tt.req())
			if resp.StatusCode != 401 || code(body) != "invalid_signature" || !strings.Contains(string(body), tt.detail) {
				t.Fatalf("%d %s, want 401 invalid_signature (%s)", resp.StatusCode, body, tt.detail)
			}
			if resp.Header.Get("RateLimit") != "" {
				t.Error("a signature rejection carries rate-limit state: it must consume nothing")
			}
		})
	}

	// Replay: the same signed request twice within 600 s is refused; the window is the clock's.
	req = signedReq(t, env, k, "GET", "/api/v1/patients", "", t0, nil)
	if resp, _ := send(t, env, req); resp.StatusCode != 200 {
		t.Fatal(resp.StatusCode)
	}
	replay := req.Clone(req.Context())
	if resp, body := send(t, env, replay); resp.StatusCode != 401 || !strings.Contains(string(body), "nonce") {
		t.Fatalf("replay: %d %s", resp.StatusCode, body)
	}

	// An unsigned request for a key that does not require signing is fine and its answer unsigned.
	resp, _ = env.Do(t, "GET", "/api/v1/patients", "", "Authorization: Bearer "+other.Key)
	if resp.StatusCode != 200 || resp.Header.Get("Signature") != "" {
		t.Fatalf("unsigned: %d %q", resp.StatusCode, resp.Header.Get("Signature"))
	}
	// An oversized signed body that verifies gets 413 (not 401): its digest is checked over the
	// whole body as it is read (TestLargeSignedBodies has the refusals).
	big := `{"notes":"` + strings.Repeat("x", 1<<20) + `"}`
	req = signedReq(t, env, k, "POST", "/api/v1/patients", big, t0, nil)
	if resp, body := send(t, env, invalid(req)); resp.StatusCode != 413 {
		t.Fatalf("oversized: %d %s", resp.StatusCode, body)
	}
}

func TestRateLimitHeadersAndLimits(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	k := env.NewKey(t, mockserver.APIKeyParams{Plan: "custom", Scopes: []string{"patients:read"}, RatePerMinute: 60, Burst: 3, Daily: 5})
	env.Server.SetTime(k.Account, t0.Add(-30*time.Second))
	auth := "Authorization: Bearer " + k.Key
	get := func(path string) (*http.Response, []byte) { return env.Do(t, "GET", path, "", auth) }

	resp, _ := get("/api/v1/patients")
	h := resp.Header
	if got := h.Get("RateLimit-Policy"); got != `"burst";q=3;w=3, "daily";q=5;w=86400` {
		t.Errorf("RateLimit-Policy %q", got)
	}
	toMidnight := 12*3600 + 30
	if got := h.Get("RateLimit"); got != `"burst";r=2;t=1, "daily";r=4;t=`+strconv.Itoa(toMidnight) {
		t.Errorf("RateLimit %q", got)
	}
	if h.Get("X-RateLimit-Limit") != "3" || h.Get("X-RateLimit-Remaining") != "2" ||
		h.Get("X-RateLimit-Reset") != strconv.FormatInt(t0.Add(-29*time.Second).Unix(), 10) {
		t.Errorf("X-RateLimit-* %v", h)
	}
	// Errors after the limiter carry the headers too (404 route, 403 scope), and consume.
	if resp, _ := get("/api/v1/nowhere"); resp.StatusCode != 404 || resp.Header.Get("X-RateLimit-Remaining") != "1" {
		t.Errorf("404: %d %q", resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"))
	}
	if resp, _ := env.Do(t, "POST", "/api/v1/patients", patientJSON, auth); resp.StatusCode != 403 || resp.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("403 scope: %d %q", resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"))
	}
	// The bucket is empty: 429 rate_limited with Retry-After until one token.
	resp, body := get("/api/v1/patients")
	if resp.StatusCode != 429 || code(body) != "rate_limited" || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("empty bucket: %d %s %q", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	// Rejected requests are free: a 401 and a 429 take nothing.
	env.Do(t, "GET", "/api/v1/patients", "", "Authorization: Bearer msk_test_unknown")
	env.Server.AdvanceTime(k.Account, time.Second)
	if resp, _ := get("/api/v1/patients"); resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("after 1 s: %d %v", resp.StatusCode, resp.Header)
	}
	env.Server.AdvanceTime(k.Account, 10*time.Second)
	if resp, _ := get("/api/v1/patients"); resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("RateLimit"), `"daily";r=0;`) {
		t.Fatalf("5th: %d %q", resp.StatusCode, resp.Header.Get("RateLimit"))
	}
	// The daily quota is spent: quota_exceeded until the next UTC midnight.
	resp, body = get("/api/v1/patients")
	wantRA := strconv.Itoa(toMidnight - 11)
	if resp.StatusCode != 429 || code(body) != "quota_exceeded" || resp.Header.Get("Retry-After") != wantRA {
		t.Fatalf("quota: %d %s %q want Retry-After %s", resp.StatusCode, body, resp.Header.Get("Retry-After"), wantRA)
	}
	env.Server.SetTime(k.Account, t0.Add(-30*time.Second).Add(time.Duration(toMidnight)*time.Second))
	if resp, _ := get("/api/v1/patients"); resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("RateLimit"), `"daily";r=4;t=86400`) {
		t.Fatalf("after midnight: %d %q", resp.StatusCode, resp.Header.Get("RateLimit"))
	}

	// Enterprise omits the daily item.
	resp, _ = env.Do(t, "GET", "/api/v1/patients", "")
	if got := resp.Header.Get("RateLimit-Policy"); got != `"burst";q=2000;w=120` {
		t.Errorf("enterprise policy %q", got)
	}
	if strings.Contains(resp.Header.Get("RateLimit"), "daily") || resp.Header.Get("X-RateLimit-Limit") != "2000" {
		t.Errorf("enterprise RateLimit %q", resp.Header.Get("RateLimit"))
	}
	// The public OpenAPI document is not rate limited.
	if resp, _ := env.Do(t, "GET", "/api/v1/openapi.json", "", "Authorization:"); resp.Header.Get("RateLimit") != "" {
		t.Error("openapi document carries rate-limit headers")
	}
}

func TestRateLimitRejectedRequestsAreFree(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	k := env.NewKey(t, mockserver.APIKeyParams{Plan: "custom", Scopes: []string{"*"}, RatePerMinute: 1, Burst: 1, Daily: 0,
		AllowedIPs: []string{"10.0.0.0/8"}})
	env.Server.SetTime(k.Account, t0)
	for range 5 {
		if resp, _ := env.Do(t, "GET", "/api/v1/patients", "", "Authorization: Bearer "+k.Key); resp.StatusCode != 403 {
			t.Fatal(resp.StatusCode)
		}
	}
	s := env.NewKey(t, mockserver.APIKeyParams{Plan: "custom", Scopes: []string{"*"}, RatePerMinute: 1, Burst: 1, SigningRequired: true})
	env.Server.SetTime(s.Account, t0)
	for range 5 {
		if resp, _ := env.Do(t, "GET", "/api/v1/patients", "", "Authorization: Bearer "+s.Key); resp.StatusCode != 401 {
			t.Fatal(resp.StatusCode)
		}
	}
	req := signedReq(t, env, s, "GET", "/api/v1/patients", "", t0, nil)
	if resp, body := send(t, env, req); resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("first accepted request after rejections: %d %s", resp.StatusCode, body)
	}
}

func TestAuditLog(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	acct := env.Key.Account
	resp, body := env.Do(t, "POST", "/api/v1/patients", patientJSON)
	if resp.StatusCode != 201 {
		t.Fatal(resp.StatusCode, string(body))
	}
	var p struct{ ID string }
	_ = json.Unmarshal(body, &p)
	env.Do(t, "GET", "/api/v1/patients/"+p.ID, "")
	env.Do(t, "GET", "/api/v1/patients", "")
	env.Do(t, "GET", "/api/v1/appointments", "")
	env.Do(t, "GET", "/api/v1/patients/pat_00000000000000000000000000000000", "") // 404: nothing read
	ro := env.NewKey(t, mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"billing:read"}, Account: acct})
	env.Do(t, "PATCH", "/api/v1/patients/"+p.ID, `{"notes":"x"}`, "Authorization: Bearer "+ro.Key) // 403 scope
	env.Do(t, "GET", "/api/v1/patients", "", "Authorization: Bearer msk_test_nobody")              // 401, no account

	// Over HTTP: the admin endpoint returns the chain and its verification.
	resp, body = env.Do(t, "GET", "/__admin/audit-events?account="+acct, "")
	var out struct {
		Events   []mockserver.AuditEvent `json:"events"`
		Verified bool                    `json:"verified"`
	}
	if err := json.Unmarshal(body, &out); err != nil || resp.StatusCode != 200 {
		t.Fatal(resp.StatusCode, string(body))
	}
	if !out.Verified {
		t.Fatal("chain does not verify")
	}
	type row struct{ actor, action, typ, id, outcome string }
	want := []row{
		{env.Key.ID, "create", "patient", p.ID, "success"},
		{env.Key.ID, "read", "patient", p.ID, "success"},
		{env.Key.ID, "list", "patient", "", "success"},
		{env.Key.ID, "list", "appointment", "", "success"},
		{ro.ID, "update", "patient", p.ID, "denied"},
	}
	if len(out.Events) != len(want) {
		t.Fatalf("%d events: %+v", len(out.Events), out.Events)
	}
	for i, e := range out.Events {
		got := row{e.Actor, e.Action, e.ResourceType, e.ResourceID, e.Outcome}
		if got != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, got, want[i])
		}
		if !strings.HasPrefix(e.ID, "aud_") || !strings.HasPrefix(e.RequestID, "req_") || e.IP != "127.0.0.1" || e.At.IsZero() {
			t.Errorf("event %d: %+v", i, e)
		}
	}
	if out.Events[0].PrevHash != strings.Repeat("0", 64) || out.Events[1].PrevHash != out.Events[0].Hash {
		t.Error("chain links")
	}
	// The unknown credential's denial is in the server-level chain.
	anon := env.Server.AuditEvents("")
	if len(anon) != 1 || anon[0].Outcome != "denied" || anon[0].Actor != "" || !mockserver.VerifyAuditChain(anon) {
		t.Fatalf("server-level chain: %+v", anon)
	}

	// Any edit breaks verification.
	events := env.Server.AuditEvents(acct)
	if !mockserver.VerifyAuditChain(events) {
		t.Fatal("Go verifier")
	}
	for name, edit := range map[string]func(e []mockserver.AuditEvent) []mockserver.AuditEvent{
		"actor":   func(e []mockserver.AuditEvent) []mockserver.AuditEvent { e[1].Actor = "key_x"; return e },
		"outcome": func(e []mockserver.AuditEvent) []mockserver.AuditEvent { e[4].Outcome = "success"; return e },
		"drop":    func(e []mockserver.AuditEvent) []mockserver.AuditEvent { return append(e[:1], e[2:]...) },
		"swap":    func(e []mockserver.AuditEvent) []mockserver.AuditEvent { e[1], e[2] = e[2], e[1]; return e },
	} {
		if mockserver.VerifyAuditChain(edit(env.Server.AuditEvents(acct))) {
			t.Errorf("edit %s still verifies", name)
		}
	}
	// The server's copy is untouched by edits to returned events.
	events[0].Actor = "tampered"
	if !mockserver.VerifyAuditChain(env.Server.AuditEvents(acct)) {
		t.Error("returned events alias the log")
	}
}

func TestAdminClock(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	acct := env.Key.Account
	post := func(body string) (int, map[string]any) {
		resp, b := env.Do(t, "POST", "/__admin/clock", body)
		var out map[string]any
		_ = json.Unmarshal(b, &out)
		return resp.StatusCode, out
	}
	if s, out := post(`{"now":"2026-11-22T12:00:00Z","account":"` + acct + `"}`); s != 200 || out["now"] != "2026-11-22T12:00:00Z" || out["frozen"] != true {
		t.Fatalf("set: %d %v", s, out)
	}
	if s, out := post(`{"advance":"90m","account":"` + acct + `"}`); s != 200 || out["now"] != "2026-11-22T13:30:00Z" {
		t.Fatalf("advance: %d %v", s, out)
	}
	if !env.Server.Now(acct).Equal(t0.Add(90 * time.Minute)) {
		t.Fatal("Go clock does not follow")
	}
	resp, b := env.Do(t, "GET", "/__admin/clock?account="+acct, "")
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"now":"2026-11-22T13:30:00Z","frozen":true`)) {
		t.Fatalf("get: %s", b)
	}
	// The server-wide clock is untouched by an account's.
	resp, b = env.Do(t, "GET", "/__admin/clock", "")
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"frozen":false`)) {
		t.Fatalf("server clock: %s", b)
	}
	if s, out := post(`{"real":true,"account":"` + acct + `"}`); s != 200 || out["frozen"] != false {
		t.Fatalf("real: %d %v", s, out)
	}
	for _, bad := range []string{`{}`, `{"advance":"soon"}`, `{"now":"2026-11-22T12:00:00Z","real":true}`, `{"real":false}`, `{"bogus":1}`, `{"advance":"1m","account":"acct_nope"}`} {
		if s, out := post(bad); s != 422 {
			t.Errorf("%s: %d %v", bad, s, out)
		}
	}
	if resp, _ := env.Do(t, "GET", "/__admin/clock?account=acct_nope", ""); resp.StatusCode != 404 {
		t.Errorf("unknown account: %d", resp.StatusCode)
	}
}

// TestIPAllowlistIPv6Peer serves on [::1] so the peer address itself is IPv6.
func TestIPAllowlistIPv6Peer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skip("no IPv6 loopback:", err)
	}
	srv, err := mockserver.New()
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv)
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	defer ts.Close()
	for _, tt := range []struct {
		allowed []string
		want    int
	}{{[]string{"::1/128"}, 200}, {[]string{"::/0"}, 200}, {[]string{"fe80::/10", "127.0.0.0/8"}, 403}} {
		k, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}, AllowedIPs: tt.allowed})
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest("GET", ts.URL+"/api/v1/patients", nil)
		req.Header.Set("Authorization", "Bearer "+k.Key)
		hc := &http.Client{Transport: oapitest.Transport(t, ts.Client().Transport)}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%v: %d, want %d", tt.allowed, resp.StatusCode, tt.want)
		}
	}
}
