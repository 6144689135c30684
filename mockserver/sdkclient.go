package mockserver

import medspa "github.com/medspa/medspa-go"

// NewClient creates an API key (plan enterprise, every scope, a fresh account) and returns an SDK
// client wired to the server in-process, plus the key (key.Account names the account). Like
// NewTest's client it retries without waiting. Extra options are applied last. It suits examples,
// programs and second clients in tests.
func (s *Server) NewClient(opts ...medspa.Option) (*medspa.Client, APIKey, error) {
	key, err := s.CreateAPIKey(APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
	if err != nil {
		return nil, APIKey{}, err
	}
	base := []medspa.Option{medspa.WithAPIKey(key.Key), medspa.WithBaseURL(InProcessBaseURL),
		medspa.WithHTTPClient(s.HTTPClient()), medspa.WithRetryWait(0, 0)}
	c, err := medspa.New(append(base, opts...)...)
	return c, key, err
}
