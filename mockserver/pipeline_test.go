package mockserver_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
)

type problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Code      string `json:"code"`
	RequestID string `json:"requestId"`
}

var requestIDShape = regexp.MustCompile(`^req_[0-9a-f]{32}$`)

// TestErrorPaths covers the failure paths of docs/protocol.md §4 that the core serves, in the
// order of checks: each answers its status and code as problem+json, with the request id.
func TestErrorPaths(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	readOnly := env.NewKey(t, mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"patients:read"}, Account: env.Key.Account})
	writer := env.NewKey(t, mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"patients:write"}, Account: env.Key.Account})
	big := `{"notes":"` + strings.Repeat("x", 1<<20) + `"}`
	cases := []struct {
		name         string
		method, path string
		body         string
		headers      []string
		status       int
		code         string
		header       string // a response header that must be present, "Name: value"
	}{
		{"no credentials", "GET", "/api/v1/patients", "", []string{"Authorization:"}, 401, "unauthorized", `Www-Authenticate: Bearer realm="medspa"`},
		{"unknown key", "GET", "/api/v1/patients", "", []string{"Authorization: Bearer msk_test_nope"}, 401, "unauthorized", ""},
		{"basic scheme", "GET", "/api/v1/patients", "", []string{"Authorization: Basic YTpi"}, 401, "unauthorized", ""},
		{"credentials before route", "GET", "/api/v1/nothing", "", []string{"Authorization:"}, 401, "unauthorized", ""},
		{"unknown route", "GET", "/api/v1/nothing", "", nil, 404, "not_found", ""},
		{"unknown route outside api", "GET", "/api/v2/patients", "", nil, 404, "not_found", ""},
		{"dot segment is no redirect", "GET", "/api/v1/patients/.", "", nil, 404, "not_found", ""},
		{"double slash is no redirect", "GET", "/api/v1//patients", "", nil, 404, "not_found", ""},
		{"method not allowed", "DELETE", "/api/v1/patients", "", nil, 405, "method_not_allowed", "Allow: GET, POST"},
		{"method not allowed on item", "PUT", "/api/v1/patients/pat_00000000000000000000000000000000", "{}", nil, 405, "method_not_allowed", "Allow: GET, PATCH"},
		{"read scope cannot write", "POST", "/api/v1/patients", `{}`, []string{"Authorization: Bearer " + readOnly.Key}, 403, "insufficient_scope", `Www-Authenticate: Bearer error="insufficient_scope", scope="patients:write"`},
		{"write implies read", "GET", "/api/v1/patients", "", []string{"Authorization: Bearer " + writer.Key}, 200, "", ""},
		{"scope before media type", "POST", "/api/v1/patients", `{}`, []string{"Authorization: Bearer " + readOnly.Key, "Content-Type: text/plain"}, 403, "insufficient_scope", ""},
		{"wrong media type", "POST", "/api/v1/patients", `{}`, []string{"Content-Type: text/plain"}, 415, "unsupported_media_type", ""},
		{"merge patch only for PATCH", "POST", "/api/v1/patients", `{}`, []string{"Content-Type: application/merge-patch+json"}, 415, "unsupported_media_type", ""},
		{"too large", "POST", "/api/v1/patients", big, nil, 413, "payload_too_large", ""},
		{"not JSON", "POST", "/api/v1/patients", `{"firstName":`, nil, 400, "malformed_json", ""},
		{"JSON array", "POST", "/api/v1/patients", `[]`, nil, 400, "malformed_json", ""},
		{"JSON string", "POST", "/api/v1/patients", `"x"`, nil, 400, "malformed_json", ""},
		{"trailing data", "POST", "/api/v1/patients", `{} {}`, nil, 400, "malformed_json", ""},
		{"duplicate keys", "POST", "/api/v1/patients", `{"firstName":"a","firstName":"b","lastName":"c","email":"a@b.co"}`, nil, 400, "malformed_json", ""},
		{"bad UTF-8", "POST", "/api/v1/patients", "{\"firstName\":\"\xff\",\"lastName\":\"c\",\"email\":\"a@b.co\"}", nil, 400, "malformed_json", ""},
		{"deep nesting", "POST", "/api/v1/patients", strings.Repeat("[", 100) + strings.Repeat("]", 100), nil, 400, "malformed_json", ""},
		{"v1 alias", "GET", "/v1/patients", "", nil, 200, "", ""},
		{"v1 alias errors too", "GET", "/v1/patients/pat_x", "", nil, 404, "not_found", ""},
		{"openapi is public", "GET", "/api/v1/openapi.yaml", "", []string{"Authorization:"}, 200, "", "Content-Type: application/yaml"},
		{"openapi json", "GET", "/api/v1/openapi.json", "", []string{"Authorization:"}, 200, "", "Content-Type: application/json"},
	}
	t.Run("cases", func(t *testing.T) { // returns once every parallel case is done
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				checkErrorPath(t, env, tc.method, tc.path, tc.body, tc.headers, tc.status, tc.code, tc.header)
			})
		}
	})
	if n := countPatients(t, env); n != 0 {
		t.Errorf("rejected requests created %d patients", n)
	}
}

// checkErrorPath sends one request and checks its status, request id, header and problem.
func checkErrorPath(t *testing.T, env *testenv.Env, method, path, reqBody string, headers []string, status int, code, header string) {
	t.Helper()
	resp, body := env.DoInvalid(t, method, path, reqBody, headers...)
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d: %.300s", resp.StatusCode, status, body)
	}
	if rid := resp.Header.Get("X-Request-Id"); !requestIDShape.MatchString(rid) {
		t.Errorf("X-Request-Id %q", rid)
	}
	if header != "" {
		k, v, _ := strings.Cut(header, ": ")
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if code == "" {
		return
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q", ct)
	}
	var p problem
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	if p.Code != code || p.Status != status || p.Type != "https://docs.medspa.dev/errors/"+code || p.Title == "" ||
		p.RequestID != resp.Header.Get("X-Request-Id") {
		t.Errorf("problem %+v", p)
	}
}

func countPatients(t *testing.T, env *testenv.Env) int {
	return env.Total(t, "/api/v1/patients")
}

func TestExpiredKeyIsUnauthorized(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	now := env.Server.Now("")
	exp := now.Add(-1)
	k := env.NewKey(t, mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}, ExpiresAt: &exp})
	resp, _ := env.Do(t, "GET", "/api/v1/patients", "", "Authorization: Bearer "+k.Key)
	if resp.StatusCode != 401 {
		t.Errorf("expired key: %d", resp.StatusCode)
	}
}

func TestAccountsAreIsolated(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	other := env.NewKey(t, mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}})
	_, body := env.Do(t, "POST", "/api/v1/patients", `{"firstName":"A","lastName":"B","email":"a@b.co"}`)
	var p struct{ ID string }
	_ = json.Unmarshal(body, &p)
	resp, _ := env.Do(t, "GET", "/api/v1/patients/"+p.ID, "", "Authorization: Bearer "+other.Key)
	if resp.StatusCode != 404 {
		t.Errorf("other account sees the patient: %d", resp.StatusCode)
	}
	_, body = env.Do(t, "GET", "/api/v1/patients", "", "Authorization: Bearer "+other.Key)
	if !strings.Contains(string(body), `"total":0`) {
		t.Errorf("other account lists: %s", body)
	}
	shared := env.NewKey(t, mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"patients:read"}, Account: env.Key.Account})
	if resp, _ := env.Do(t, "GET", "/api/v1/patients/"+p.ID, "", "Authorization: Bearer "+shared.Key); resp.StatusCode != 200 {
		t.Errorf("a key of the same account: %d", resp.StatusCode)
	}
	// Reset empties one account and keeps its keys.
	if err := env.Server.Reset(env.Key.Account); err != nil {
		t.Fatal(err)
	}
	if n := countPatients(t, env); n != 0 {
		t.Errorf("after reset: %d patients", n)
	}
}

// TestLongAnswersCarryTheirLength: an answer longer than net/http's 2 KiB buffer goes out with a
// Content-Length, not chunked; a short one has its length too (net/http's own).
func TestLongAnswersCarryTheirLength(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	for i := range 30 {
		resp, body := env.Do(t, "POST", "/api/v1/patients",
			`{"firstName":"Long`+strconv.Itoa(i)+`","lastName":"Answer","email":"long`+strconv.Itoa(i)+`@example.com"}`)
		if resp.StatusCode != 201 {
			t.Fatal(resp.StatusCode, string(body))
		}
	}
	for _, path := range []string{"/api/v1/patients?perPage=30", "/api/v1/patients?perPage=1"} {
		resp, body := env.Do(t, "GET", path, "")
		if resp.StatusCode != 200 {
			t.Fatal(path, resp.StatusCode, string(body))
		}
		if len(resp.TransferEncoding) != 0 || resp.ContentLength != int64(len(body)) {
			t.Errorf("%s: Transfer-Encoding %v, Content-Length %d for %d bytes", path, resp.TransferEncoding, resp.ContentLength, len(body))
		}
	}
}
