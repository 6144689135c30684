package mockserver

import medspa "github.com/medspa/medspa-go"

// NewClient creates an API key (plan enterprise, every scope, a fresh account) and returns an SDK
// client wired to the server in-process, plus the key. Extra options are applied last. It suits
// examples and programs; tests usually call NewTest, which also cleans up.
func (s *Server) NewClient(opts ...medspa.Option) (*medspa.Client, APIKey, error) {
	key, err := s.CreateAPIKey(APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
	if err != nil {
		return nil, APIKey{}, err
	}
	base := []medspa.Option{medspa.WithAPIKey(key.Key), medspa.WithBaseURL(InProcessBaseURL), medspa.WithHTTPClient(s.Client())}
	c, err := medspa.New(append(base, opts...)...)
	return c, key, err
}
