package mockserver_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
)

// A 401 says which of missing, malformed, live-format or unknown the credentials are, over
// HTTP, never repeating the value sent; the code stays unauthorized, and unknown, revoked and
// expired keys get one answer.
func TestUnauthorizedSaysWhichCredentialProblem(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	revoked := env.NewKey(t, mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}})
	if err := env.Server.RevokeAPIKey(revoked.ID); err != nil {
		t.Fatal(err)
	}
	past := env.Server.Now(env.Key.Account).Add(-time.Hour)
	expired := env.NewKey(t, mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}, Account: env.Key.Account, ExpiresAt: &past})
	const (
		missing   = "missing credentials: send Authorization: Bearer <API key>"
		malformed = `malformed credentials: the Authorization header must be "Bearer <API key>"`
		shape     = "malformed credentials: an API key is msk_test_ followed by 32 letters and digits"
		unknown   = "unknown credentials: the API key is unknown, revoked or expired"
	)
	wellFormed := "msk_test_" + strings.Repeat("Zq7", 10) + "x9"
	for _, c := range []struct {
		name    string
		headers []string
		secret  string // the value sent, which the detail must not repeat
		detail  string
	}{
		{"no header", []string{"Authorization:"}, "", missing},
		{"Basic scheme", []string{"Authorization: Basic YTpi"}, "YTpi", malformed},
		{"Bearer without a secret", []string{"Authorization: Bearer"}, "", malformed},
		{"a secret with blanks", []string{"Authorization: Bearer msk_test_a b"}, "msk_test_a", malformed},
		{"two headers", []string{"Authorization: Bearer " + env.Key.Key, "+Authorization: Bearer " + env.Key.Key}, env.Key.Key,
			"malformed credentials: send one Authorization header"},
		{"a live key", []string{"Authorization: Bearer msk_live_" + strings.Repeat("A", 32)}, strings.Repeat("A", 32),
			"a live API key (msk_live_…) was sent to the mock server: use a test key (msk_test_…) that it issued"},
		{"a test key too short", []string{"Authorization: Bearer msk_test_nope"}, "nope", shape},
		{"a test key with a symbol", []string{"Authorization: Bearer " + wellFormed[:40] + "-"}, wellFormed[:40], shape},
		{"not a key at all", []string{"Authorization: Bearer hunter2"}, "hunter2", shape},
		{"a well-formed unknown key", []string{"Authorization: Bearer " + wellFormed}, wellFormed, unknown},
		{"a revoked key", []string{"Authorization: Bearer " + revoked.Key}, revoked.Key, unknown},
		{"an expired key", []string{"Authorization: Bearer " + expired.Key}, expired.Key, unknown},
	} {
		resp, body := env.DoInvalid(t, "GET", "/api/v1/patients", "", c.headers...)
		var p struct{ Code, Detail string }
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatalf("%s: %v %s", c.name, err, body)
		}
		if resp.StatusCode != 401 || p.Code != "unauthorized" || resp.Header.Get("WWW-Authenticate") != `Bearer realm="medspa"` {
			t.Errorf("%s: %d %s %q", c.name, resp.StatusCode, body, resp.Header.Get("WWW-Authenticate"))
		}
		if p.Detail != c.detail {
			t.Errorf("%s: detail %q, want %q", c.name, p.Detail, c.detail)
		}
		if c.secret != "" && strings.Contains(string(body), c.secret) {
			t.Errorf("%s: the answer repeats the credential: %s", c.name, body)
		}
	}
	if resp, body := env.Do(t, "GET", "/api/v1/patients", ""); resp.StatusCode != 200 {
		t.Errorf("the env's own key: %d %s", resp.StatusCode, body)
	}
}
