package mockserver_test

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
)

// unknownKeysBody is a patient with the three required fields and n unknown keys "k1":1, ….
func unknownKeysBody(n int) string {
	var b strings.Builder
	b.WriteString(`{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com"`)
	for i := 1; i <= n; i++ {
		b.WriteString(`,"k` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString("}")
	return b.String()
}

// TestManyUnknownKeysAreBounded (issue 32, item 1): a body of 60,000 unknown keys (0.7 MB) is
// answered with the first 100 field errors and a count of the rest, not a 5.5 MB list; a
// duplicate key among many is still found (httpapi's TestCheckJSONIsLinear times the check).
func TestManyUnknownKeysAreBounded(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	const n = 60_000
	body := unknownKeysBody(n)
	resp, answer := env.DoInvalid(t, "POST", "/api/v1/patients", body)
	var p struct {
		Code          string            `json:"code"`
		Detail        string            `json:"detail"`
		Errors        []json.RawMessage `json:"errors"`
		OmittedErrors int               `json:"omittedErrors"`
	}
	if err := json.Unmarshal(answer, &p); err != nil || resp.StatusCode != 422 || p.Code != "validation_error" {
		t.Fatalf("%d %.300s", resp.StatusCode, answer)
	}
	if len(p.Errors) != 100 || p.OmittedErrors != n-100 || p.Detail != fmt.Sprintf("%d fields are invalid", n) {
		t.Errorf("%d errors listed, %d omitted, detail %q: want 100, %d, every field counted", len(p.Errors), p.OmittedErrors, p.Detail, n-100)
	}
	if len(answer) > 16<<10 {
		t.Errorf("answer of %d bytes for a body of %d", len(answer), len(body))
	}
	// A duplicate key past the first keys of an object is still refused.
	dup := strings.TrimSuffix(unknownKeysBody(1000), "}") + `,"k7":2}`
	if resp, answer := env.DoInvalid(t, "POST", "/api/v1/patients", dup); resp.StatusCode != 400 || code(answer) != "malformed_json" {
		t.Errorf("duplicate among many keys: %d %s", resp.StatusCode, answer)
	}
	// Up to 100 errors, every one is listed and nothing is omitted.
	_, answer = env.DoInvalid(t, "POST", "/api/v1/patients", unknownKeysBody(100))
	if err := json.Unmarshal(answer, &p); err != nil || len(p.Errors) != 100 || strings.Contains(string(answer), "omittedErrors") {
		t.Errorf("100 unknown keys: %.300s", answer)
	}
}

// TestIdempotencyByteBudget (issue 32, item 2): an account's stored answers are bounded by
// bytes; past the budget the oldest keys are forgotten (a retry with one runs anew, answered
// as a fresh request), and the newest still replay byte for byte.
func TestIdempotencyByteBudget(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, []mockserver.Option{mockserver.WithBounds(mockserver.Bounds{IdempotencyBytesPerAccount: 256 << 10})})
	body := unknownKeysBody(150) // a 422 of about 10 KB
	first := map[int][]byte{}
	for i := range 60 { // about 600 KB of answers
		resp, answer := env.DoInvalid(t, "POST", "/api/v1/patients", body, "Idempotency-Key: budget-"+strconv.Itoa(i))
		if resp.StatusCode != 422 {
			t.Fatalf("%d %.200s", resp.StatusCode, answer)
		}
		first[i] = answer
	}
	resp, answer := env.DoInvalid(t, "POST", "/api/v1/patients", body, "Idempotency-Key: budget-59")
	if resp.Header.Get("Idempotent-Replayed") != "true" || string(answer) != string(first[59]) {
		t.Errorf("newest key: replayed %q, same answer %v", resp.Header.Get("Idempotent-Replayed"), string(answer) == string(first[59]))
	}
	resp, answer = env.DoInvalid(t, "POST", "/api/v1/patients", body, "Idempotency-Key: budget-0")
	if resp.StatusCode != 422 || resp.Header.Get("Idempotent-Replayed") != "" || string(answer) == string(first[0]) {
		t.Errorf("oldest key past the budget: %d replayed %q: want it run anew", resp.StatusCode, resp.Header.Get("Idempotent-Replayed"))
	}
}

// TestOAuthLockoutSparesTheOwner (issue 32, item 6): knowing a client id is not enough to lock
// its owner out. Another process on the same address hammers the token endpoint with the id and
// wrong secrets (more than the limit, one secret repeated and many different ones); its own
// repeated secret is locked out, and the owner, with the right secret, still gets tokens. The
// guard counts each client's failures in 256 buckets by the presented secret's SHA-256: an
// attacker who does not know the secret cannot aim at its bucket, so the wrong secrets here
// are drawn from the other buckets (as 255 in 256 of an attacker's are).
func TestOAuthLockoutSparesTheOwner(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	c := newOAuthClient(t, env, mockserver.OAuthClientParams{})
	owner := sha256.Sum256([]byte(c.ClientSecret))
	var wrong []string
	for i := 0; len(wrong) < 60; i++ {
		s := "mcs_wrong" + strconv.Itoa(i)
		if d := sha256.Sum256([]byte(s)); d[0] != owner[0] {
			wrong = append(wrong, s)
		}
	}
	attack := func(secret string) string {
		cc := clientcredentials.Config{ClientID: c.ClientID, ClientSecret: secret, TokenURL: env.URL + "/oauth/token",
			AuthStyle: oauth2.AuthStyleInParams}
		_, err := cc.Token(oauthCtx(env))
		var re *oauth2.RetrieveError
		if !errors.As(err, &re) {
			t.Fatalf("a wrong secret: %v", err)
		}
		return re.ErrorCode
	}
	for range 20 {
		attack(wrong[0])
	}
	if got := attack(wrong[0]); got != "temporarily_unavailable" {
		t.Errorf("21st attempt with one wrong secret: %s, want it locked out", got)
	}
	for _, s := range wrong[1:] {
		attack(s)
	}
	good := clientcredentials.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, TokenURL: env.URL + "/oauth/token",
		AuthStyle: oauth2.AuthStyleInHeader}
	if _, err := good.Token(oauthCtx(env)); err != nil {
		t.Fatalf("the owner after 80 wrong secrets from its address: %v", err)
	}
}

// TestCredentialsExpireOnRealTimeUnderAFrozenClock (issue 32, item 5): under a frozen clock a
// rotated key's grace, a key's expiresAt and OAuth token lifetimes still run out, on real
// elapsed time (whichever of the two clocks runs out first).
func TestCredentialsExpireOnRealTimeUnderAFrozenClock(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	env := testenv.New(t, []mockserver.Option{mockserver.WithStartTime(start), mockserver.WithTokenLifetimes(time.Second, time.Second)})
	rotated := env.NewKey(t, mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
	if _, err := env.Server.RotateAPIKey(rotated.ID, time.Second); err != nil {
		t.Fatal(err)
	}
	soon := start.Add(time.Second)
	expiring := env.NewKey(t, mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}, ExpiresAt: &soon})
	cfg := authCodeConfig(env, newOAuthClient(t, env, mockserver.OAuthClientParams{RedirectURIs: []string{redirectURI}}))
	tok := exchange(t, env, cfg)
	bearers := map[string]string{"rotated key's old secret": rotated.Key, "key with expiresAt": expiring.Key, "access token": tok.AccessToken}
	for name, b := range bearers {
		if resp, body := env.Do(t, "GET", "/api/v1/patients", "", "Authorization: Bearer "+b); resp.StatusCode != 200 {
			t.Fatalf("%s at first: %d %s", name, resp.StatusCode, body)
		}
	}
	time.Sleep(1100 * time.Millisecond) // real time; the server's clock stays at start
	if now := env.Server.Now(""); !now.Equal(start) {
		t.Fatalf("the clock moved: %v", now)
	}
	for name, b := range bearers {
		if resp, body := env.Do(t, "GET", "/api/v1/patients", "", "Authorization: Bearer "+b); resp.StatusCode != 401 {
			t.Errorf("%s a real second later under a frozen clock: %d %s, want 401", name, resp.StatusCode, body)
		}
	}
	if _, err := refresh(env, cfg, tok.RefreshToken); oauthErrorCode(t, err) != "invalid_grant" {
		t.Errorf("the refresh token a real second later: %v, want invalid_grant", err)
	}
}
