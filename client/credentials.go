package client

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/medspa/medspa-go/internal/safetext"
)

// credentials produce the Authorization header of each attempt.
type credentials interface {
	// authorization returns the header value ("" sends none). A token fetched on the way is
	// reported to cfg (its hook and logger): the configuration of the call that needed it.
	authorization(ctx context.Context, cfg *config) (string, error)
	// renew drops the token that authorization sent when the server said it expired, and
	// reports whether the call may be resent with another.
	renew(sent string) bool
}

// credentialKey names the credential cfg authenticates with, for sharing token caches and rate
// limiters between every call that names it: the base URL and the API key, OAuth client or
// token source.
func credentialKey(cfg *config) string {
	switch {
	case cfg.oauth != nil:
		return cfg.baseURL + " oauth " + cfg.oauth.id
	case cfg.tokenSource != nil:
		v := reflect.ValueOf(cfg.tokenSource)
		if k := v.Kind(); k == reflect.Pointer || k == reflect.Func || k == reflect.Map || k == reflect.Chan {
			return fmt.Sprintf("%s token-source %T %x", cfg.baseURL, cfg.tokenSource, v.Pointer())
		}
		// Token sources of one value type share a cache: stricter than needed, never wrong.
		return fmt.Sprintf("%s token-source %T", cfg.baseURL, cfg.tokenSource)
	default:
		return cfg.baseURL + " api-key " + cfg.apiKey
	}
}

func newCredentials(cfg *config, hc *http.Client) credentials {
	switch {
	case cfg.oauth != nil:
		return &tokenCredentials{src: cfg.oauth.source(cfg, hc), grant: cfg.oauth.grant, now: cfg.now, next: TokenFirst}
	case cfg.tokenSource != nil:
		return &tokenCredentials{src: cfg.tokenSource, grant: "token_source", now: cfg.now, next: TokenFirst}
	case cfg.apiKey == "":
		return apiKeyCredentials("")
	default:
		return apiKeyCredentials("Bearer " + cfg.apiKey)
	}
}

// apiKeyCredentials send a fixed API key: the whole Authorization value, built once.
type apiKeyCredentials string

func (k apiKeyCredentials) authorization(context.Context, *config) (string, error) {
	return string(k), nil
}

func (apiKeyCredentials) renew(string) bool { return false }

// Bounds on how long an access token is used (docs/protocol.md §5 says the server always sends
// expires_in, 3600 s; a server that says otherwise must not make the client hammer its token
// endpoint, nor keep a token for days).
const (
	minTokenLifetime = 30 * time.Second
	maxTokenLifetime = 24 * time.Hour
	// tokenMargin renews a token before its last seconds, so it does not expire on the way.
	tokenMargin = 10 * time.Second
)

// tokenCredentials cache the access token of an oauth2.TokenSource, and renew it one fetch at a
// time: concurrent calls that need a token wait for the fetch in flight (or for their context).
type tokenCredentials struct {
	src   oauth2.TokenSource
	grant string // for TokenRefresh
	now   func() time.Time

	mu        sync.Mutex
	tok       *oauth2.Token
	header    string             // the Authorization value of tok
	fetched   time.Time          // when tok was fetched, by now
	renewAt   time.Time          // when tok is renewed
	shortLife bool               // the server gave tok less than minTokenLifetime: renewals wait that long
	next      TokenRefreshReason // why the next fetch happens
	flight    *tokenFetch
}

// tokenFetch is one token request in flight; done closes when it ends.
type tokenFetch struct {
	done chan struct{}
	err  error
}

func (t *tokenCredentials) authorization(ctx context.Context, cfg *config) (string, error) {
	for {
		t.mu.Lock()
		if t.tok != nil && t.now().Before(t.renewAt) {
			h := t.header
			t.mu.Unlock()
			return h, nil
		}
		f := t.flight
		if f == nil {
			f = &tokenFetch{done: make(chan struct{})}
			t.flight = f
			t.mu.Unlock()
			cfg.reportRefresh(ctx, t.fetch(f))
		} else {
			t.mu.Unlock()
		}
		select {
		case <-f.done:
			if f.err != nil {
				return "", f.err
			}
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// fetch requests a token from the source and keeps it with its lifetime: the token's expiry
// (which oauth2 sets from the server's expires_in) less tokenMargin, clamped to [minTokenLifetime,
// maxTokenLifetime]; a token without either lives minTokenLifetime. It returns what happened,
// for the hook and the log.
func (t *tokenCredentials) fetch(f *tokenFetch) TokenRefresh {
	t.mu.Lock()
	r := TokenRefresh{Reason: t.next, Grant: t.grant, At: t.now()}
	t.mu.Unlock()
	start := time.Now()
	tok, err := t.src.Token()
	r.Took = time.Since(start)
	t.mu.Lock()
	defer t.mu.Unlock()
	defer close(f.done)
	t.flight = nil
	if err != nil {
		f.err = &TokenError{Err: err}
		r.Err = f.err
		return r
	}
	life := time.Duration(0)
	switch {
	case !tok.Expiry.IsZero():
		// oauth2 sets Expiry from expires_in (whole seconds) by the real clock, a moment ago.
		life = time.Until(tok.Expiry).Round(time.Second)
	case tok.ExpiresIn > 0:
		life = time.Duration(tok.ExpiresIn) * time.Second
	}
	life -= tokenMargin
	t.tok, t.header, t.fetched = tok, tok.Type()+" "+tok.AccessToken, t.now()
	t.shortLife = life < minTokenLifetime
	t.renewAt = t.fetched.Add(min(max(life, minTokenLifetime), maxTokenLifetime))
	t.next, r.RenewAt = TokenExpiring, t.renewAt
	return r
}

// renew drops the token after the server answered 401 token_expired for sent (an Authorization
// value): the server's clock decides, so a token that looks valid locally is renewed too, once
// for every concurrent call that sent it. A token the server gave less than minTokenLifetime is
// renewed only once that much time has passed, so such a server costs one token request per
// minTokenLifetime rather than one per call: the calls in between fail with the 401.
func (t *tokenCredentials) renew(sent string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok == nil || t.header != sent {
		return true // another call renewed it already: resend with the new one
	}
	if t.shortLife && t.now().Sub(t.fetched) < minTokenLifetime {
		return false
	}
	if r, ok := t.src.(interface{ Invalidate(string) }); ok {
		r.Invalidate(t.tok.AccessToken)
	}
	t.tok, t.header, t.next = nil, "", TokenRejected
	return true
}

// TokenRefreshReason says why the client fetched an OAuth access token.
type TokenRefreshReason string

// Why a token is fetched.
const (
	// TokenFirst is the first token of a credential.
	TokenFirst TokenRefreshReason = "first"
	// TokenExpiring replaces a token whose lifetime, by the client's clock (WithClock), is over.
	TokenExpiring TokenRefreshReason = "expiring"
	// TokenRejected replaces a token the server answered 401 token_expired to.
	TokenRejected TokenRefreshReason = "token_expired"
)

// TokenRefresh describes one fetch of an OAuth access token, for WithTokenRefreshHook and the
// log: metadata only, never a token, a secret or the token endpoint's answer.
type TokenRefresh struct {
	// Reason is why the token was fetched.
	Reason TokenRefreshReason
	// Grant is how: "client_credentials" (WithClientCredentials), "authorization_code"
	// (WithOAuth2: its first token, then refresh-token grants) or "token_source"
	// (WithTokenSource).
	Grant string
	// At is when the fetch started, by the client's clock.
	At time.Time
	// Took is how long the fetch took.
	Took time.Duration
	// RenewAt is when, by the client's clock, the client fetches the next token unless the
	// server rejects this one first; zero when the fetch failed.
	RenewAt time.Time
	// Err is the failure (a *TokenError), nil when a token was obtained.
	Err error
}

// WithTokenRefreshHook calls hook after every fetch of an OAuth access token (the first one, one
// whose lifetime is over, one the server rejected as expired), successful or not, in the
// goroutine of the call that needed the token, before that call goes on. Each fetch is also
// logged at Info (WithLogger). hook must be quick and safe for concurrent use.
func WithTokenRefreshHook(hook func(TokenRefresh)) RequestOption {
	return func(c *config) { c.tokenHook = hook }
}

// reportRefresh logs a token fetch and hands it to the hook.
func (c *config) reportRefresh(ctx context.Context, r TokenRefresh) {
	if c.logger != nil && c.logger.Enabled(ctx, slog.LevelInfo) {
		attrs := []slog.Attr{slog.String("reason", string(r.Reason)), slog.String("grant", r.Grant), slog.Duration("took", r.Took)}
		if r.Err != nil {
			attrs = append(attrs, slog.String("error", r.Err.Error()))
		} else {
			attrs = append(attrs, slog.Time("renew_at", r.RenewAt))
		}
		c.logger.LogAttrs(ctx, slog.LevelInfo, "medspa token refresh", attrs...)
	}
	if c.tokenHook != nil {
		c.tokenHook(r)
	}
}

// TokenError is a failure to obtain an OAuth access token (the token endpoint refused, or
// could not be reached). Err is the token source's error, e.g. an *oauth2.RetrieveError.
// Calls fail with it (wrapped) and are not retried.
type TokenError struct{ Err error }

// Error says that obtaining a token failed and why, without the token endpoint's body or URL.
func (e *TokenError) Error() string {
	var re *oauth2.RetrieveError
	switch {
	case errors.As(e.Err, &re) && re.ErrorCode != "":
		msg := fmt.Sprintf("medspa: obtaining OAuth token: %d %s", statusOf(re), safetext.Line(re.ErrorCode))
		if re.ErrorDescription != "" {
			msg += ": " + safetext.Line(re.ErrorDescription)
		}
		return msg
	case errors.As(e.Err, &re):
		return fmt.Sprintf("medspa: obtaining OAuth token: the token endpoint answered %d", statusOf(re))
	}
	return "medspa: obtaining OAuth token: " + describeTransport(e.Err)
}

func statusOf(re *oauth2.RetrieveError) int {
	if re.Response == nil {
		return 0
	}
	return re.Response.StatusCode
}

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
	id     string // the credential, for credentialKey: never the secret itself
	grant  string // for TokenRefresh
	source func(cfg *config, hc *http.Client) oauth2.TokenSource
}

// tokenContext is the context token requests run in: it carries the client's HTTP client (its
// transport, timeouts and redirect rules), so token traffic has the same TLS settings.
func tokenContext(hc *http.Client) context.Context {
	return context.WithValue(context.Background(), oauth2.HTTPClient, hc)
}

// WithClientCredentials authenticates with the OAuth 2.0 client-credentials grant against the
// API's /oauth/token (client authentication by HTTP Basic), asking for scopes (none: all of the
// client's). Tokens are cached and shared by every call naming the same client and scopes; one
// is renewed when its expires_in has passed (taken as at least 30 s and at most 24 h, whatever
// the server says) or when the server answers 401 token_expired, one request for every
// concurrent call.
func WithClientCredentials(clientID, clientSecret string, scopes ...string) RequestOption {
	setup := &oauthSetup{
		id:    fmt.Sprintf("client-credentials %q %x %q", clientID, sha256.Sum256([]byte(clientSecret)), scopes),
		grant: "client_credentials",
		source: func(cfg *config, hc *http.Client) oauth2.TokenSource {
			cc := &clientcredentials.Config{ClientID: clientID, ClientSecret: clientSecret, Scopes: scopes,
				TokenURL: OAuthEndpoint(cfg.baseURL).TokenURL, AuthStyle: oauth2.AuthStyleInHeader}
			return clientCredentialsSource{cc: cc, ctx: tokenContext(hc)}
		},
	}
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
func WithOAuth2(cfg *oauth2.Config, tok *oauth2.Token) RequestOption {
	setup := &oauthSetup{
		id:    fmt.Sprintf("authorization-code %q %p", cfg.ClientID, tok),
		grant: "authorization_code",
		source: func(_ *config, hc *http.Client) oauth2.TokenSource {
			return &refreshingSource{cfg: cfg, ctx: tokenContext(hc), tok: tok}
		},
	}
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
