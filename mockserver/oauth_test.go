package mockserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/medspa/medspa-go/internal/testing/oapitest"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
)

const redirectURI = "https://app.example/callback"

func newOAuthClient(t *testing.T, env *testenv.Env, p mockserver.OAuthClientParams) mockserver.OAuthClient {
	t.Helper()
	if p.Plan == "" {
		p.Plan = "starter"
	}
	if p.Scopes == nil {
		p.Scopes = []string{"patients:read", "billing:read"}
	}
	c, err := env.Server.CreateOAuthClient(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// noRedirect is env.HTTP that reports redirects instead of following them.
func noRedirect(env *testenv.Env) *http.Client {
	hc := *env.HTTP
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &hc
}

// getInvalid GETs u without following redirects, validating only the response (the
// authorization requests of the error tests break the document on purpose).
func getInvalid(env *testenv.Env, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(oapitest.WithoutRequestValidation(context.Background()), "GET", u, nil)
	if err != nil {
		return nil, err
	}
	return noRedirect(env).Do(req)
}

func oauthCtx(env *testenv.Env) context.Context {
	return context.WithValue(context.Background(), oauth2.HTTPClient, env.HTTP)
}

func authCodeConfig(env *testenv.Env, c mockserver.OAuthClient) *oauth2.Config {
	return &oauth2.Config{
		ClientID: c.ClientID, ClientSecret: c.ClientSecret, RedirectURL: redirectURI, Scopes: []string{"patients:read"},
		Endpoint: oauth2.Endpoint{AuthURL: env.URL + "/oauth/authorize", TokenURL: env.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInHeader},
	}
}

// authorize runs /oauth/authorize and returns the redirect's query.
func authorize(t *testing.T, env *testenv.Env, authURL string) url.Values {
	t.Helper()
	resp, err := getInvalid(env, authURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize: status %d, want 302", resp.StatusCode)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(loc.String(), redirectURI+"?") {
		t.Fatalf("authorize: Location %q", resp.Header.Get("Location"))
	}
	return loc.Query()
}

// getPatients calls the API with a bearer token and returns the status and body.
func getWithToken(t *testing.T, env *testenv.Env, token string) (*http.Response, []byte) {
	t.Helper()
	return env.Do(t, "GET", "/api/v1/patients", "", "Authorization: Bearer "+token)
}

func oauthErrorCode(t *testing.T, err error) string {
	t.Helper()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		t.Fatalf("error %v is not a *oauth2.RetrieveError", err)
	}
	return re.ErrorCode
}

func TestOAuthClientCredentials(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	c := newOAuthClient(t, env, mockserver.OAuthClientParams{})
	cc := clientcredentials.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, TokenURL: env.URL + "/oauth/token",
		AuthStyle: oauth2.AuthStyleInHeader}
	tok, err := cc.Token(oauthCtx(env))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok.AccessToken, "mat_") || tok.RefreshToken != "" || tok.TokenType != "Bearer" {
		t.Fatalf("token %+v", tok)
	}
	if s := tok.Extra("scope"); s != "patients:read billing:read" {
		t.Errorf("scope %v", s)
	}
	if ei := tok.Extra("expires_in"); ei != float64(3600) {
		t.Errorf("expires_in %v", ei)
	}
	resp, _ := getWithToken(t, env, tok.AccessToken)
	if resp.StatusCode != 200 {
		t.Fatalf("API with token: %d", resp.StatusCode)
	}
	if resp.Header.Get("X-RateLimit-Limit") != "100" {
		t.Errorf("rate limit of the client's plan: %q", resp.Header.Get("X-RateLimit-Limit"))
	}

	// Form-field client authentication and a narrower scope.
	cc.AuthStyle, cc.Scopes = oauth2.AuthStyleInParams, []string{"billing:read"}
	tok, err = cc.Token(oauthCtx(env))
	if err != nil {
		t.Fatal(err)
	}
	if tok.Extra("scope") != "billing:read" {
		t.Errorf("narrowed scope %v", tok.Extra("scope"))
	}
	resp, _ = getWithToken(t, env, tok.AccessToken)
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("patients with billing:read token: %d, want 403", resp.StatusCode)
	}

	cc.Scopes = []string{"patients:write"}
	if _, err := cc.Token(oauthCtx(env)); oauthErrorCode(t, err) != "invalid_scope" {
		t.Errorf("wider scope: %v", err)
	}

	// Token requests are visible in the client's account journal, under the client's id.
	var tokenRequests int
	for _, e := range env.Server.Requests(c.Account) {
		if e.Path == "/oauth/token" {
			tokenRequests++
			if e.CredentialID != c.ClientID {
				t.Errorf("journal entry of a token request names %q, want the client %q", e.CredentialID, c.ClientID)
			}
		}
	}
	if tokenRequests != 3 {
		t.Errorf("%d token requests in the client's journal, want 3", tokenRequests)
	}
}

func TestOAuthTokenErrors(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	c := newOAuthClient(t, env, mockserver.OAuthClientParams{})
	post := func(form, basicUser, basicPass string) (*http.Response, map[string]string) {
		// Some requests break the OpenAPI document on purpose; responses are still checked.
		req, _ := http.NewRequestWithContext(oapitest.WithoutRequestValidation(context.Background()), "POST", env.URL+"/oauth/token", strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if basicUser != "" {
			req.SetBasicAuth(url.QueryEscape(basicUser), url.QueryEscape(basicPass))
		}
		resp, err := env.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]string
		if resp.StatusCode != 200 {
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("error Content-Type %q", ct)
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
		}
		if resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("Cache-Control %q", resp.Header.Get("Cache-Control"))
		}
		return resp, body
	}
	tests := []struct {
		name, form, user, pass string
		status                 int
		code                   string
		basicChallenge         bool
	}{
		{"wrong secret basic", "grant_type=client_credentials", c.ClientID, "nope", 401, "invalid_client", true},
		{"wrong secret form", "grant_type=client_credentials&client_id=" + c.ClientID + "&client_secret=x", "", "", 401, "invalid_client", false},
		{"no client", "grant_type=client_credentials", "", "", 401, "invalid_client", false},
		{"unsupported grant", "grant_type=password", c.ClientID, c.ClientSecret, 400, "unsupported_grant_type", false},
		{"no grant", "", c.ClientID, c.ClientSecret, 400, "invalid_request", false},
		{"repeated param", "grant_type=client_credentials&grant_type=client_credentials", c.ClientID, c.ClientSecret, 400, "invalid_request", false},
		{"bad code", "grant_type=authorization_code&code=mac_x&code_verifier=" + strings.Repeat("a", 43) + "&redirect_uri=" + url.QueryEscape(redirectURI), c.ClientID, c.ClientSecret, 400, "invalid_grant", false},
		{"bad refresh", "grant_type=refresh_token&refresh_token=mrt_x", c.ClientID, c.ClientSecret, 400, "invalid_grant", false},
		{"ok", "grant_type=client_credentials", c.ClientID, c.ClientSecret, 200, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := post(tt.form, tt.user, tt.pass)
			if resp.StatusCode != tt.status || body["error"] != tt.code {
				t.Fatalf("got %d %v, want %d %s", resp.StatusCode, body, tt.status, tt.code)
			}
			if got := resp.Header.Get("WWW-Authenticate") != ""; got != tt.basicChallenge {
				t.Errorf("WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
			}
		})
	}
}

func TestOAuthAuthorizationCodePKCE(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	c := newOAuthClient(t, env, mockserver.OAuthClientParams{RedirectURIs: []string{redirectURI}})
	cfg := authCodeConfig(env, c)
	ctx := oauthCtx(env)

	verifier := oauth2.GenerateVerifier()
	q := authorize(t, env, cfg.AuthCodeURL("st4te", oauth2.S256ChallengeOption(verifier)))
	if q.Get("state") != "st4te" || q.Get("code") == "" {
		t.Fatalf("redirect query %v", q)
	}
	code := q.Get("code")

	// Wrong verifier: refused, and the code is used up by the attempt.
	if _, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(oauth2.GenerateVerifier())); oauthErrorCode(t, err) != "invalid_grant" {
		t.Fatalf("wrong verifier: %v", err)
	}
	if _, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier)); oauthErrorCode(t, err) != "invalid_grant" {
		t.Fatalf("code after a failed attempt: %v", err)
	}

	// Wrong redirect URI at the token endpoint.
	code = authorize(t, env, cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier))).Get("code")
	other := *cfg
	other.RedirectURL = "https://evil.example/cb"
	if _, err := other.Exchange(ctx, code, oauth2.VerifierOption(verifier)); oauthErrorCode(t, err) != "invalid_grant" {
		t.Fatalf("wrong redirect: %v", err)
	}

	// The good exchange; then the code cannot be reused, and its reuse revokes its tokens.
	code = authorize(t, env, cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier))).Get("code")
	tok, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok.AccessToken, "mat_") || !strings.HasPrefix(tok.RefreshToken, "mrt_") || tok.Extra("scope") != "patients:read" {
		t.Fatalf("token %+v scope %v", tok, tok.Extra("scope"))
	}
	if resp, _ := getWithToken(t, env, tok.AccessToken); resp.StatusCode != 200 {
		t.Fatalf("API: %d", resp.StatusCode)
	}
	if _, err := cfg.Exchange(ctx, code, oauth2.VerifierOption(verifier)); oauthErrorCode(t, err) != "invalid_grant" {
		t.Fatalf("code reuse: %v", err)
	}
	resp, _ := getWithToken(t, env, tok.AccessToken)
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != `Bearer error="invalid_token"` {
		t.Fatalf("token of a replayed code: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

func TestOAuthAuthorizeErrors(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	c := newOAuthClient(t, env, mockserver.OAuthClientParams{RedirectURIs: []string{redirectURI, "https://app.example/other"}})
	challenge := oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier())
	base := url.Values{"response_type": {"code"}, "client_id": {c.ClientID}, "redirect_uri": {redirectURI},
		"state": {"xyz"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	with := func(k, v string) string {
		q := url.Values{}
		for kk, vv := range base {
			q[kk] = vv
		}
		if v == "" {
			q.Del(k)
		} else {
			q.Set(k, v)
		}
		return env.URL + "/oauth/authorize?" + q.Encode()
	}
	redirected := []struct{ name, url, code string }{
		{"plain", with("code_challenge_method", "plain"), "invalid_request"},
		{"no challenge", with("code_challenge", ""), "invalid_request"},
		{"no method", with("code_challenge_method", ""), "invalid_request"},
		{"token response", with("response_type", "token"), "unsupported_response_type"},
		{"bad scope", with("scope", "reports:read"), "invalid_scope"},
	}
	for _, tt := range redirected {
		t.Run(tt.name, func(t *testing.T) {
			q := authorize(t, env, tt.url)
			if q.Get("error") != tt.code || q.Get("state") != "xyz" || q.Get("code") != "" {
				t.Fatalf("query %v, want error %s", q, tt.code)
			}
		})
	}
	direct := []struct{ name, url string }{
		{"unknown client", with("client_id", "cli_nope")},
		{"unregistered redirect", with("redirect_uri", "https://evil.example/cb")},
		{"ambiguous redirect", with("redirect_uri", "")},
	}
	for _, tt := range direct {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := getInvalid(env, tt.url)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body map[string]string
			_ = json.NewDecoder(resp.Body).Decode(&body)
			if resp.StatusCode != 400 || body["error"] != "invalid_request" || resp.Header.Get("Location") != "" {
				t.Fatalf("got %d %v", resp.StatusCode, body)
			}
		})
	}
}

// exchange gets an authorization-code token pair.
func exchange(t *testing.T, env *testenv.Env, cfg *oauth2.Config) *oauth2.Token {
	t.Helper()
	v := oauth2.GenerateVerifier()
	code := authorize(t, env, cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(v))).Get("code")
	tok, err := cfg.Exchange(oauthCtx(env), code, oauth2.VerifierOption(v))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// refresh forces a refresh with rt.
func refresh(env *testenv.Env, cfg *oauth2.Config, rt string) (*oauth2.Token, error) {
	return cfg.TokenSource(oauthCtx(env), &oauth2.Token{RefreshToken: rt}).Token()
}

func TestOAuthRefreshRotationAndReuse(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	c := newOAuthClient(t, env, mockserver.OAuthClientParams{RedirectURIs: []string{redirectURI}})
	cfg := authCodeConfig(env, c)
	first := exchange(t, env, cfg)

	second, err := refresh(env, cfg, first.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if second.RefreshToken == first.RefreshToken || second.AccessToken == first.AccessToken {
		t.Fatal("refresh did not rotate")
	}
	// A normal refresh leaves the previous access token alive until its expiry.
	if resp, _ := getWithToken(t, env, first.AccessToken); resp.StatusCode != 200 {
		t.Fatalf("previous access token after refresh: %d", resp.StatusCode)
	}
	// Reusing the rotated refresh token revokes the whole family.
	if _, err := refresh(env, cfg, first.RefreshToken); oauthErrorCode(t, err) != "invalid_grant" {
		t.Fatalf("reuse: %v", err)
	}
	for _, tok := range []string{first.AccessToken, second.AccessToken} {
		if resp, _ := getWithToken(t, env, tok); resp.StatusCode != 401 {
			t.Errorf("access token of a revoked family: %d", resp.StatusCode)
		}
	}
	if _, err := refresh(env, cfg, second.RefreshToken); oauthErrorCode(t, err) != "invalid_grant" {
		t.Fatalf("newest refresh token of a revoked family: %v", err)
	}

	// Narrower scope on refresh (x/oauth2 sends none on refresh, so the form is built here).
	third := exchange(t, env, &oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, RedirectURL: cfg.RedirectURL,
		Endpoint: cfg.Endpoint, Scopes: []string{"patients:read", "billing:read"}})
	for _, tt := range []struct {
		scope string
		code  int
	}{{"reports:read", 400}, {"billing:read", 200}} {
		form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {third.RefreshToken}, "scope": {tt.scope}}
		req, _ := http.NewRequest("POST", env.URL+"/oauth/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(c.ClientID, c.ClientSecret)
		resp, err := env.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != tt.code || (tt.code == 200 && body["scope"] != "billing:read") || (tt.code == 400 && body["error"] != "invalid_scope") {
			t.Fatalf("refresh with scope %s: %d %v", tt.scope, resp.StatusCode, body)
		}
	}
}

func TestOAuthRevoke(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	c := newOAuthClient(t, env, mockserver.OAuthClientParams{RedirectURIs: []string{redirectURI}})
	cfg := authCodeConfig(env, c)
	revoke := func(token, user, pass string) int {
		req, _ := http.NewRequest("POST", env.URL+"/oauth/revoke", strings.NewReader(url.Values{"token": {token}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := env.HTTP.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := revoke("mat_unknown", c.ClientID, c.ClientSecret); s != 200 {
		t.Fatalf("unknown token: %d", s)
	}
	if s := revoke("mat_unknown", c.ClientID, "wrong"); s != 401 {
		t.Fatalf("wrong client secret: %d", s)
	}

	// Revoking an access token ends only it.
	a := exchange(t, env, cfg)
	if s := revoke(a.AccessToken, c.ClientID, c.ClientSecret); s != 200 {
		t.Fatal(s)
	}
	if resp, _ := getWithToken(t, env, a.AccessToken); resp.StatusCode != 401 {
		t.Fatalf("revoked access token: %d", resp.StatusCode)
	}
	if _, err := refresh(env, cfg, a.RefreshToken); err != nil {
		t.Fatalf("refresh token after revoking its access token: %v", err)
	}

	// Revoking a refresh token ends its family.
	b := exchange(t, env, cfg)
	b2, err := refresh(env, cfg, b.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if s := revoke(b2.RefreshToken, "", ""); s != 200 {
		t.Fatal(s)
	}
	for _, tok := range []string{b.AccessToken, b2.AccessToken} {
		if resp, _ := getWithToken(t, env, tok); resp.StatusCode != 401 {
			t.Errorf("family access token after revoke: %d", resp.StatusCode)
		}
	}
	if _, err := refresh(env, cfg, b2.RefreshToken); err == nil {
		t.Fatal("revoked refresh token still works")
	}
}

func TestOAuthTokenExpiry(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, []mockserver.Option{mockserver.WithTokenLifetimes(10*time.Minute, time.Hour)})
	c := newOAuthClient(t, env, mockserver.OAuthClientParams{RedirectURIs: []string{redirectURI}})
	env.Server.SetTime(c.Account, time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	cfg := authCodeConfig(env, c)
	tok := exchange(t, env, cfg)
	if tok.Extra("expires_in") != float64(600) {
		t.Errorf("expires_in %v", tok.Extra("expires_in"))
	}
	env.Server.AdvanceTime(c.Account, 10*time.Minute)
	resp, body := getWithToken(t, env, tok.AccessToken)
	if resp.StatusCode != 401 || !strings.Contains(string(body), `"token_expired"`) ||
		resp.Header.Get("WWW-Authenticate") != `Bearer error="invalid_token", error_description="token expired"` {
		t.Fatalf("expired token: %d %s %q", resp.StatusCode, body, resp.Header.Get("WWW-Authenticate"))
	}
	// The refresh token lives longer; past its own lifetime it is refused too.
	if _, err := refresh(env, cfg, tok.RefreshToken); err != nil {
		t.Fatal(err)
	}
	tok2 := exchange(t, env, cfg)
	env.Server.AdvanceTime(c.Account, time.Hour)
	if _, err := refresh(env, cfg, tok2.RefreshToken); oauthErrorCode(t, err) != "invalid_grant" {
		t.Fatalf("expired refresh token: %v", err)
	}
}

// TestOAuthCredentialStuffingGuard: 20 failed client authentications of an address and tenant
// within a minute of real time block that pair until the minute is over. The admin clock plays
// no part (frozen here, it must not keep the lockout for ever); another tenant is not blocked.
func TestOAuthCredentialStuffingGuard(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	realNow := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	advance := func(d time.Duration) { mu.Lock(); realNow = realNow.Add(d); mu.Unlock() }
	env := testenv.New(t, []mockserver.Option{mockserver.WithRealTime(func() time.Time { mu.Lock(); defer mu.Unlock(); return realNow })})
	c := newOAuthClient(t, env, mockserver.OAuthClientParams{})
	other := newOAuthClient(t, env, mockserver.OAuthClientParams{})
	env.Server.SetTime("", time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)) // frozen, and never moved
	cc := clientcredentials.Config{ClientID: c.ClientID, ClientSecret: "wrong", TokenURL: env.URL + "/oauth/token",
		AuthStyle: oauth2.AuthStyleInHeader}
	for i := range 20 {
		if _, err := cc.Token(oauthCtx(env)); oauthErrorCode(t, err) != "invalid_client" {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	// The 21st with that secret is refused, whatever it would have been (TestOAuthLockoutSparesTheOwner:
	// the owner's secret is counted apart).
	_, err := cc.Token(oauthCtx(env))
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.Response.StatusCode != 429 || re.ErrorCode != "temporarily_unavailable" {
		t.Fatalf("21st request: %v", err)
	}
	if ra := re.Response.Header.Get("Retry-After"); ra != "60" {
		t.Errorf("Retry-After %q", ra)
	}
	good := cc
	good.ClientSecret = c.ClientSecret
	// Another tenant from the same address is not blocked.
	otherCC := clientcredentials.Config{ClientID: other.ClientID, ClientSecret: other.ClientSecret, TokenURL: env.URL + "/oauth/token",
		AuthStyle: oauth2.AuthStyleInHeader}
	if _, err := otherCC.Token(oauthCtx(env)); err != nil {
		t.Fatalf("another client from the same address: %v", err)
	}
	advance(59 * time.Second)
	if _, err := cc.Token(oauthCtx(env)); !errors.As(err, &re) || re.Response.StatusCode != 429 || re.Response.Header.Get("Retry-After") != "1" {
		t.Fatalf("second 59: %v", err)
	}
	advance(time.Second)
	if _, err := cc.Token(oauthCtx(env)); oauthErrorCode(t, err) != "invalid_client" {
		t.Fatalf("after the minute: %v", err)
	}
	if _, err := good.Token(oauthCtx(env)); err != nil {
		t.Fatalf("after the minute: %v", err)
	}
}

func TestAdminOAuthClients(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	resp, body := env.Do(t, "POST", "/__admin/oauth-clients",
		`{"plan":"professional","scopes":["patients:read"],"account":"`+env.Key.Account+`","redirectUris":["`+redirectURI+`"]}`)
	var c mockserver.OAuthClient
	if err := json.Unmarshal(body, &c); err != nil || resp.StatusCode != 201 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if !strings.HasPrefix(c.ClientID, "cli_") || !strings.HasPrefix(c.ClientSecret, "mcs_") || c.Account != env.Key.Account ||
		c.Plan != "professional" || len(c.RedirectURIs) != 1 {
		t.Fatalf("%+v", c)
	}
	// The client sees the key's account.
	env.Do(t, "POST", "/api/v1/patients", patientJSON)
	cc := clientcredentials.Config{ClientID: c.ClientID, ClientSecret: c.ClientSecret, TokenURL: env.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInHeader}
	tok, err := cc.Token(oauthCtx(env))
	if err != nil {
		t.Fatal(err)
	}
	resp, body = getWithToken(t, env, tok.AccessToken)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"total":1`) || resp.Header.Get("X-RateLimit-Limit") != "500" {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	resp, body = env.DoInvalid(t, "POST", "/__admin/oauth-clients", `{"plan":"gold","scopes":["nope"],"redirectUris":["/relative"]}`)
	if resp.StatusCode != 422 || strings.Count(string(body), `"pointer"`) != 3 || !strings.Contains(string(body), `"pointer":"/redirectUris/0"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}
