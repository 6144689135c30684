package mockserver

import (
	"net/http/httptest"
	"testing"

	medspa "github.com/medspa/medspa-go"
)

// NewTest returns a fresh server and an SDK client for it, authenticated with a new key (plan
// enterprise, every scope) and cleaned up with t. By default the client talks to the server
// in-process; WithLoopbackListener serves it over a real 127.0.0.1 listener instead. Extra SDK
// options (say, medspa.WithMaxRetries(0)) go through ClientOptions.
func NewTest(t testing.TB, opts ...Option) (*Server, *medspa.Client) {
	t.Helper()
	s := New(opts...)
	t.Cleanup(s.Close)
	key, err := s.CreateAPIKey(APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
	if err != nil {
		t.Fatalf("mockserver: creating API key: %v", err)
	}
	copts := []medspa.Option{medspa.WithAPIKey(key.Key), medspa.WithRetryWait(0, 0)}
	if s.opts.listen {
		ts := httptest.NewServer(s)
		t.Cleanup(ts.Close)
		copts = append(copts, medspa.WithBaseURL(ts.URL), medspa.WithHTTPClient(ts.Client()))
	} else {
		copts = append(copts, medspa.WithBaseURL(InProcessBaseURL), medspa.WithHTTPClient(s.Client()))
	}
	c, err := medspa.New(copts...)
	if err != nil {
		t.Fatalf("mockserver: creating SDK client: %v", err)
	}
	return s, c
}
