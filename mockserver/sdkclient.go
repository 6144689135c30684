package mockserver

import (
	"net/http"
	"time"

	medspa "github.com/medspa/medspa-go"
)

// NewClient creates an API key (plan enterprise, every scope, a fresh account) and returns an SDK
// client for it (see ClientFor), plus the key (key.Account names the account). Extra options are
// applied last. It suits examples, programs and second clients in tests.
func (s *Server) NewClient(opts ...medspa.Option) (*medspa.Client, APIKey, error) {
	key, err := s.CreateAPIKey(APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
	if err != nil {
		return nil, APIKey{}, err
	}
	c, err := s.ClientFor(key, opts...)
	return c, key, err
}

// ClientFor returns an SDK client of the server, in-process, authenticated with key. Like
// NewTest's client it retries without waiting, signs its requests when the key requires
// signing, and runs on the clock of key's account (medspa.WithClock with Now(key.Account)), so
// signatures and token lifetimes follow SetTime and AdvanceTime. Extra options are applied last.
func (s *Server) ClientFor(key APIKey, opts ...medspa.Option) (*medspa.Client, error) {
	return medspa.New(append(s.clientOptions(key, InProcessBaseURL, s.HTTPClient()), opts...)...)
}

// clientOptions configure an SDK client of the server for key, sending to baseURL through hc.
func (s *Server) clientOptions(key APIKey, baseURL string, hc *http.Client) []medspa.Option {
	opts := []medspa.Option{medspa.WithAPIKey(key.Key), medspa.WithBaseURL(baseURL), medspa.WithHTTPClient(hc),
		medspa.WithRetryWait(0, 0), medspa.WithClock(func() time.Time { return s.Now(key.Account) })}
	if key.SigningRequired {
		opts = append(opts, medspa.WithSigning(key.ID, key.SigningSecret))
	}
	return opts
}
