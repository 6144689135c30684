package mockserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/internal/testing/oapitest"
	"github.com/medspa/medspa-go/mockserver"
)

// adminCall is one request to the admin surface over a real loopback connection.
type adminCall struct {
	method, path, body string
	headers            []string // "Name: value"; "Name:" removes a header the call would send
}

// adminAnswer is what came back: status, problem code, headers and body.
type adminAnswer struct {
	status int
	code   string
	header http.Header
	body   []byte
}

// do sends c to the server at base with Content-Type: application/json when c has a body
// (unless a header says otherwise), and checks the answer against api/admin-openapi.yaml.
func (c adminCall) do(t *testing.T, base string) adminAnswer {
	t.Helper()
	return c.send(t, base, true)
}

func (c adminCall) send(t *testing.T, base string, check bool) adminAnswer {
	t.Helper()
	var rd io.Reader
	if c.body != "" {
		rd = strings.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, base+c.path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range c.headers {
		k, v, _ := strings.Cut(h, ":")
		v = strings.TrimSpace(v)
		switch {
		case strings.EqualFold(k, "Host"):
			req.Host = v
		case strings.HasPrefix(k, "+"):
			req.Header.Add(k[1:], v)
		case v == "":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := oapitest.CheckAdminResponse(req, resp); check && err != nil {
		t.Errorf("%s %s → %d: the answer does not match api/admin-openapi.yaml: %v", c.method, c.path, resp.StatusCode, err)
	}
	b, _ := io.ReadAll(resp.Body)
	var p struct{ Code string }
	_ = json.Unmarshal(b, &p)
	return adminAnswer{status: resp.StatusCode, code: p.Code, header: resp.Header, body: b}
}

// serveAdmin serves a new server over a loopback listener; it returns the server, its base URL
// and an account holding one patient (for checking that refused requests change nothing).
func serveAdmin(t *testing.T, opts ...mockserver.Option) (*mockserver.Server, string, mockserver.APIKey) {
	t.Helper()
	s := newServer(t, opts...)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	k := newKey(t, s, "")
	if st, _, b := raw(t, s, k.Key, "POST", "/api/v1/patients", `{"firstName":"Kept","lastName":"Data","email":"kept@example.com"}`); st != 201 {
		t.Fatalf("seeding: %d %s", st, b)
	}
	return s, ts.URL, k
}

// patientsOf counts the account's patients (through the API, not the admin surface).
func patientsOf(t *testing.T, s *mockserver.Server, k mockserver.APIKey) int {
	t.Helper()
	_, _, b := raw(t, s, k.Key, "GET", "/api/v1/patients", "")
	var l struct{ Meta struct{ Total int } }
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	return l.Meta.Total
}

// TestAdminRules holds the admin surface to docs/protocol.md §12 over real HTTP: for test code,
// never for a browser. Each row is one request and the exact answer; the account's data is
// reset by none of the refused ones.
func TestAdminRules(t *testing.T) {
	t.Parallel()
	s, base, k := serveAdmin(t)
	port := base[strings.LastIndex(base, ":")+1:]
	origin := base // http://127.0.0.1:port
	reset := `{"account":"` + k.Account + `"}`
	cases := []struct {
		name   string
		call   adminCall
		status int
		code   string
	}{
		// CSRF: a page can POST text/plain (or a form) cross-origin without a preflight.
		{"CSRF text/plain POST", adminCall{"POST", "/__admin/reset", reset, []string{"Content-Type: text/plain"}}, 415, "unsupported_media_type"},
		{"CSRF form POST", adminCall{"POST", "/__admin/api-keys", `plan=enterprise&scopes=*`, []string{"Content-Type: application/x-www-form-urlencoded"}}, 415, "unsupported_media_type"},
		{"CSRF multipart POST", adminCall{"POST", "/__admin/reset", reset, []string{"Content-Type: multipart/form-data; boundary=x"}}, 415, "unsupported_media_type"},
		{"POST without Content-Type", adminCall{"POST", "/__admin/reset", reset, []string{"Content-Type:"}}, 415, "unsupported_media_type"},
		{"empty POST without Content-Type", adminCall{"POST", "/__admin/reset", "", nil}, 415, "unsupported_media_type"},
		{"JSON with charset", adminCall{"POST", "/__admin/clock", `{"real":true}`, []string{"Content-Type: application/json; charset=utf-8"}}, 200, ""},
		{"cross-origin", adminCall{"POST", "/__admin/reset", reset, []string{"Origin: https://evil.example"}}, 403, "origin_not_allowed"},
		{"cross-origin GET of the journal", adminCall{"GET", "/__admin/requests", "", []string{"Origin: https://evil.example"}}, 403, "origin_not_allowed"},
		{"Origin null", adminCall{"POST", "/__admin/reset", reset, []string{"Origin: null"}}, 403, "origin_not_allowed"},
		{"Origin of another port", adminCall{"GET", "/__admin/clock", "", []string{"Origin: http://127.0.0.1:1"}}, 403, "origin_not_allowed"},
		{"Origin of another scheme", adminCall{"GET", "/__admin/clock", "", []string{"Origin: https://127.0.0.1:" + port}}, 403, "origin_not_allowed"},
		{"two Origins", adminCall{"GET", "/__admin/clock", "", []string{"Origin: " + origin, "+Origin: " + origin}}, 403, "origin_not_allowed"},
		{"own origin", adminCall{"GET", "/__admin/clock", "", []string{"Origin: " + origin}}, 200, ""},
		{"DNS rebinding", adminCall{"POST", "/__admin/reset", reset, []string{"Host: evil.example"}}, 403, "host_not_allowed"},
		{"DNS rebinding with port", adminCall{"GET", "/__admin/requests", "", []string{"Host: evil.example:" + port}}, 403, "host_not_allowed"},
		{"rebinding to a name under localhost's domain", adminCall{"GET", "/__admin/clock", "", []string{"Host: localhost.evil.example:" + port}}, 403, "host_not_allowed"},
		{"private address as Host", adminCall{"GET", "/__admin/clock", "", []string{"Host: 10.0.0.1:" + port}}, 403, "host_not_allowed"},
		{"Host localhost", adminCall{"GET", "/__admin/clock", "", []string{"Host: localhost:" + port}}, 200, ""},
		{"Host app.localhost", adminCall{"GET", "/__admin/clock", "", []string{"Host: app.localhost:" + port}}, 200, ""},
		{"Host [::1]", adminCall{"GET", "/__admin/clock", "", []string{"Host: [::1]:" + port}}, 200, ""},
		{"Host 127.0.0.2 without port", adminCall{"GET", "/__admin/clock", "", []string{"Host: 127.0.0.2"}}, 200, ""},
		{"admin document too", adminCall{"GET", "/__admin/openapi.yaml", "", []string{"Host: evil.example"}}, 403, "host_not_allowed"},
		// The order of checks: Host → Origin → token → route → 415 → 400 → 422 → 404.
		{"Host before Origin", adminCall{"POST", "/__admin/reset", reset, []string{"Host: evil.example", "Origin: null"}}, 403, "host_not_allowed"},
		{"Origin before route", adminCall{"GET", "/__admin/nowhere", "", []string{"Origin: null"}}, 403, "origin_not_allowed"},
		{"route before media type", adminCall{"POST", "/__admin/nowhere", reset, []string{"Content-Type: text/plain"}}, 404, "not_found"},
		{"known path, other method", adminCall{"GET", "/__admin/reset", "", nil}, 405, "method_not_allowed"},
		{"media type before JSON", adminCall{"POST", "/__admin/reset", `{"account":`, []string{"Content-Type: text/plain"}}, 415, "unsupported_media_type"},
		{"JSON before validation", adminCall{"POST", "/__admin/snapshots", `{"account":`, nil}, 400, "malformed_json"},
		{"validation before records", adminCall{"POST", "/__admin/snapshots/x/restore", `{"account":"acct_nope","colour":"red"}`, nil}, 422, "validation_error"},
		{"records last", adminCall{"POST", "/__admin/snapshots/x/restore", `{"account":"acct_nope"}`, nil}, 404, "not_found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.call.do(t, base)
			if got.status != tc.status || got.code != tc.code {
				t.Fatalf("%d %q, want %d %q: %s", got.status, got.code, tc.status, tc.code, got.body)
			}
			if rid := got.header.Get("X-Request-Id"); !requestIDShape.MatchString(rid) {
				t.Errorf("X-Request-Id %q", rid)
			}
			if tc.status == 405 && got.header.Get("Allow") != "POST" {
				t.Errorf("Allow %q", got.header.Get("Allow"))
			}
		})
	}
	if n := patientsOf(t, s, k); n != 1 {
		t.Fatalf("a refused request reset the account: %d patients", n)
	}
	// The same reset, as test code sends it, works.
	if got := (adminCall{"POST", "/__admin/reset", reset, nil}).do(t, base); got.status != 204 || patientsOf(t, s, k) != 0 {
		t.Fatalf("reset: %d %s", got.status, got.body)
	}
	// An empty POST with the JSON media type is an empty object.
	if got := (adminCall{"POST", "/__admin/reset", "", []string{"Content-Type: application/json"}}).do(t, base); got.status != 204 {
		t.Fatalf("empty JSON reset: %d %s", got.status, got.body)
	}
}

// TestAdminToken: with a token, every admin request needs it (401 with the admin realm), after
// the Host and Origin checks and before routing; the API's own credentials are not it.
func TestAdminToken(t *testing.T) {
	t.Parallel()
	const token = "adm-0123456789abcdef"
	s, base, k := serveAdmin(t, mockserver.WithAdminToken(token))
	reset := `{"account":"` + k.Account + `"}`
	bearer := "Authorization: Bearer " + token
	cases := []struct {
		name   string
		call   adminCall
		status int
		code   string
	}{
		{"no token", adminCall{"POST", "/__admin/reset", reset, nil}, 401, "unauthorized"},
		{"no token, GET", adminCall{"GET", "/__admin/requests", "", nil}, 401, "unauthorized"},
		{"wrong token", adminCall{"POST", "/__admin/reset", reset, []string{"Authorization: Bearer adm-0123456789abcdeX"}}, 401, "unauthorized"},
		{"token's prefix", adminCall{"POST", "/__admin/reset", reset, []string{"Authorization: Bearer adm-0123"}}, 401, "unauthorized"},
		{"an API key", adminCall{"POST", "/__admin/reset", reset, []string{"Authorization: Bearer " + k.Key}}, 401, "unauthorized"},
		{"Basic scheme", adminCall{"GET", "/__admin/clock", "", []string{"Authorization: Basic " + token}}, 401, "unauthorized"},
		{"token twice", adminCall{"GET", "/__admin/clock", "", []string{bearer, "+" + bearer}}, 401, "unauthorized"},
		{"token before route", adminCall{"GET", "/__admin/nowhere", "", nil}, 401, "unauthorized"},
		{"Host before token", adminCall{"GET", "/__admin/clock", "", []string{"Host: evil.example"}}, 403, "host_not_allowed"},
		{"Origin before token", adminCall{"GET", "/__admin/clock", "", []string{"Origin: null"}}, 403, "origin_not_allowed"},
		{"token", adminCall{"GET", "/__admin/clock", "", []string{bearer}}, 200, ""},
		{"scheme in lower case", adminCall{"GET", "/__admin/clock", "", []string{"Authorization: bearer " + token}}, 200, ""},
		{"route after token", adminCall{"GET", "/__admin/nowhere", "", []string{bearer}}, 404, "not_found"},
		{"media type after token", adminCall{"POST", "/__admin/reset", reset, []string{bearer, "Content-Type: text/plain"}}, 415, "unsupported_media_type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.call.do(t, base)
			if got.status != tc.status || got.code != tc.code {
				t.Fatalf("%d %q, want %d %q: %s", got.status, got.code, tc.status, tc.code, got.body)
			}
			if tc.status == 401 && got.header.Get("WWW-Authenticate") != `Bearer realm="medspa-admin"` {
				t.Errorf("WWW-Authenticate %q", got.header.Get("WWW-Authenticate"))
			}
		})
	}
	if n := patientsOf(t, s, k); n != 1 {
		t.Fatalf("a refused request reset the account: %d patients", n)
	}
	if got := (adminCall{"POST", "/__admin/reset", reset, []string{bearer}}).do(t, base); got.status != 204 || patientsOf(t, s, k) != 0 {
		t.Fatalf("reset with the token: %d %s", got.status, got.body)
	}
	// The API does not take the admin token, and its keys work as before.
	if st, _, _ := raw(t, s, token, "GET", "/api/v1/patients", ""); st != 401 {
		t.Fatalf("the admin token opened the API: %d", st)
	}
	if st, _, _ := raw(t, s, k.Key, "GET", "/api/v1/patients", ""); st != 200 {
		t.Fatalf("API key with an admin token configured: %d", st)
	}
	// Tokens that cannot travel in a header are refused at construction.
	for _, bad := range []string{"has space", "tab\t", "é"} {
		if _, err := mockserver.New(mockserver.WithAdminToken(bad)); err == nil {
			t.Errorf("admin token %q accepted", bad)
		}
	}
}

// TestAdminHostOfTheListener: a server on a network answers to the address the connection
// arrived at and to the names it was given, and to nothing else. (Tests listen on loopback
// only, so the connection's local address is set as net/http sets it.)
func TestAdminHostOfTheListener(t *testing.T) {
	t.Parallel()
	plain := newServer(t)
	named := newServer(t, mockserver.WithAdminHosts("mock.internal", "ci-mock:8080"))
	local := &net.TCPAddr{IP: net.ParseIP("192.0.2.10"), Port: 8080}
	cases := []struct {
		name string
		s    *mockserver.Server
		host string
		want int
	}{
		{"the listen address", plain, "192.0.2.10:8080", 200},
		{"the listen address, other port", plain, "192.0.2.10:9090", 200},
		{"another address", plain, "192.0.2.11:8080", 403},
		{"a name", plain, "mock.internal:8080", 403},
		{"a given name", named, "mock.internal:8080", 200},
		{"a given name, no port", named, "MOCK.internal", 200},
		{"a given name:port", named, "ci-mock:8080", 200},
		{"a given name, other port", named, "ci-mock:9090", 403},
		{"another name", named, "evil.example:8080", 403},
		{"no Host", plain, "", 403},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/__admin/clock", nil)
			r.Host = tc.host
			r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(local)))
			w := httptest.NewRecorder()
			tc.s.ServeHTTP(w, r)
			if w.Code != tc.want {
				t.Fatalf("Host %q: %d, want %d: %s", tc.host, w.Code, tc.want, w.Body)
			}
		})
	}
}

// TestAdminNames: an account a credential names becomes a key of maps and files, so it has one
// shape: letters, digits, "_" and "-", a letter or digit first; a snapshot's name is one line of
// text. Anything else is 422 where it is chosen and 404 where it is looked up, before anything
// is created or looked up.
func TestAdminNames(t *testing.T) {
	t.Parallel()
	_, base, k := serveAdmin(t)
	for _, bad := range []string{"../../etc", "_anonymous", "a b", `a\u0000`, "a/b", ".", "", "x" + strings.Repeat("y", 64), `\u202eacct`} {
		body := `{"plan":"starter","scopes":["*"],"account":"` + bad + `"}`
		want, fields := 422, "/account invalid_format"
		if bad == "" {
			want, fields = 201, "" // a fresh account
		}
		for _, path := range []string{"/__admin/api-keys", "/__admin/oauth-clients"} {
			got := (adminCall{"POST", path, body, nil}).do(t, base)
			if got.status != want || (fields != "" && !strings.Contains(string(got.body), `"pointer":"/account","code":"invalid_format"`)) {
				t.Errorf("POST %s account %q: %d %s", path, bad, got.status, got.body)
			}
		}
	}
	for _, good := range []string{"team-a", "CI_run_42", k.Account} {
		if got := (adminCall{"POST", "/__admin/api-keys", `{"plan":"starter","scopes":["*"],"account":"` + good + `"}`, nil}).do(t, base); got.status != 201 {
			t.Errorf("account %q: %d %s", good, got.status, got.body)
		}
	}
	acct := `"account":"` + k.Account + `"`
	for _, tc := range []struct {
		path, body string
		status     int
		code       string
	}{
		{"/__admin/snapshots", `{` + acct + `,"name":"s\u0000"}`, 422, "validation_error"},
		{"/__admin/snapshots", `{` + acct + `,"name":"a\nb"}`, 422, "validation_error"},
		{"/__admin/snapshots", `{` + acct + `,"name":"\u202es"}`, 422, "validation_error"},
		{"/__admin/snapshots", `{` + acct + `,"name":"` + strings.Repeat("n", 201) + `"}`, 422, "validation_error"},
		{"/__admin/snapshots", `{"account":"acct_nope","name":"s\u0000"}`, 422, "validation_error"},
		{"/__admin/snapshots", `{` + acct + `,"name":"before login/2"}`, 204, ""},
		{"/__admin/snapshots/before%20login%2F2/restore", `{` + acct + `}`, 204, ""},
		{"/__admin/snapshots/s%00/restore", `{` + acct + `}`, 404, "not_found"},
		{"/__admin/snapshots/%E2%80%AEs/restore", `{` + acct + `}`, 404, "not_found"},
	} {
		if got := (adminCall{"POST", tc.path, tc.body, nil}).do(t, base); got.status != tc.status || got.code != tc.code {
			t.Errorf("POST %s %s: %d %s", tc.path, tc.body, got.status, got.body)
		}
	}
}

// TestAdminBodyTypeErrorsNameTheMember: an admin body member of the wrong JSON type is 422
// naming it (as the API's bodies are), not a bare 400; nothing is created.
func TestAdminBodyTypeErrorsNameTheMember(t *testing.T) {
	t.Parallel()
	_, base, _ := serveAdmin(t)
	for body, pointer := range map[string]string{
		`{"plan":5}`:                      "/plan",
		`{"plan":"starter","scopes":"*"}`: "/scopes",
		`{"plan":"custom","burst":"10"}`:  "/burst",
	} {
		got := adminCall{"POST", "/__admin/api-keys", body, nil}.do(t, base)
		var p struct {
			Errors []struct{ Pointer, Code string }
		}
		_ = json.Unmarshal(got.body, &p)
		if got.status != 422 || got.code != "validation_error" || len(p.Errors) != 1 || p.Errors[0].Pointer != pointer {
			t.Errorf("POST /__admin/api-keys %s: %d %s; want 422 validation_error naming %s", body, got.status, got.body, pointer)
		}
	}
}
