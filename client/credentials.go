package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// credentials produce the Authorization header of each attempt.
type credentials interface {
	// authorization returns the header value ("" sends none).
	authorization(ctx context.Context) (string, error)
	// refresh drops the token that req carried when the server said it expired, and reports
	// whether a different token can be tried.
	refresh(ctx context.Context, req *http.Request) bool
}

func newCredentials(cfg *config) credentials {
	if cfg.oauth != nil {
		return &tokenCredentials{src: cfg.oauth.source(cfg)}
	}
	if cfg.tokenSource != nil {
		return &tokenCredentials{src: cfg.tokenSource}
	}
	if cfg.apiKey == "" {
		return apiKeyCredentials("")
	}
	return apiKeyCredentials("Bearer " + cfg.apiKey)
}

// apiKeyCredentials send a fixed API key: the whole Authorization value, built once.
type apiKeyCredentials string

func (k apiKeyCredentials) authorization(context.Context) (string, error) { return string(k), nil }

func (apiKeyCredentials) refresh(context.Context, *http.Request) bool { return false }

// tokenCredentials cache the access token of an oauth2.TokenSource. Concurrent calls that
// find the same token expired share one refresh: the first drops it under the lock, and the
// next authorization call (serialized by the same lock) fetches exactly one new token.
type tokenCredentials struct {
	src oauth2.TokenSource
	mu  sync.Mutex
	tok *oauth2.Token
}

func (t *tokenCredentials) authorization(context.Context) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok == nil || !t.tok.Valid() {
		tok, err := t.src.Token()
		if err != nil {
			return "", &TokenError{Err: err}
		}
		t.tok = tok
	}
	return t.tok.Type() + " " + t.tok.AccessToken, nil
}

func (t *tokenCredentials) refresh(_ context.Context, req *http.Request) bool {
	sent := strings.TrimSpace(req.Header.Get("Authorization"))
	_, sentToken, _ := strings.Cut(sent, " ")
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok != nil && t.tok.AccessToken == sentToken {
		t.tok = nil
		if r, ok := t.src.(interface{ Invalidate(string) }); ok {
			r.Invalidate(sentToken)
		}
	}
	return true
}

// TokenError is a failure to obtain an OAuth access token (the token endpoint refused, or
// could not be reached). Err is the token source's error, e.g. an *oauth2.RetrieveError.
// Calls fail with it (wrapped) and are not retried.
type TokenError struct{ Err error }

// Error says that obtaining a token failed, and why.
func (e *TokenError) Error() string { return "medspa: obtaining OAuth token: " + e.Err.Error() }

// Unwrap returns the token source's error.
func (e *TokenError) Unwrap() error { return e.Err }

// OAuthEndpoint returns the authorization server endpoints of the API at baseURL, for an
// oauth2.Config: /oauth/authorize, /oauth/token, client authentication by HTTP Basic.
func OAuthEndpoint(baseURL string) oauth2.Endpoint {
	base := strings.TrimRight(baseURL, "/")
	return oauth2.Endpoint{AuthURL: base + "/oauth/authorize", TokenURL: base + "/oauth/token", AuthStyle: oauth2.AuthStyleInHeader}
}

// oauthSetup defers building a token source until the base URL and HTTP client are final.
type oauthSetup struct {
	source func(cfg *config) oauth2.TokenSource
}

// tokenContext is the context token requests run in: it carries the client's own HTTP client
// (without the API call stages), so token traffic uses the same transport and TLS settings.
func tokenContext(cfg *config) context.Context {
	hc := cfg.httpClient
	if hc == nil {
		hc = &http.Client{Transport: defaultTransport}
	}
	return context.WithValue(context.Background(), oauth2.HTTPClient, hc)
}

// WithClientCredentials authenticates with the OAuth 2.0 client-credentials grant against the
// API's /oauth/token (client authentication by HTTP Basic), asking for scopes (none: all of the
// client's). Tokens are cached; when one expires, locally or by the server's clock
// (401 token_expired), a new one is requested once and shared by every concurrent call.
func WithClientCredentials(clientID, clientSecret string, scopes ...string) Option {
	setup := &oauthSetup{source: func(cfg *config) oauth2.TokenSource {
		cc := &clientcredentials.Config{ClientID: clientID, ClientSecret: clientSecret, Scopes: scopes,
			TokenURL: OAuthEndpoint(cfg.baseURL).TokenURL, AuthStyle: oauth2.AuthStyleInHeader}
		return clientCredentialsSource{cc: cc, ctx: tokenContext(cfg)}
	}}
	return func(c *config) { c.oauth, c.apiKey, c.tokenSource = setup, "", nil }
}

// clientCredentialsSource requests a new token on every call (the caching is tokenCredentials').
type clientCredentialsSource struct {
	cc  *clientcredentials.Config
	ctx context.Context
}

func (s clientCredentialsSource) Token() (*oauth2.Token, error) { return s.cc.Token(s.ctx) }

// WithOAuth2 authenticates with tokens of the authorization-code flow: tok (from
// cfg.Exchange) is used until it expires, then refreshed with its refresh token. When the
// server answers 401 token_expired, the refresh happens even if tok still looks valid locally
// (the server's clock decides), once for every concurrent call. Rotated refresh tokens are
// kept. Use OAuthEndpoint for cfg.Endpoint.
func WithOAuth2(cfg *oauth2.Config, tok *oauth2.Token) Option {
	setup := &oauthSetup{source: func(c *config) oauth2.TokenSource {
		return &refreshingSource{cfg: cfg, ctx: tokenContext(c), tok: tok}
	}}
	return func(c *config) { c.oauth, c.apiKey, c.tokenSource = setup, "", nil }
}

var errNoRefreshToken = errors.New("the access token expired and there is no refresh token")

// refreshingSource hands out the initial token once while it is valid; every later call
// refreshes with the newest refresh token.
type refreshingSource struct {
	cfg    *oauth2.Config
	ctx    context.Context
	mu     sync.Mutex
	tok    *oauth2.Token
	handed bool
}

func (s *refreshingSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.handed && s.tok != nil && s.tok.Valid() {
		s.handed = true
		return s.tok, nil
	}
	if s.tok == nil || s.tok.RefreshToken == "" {
		return nil, errNoRefreshToken
	}
	// A token with only a refresh token is invalid, so the source refreshes at once.
	nt, err := s.cfg.TokenSource(s.ctx, &oauth2.Token{RefreshToken: s.tok.RefreshToken}).Token()
	if err != nil {
		return nil, err
	}
	s.tok, s.handed = nt, true
	return nt, nil
}
