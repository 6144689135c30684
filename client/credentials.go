package client

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"golang.org/x/oauth2"
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
	if cfg.tokenSource != nil {
		return &tokenCredentials{src: cfg.tokenSource}
	}
	return apiKeyCredentials(cfg.apiKey)
}

// apiKeyCredentials send a fixed API key.
type apiKeyCredentials string

func (k apiKeyCredentials) authorization(context.Context) (string, error) {
	if k == "" {
		return "", nil
	}
	return "Bearer " + string(k), nil
}

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
			return "", fmt.Errorf("medspa: obtaining OAuth token: %w", err)
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
