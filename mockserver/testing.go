package mockserver

import (
	"net/http"
	"net/http/httptest"
	"testing"

	medspa "github.com/medspa/medspa-go"
)

// TestServer is a server made for one test, with what the test needs to talk to it: an SDK
// client, the API key it uses and that key's account. The embedded *Server carries the
// controls (clock, fixtures, faults, journal, …). Those that take an account have a short form
// on TestServer for Account — ts.SetTime(t), ts.AdvanceTime(d), ts.Now(), ts.Requests(),
// ts.Deliveries(), ts.Reset(), ts.LoadFixtures(fx), ts.Snapshot(name), … — which shadows the
// *Server method; reach another account (or "", the server-wide clock) through the embedded
// field: ts.Server.SetTime(other, t). WebhookReceiver gives a verified webhook endpoint.
type TestServer struct {
	*Server
	// Client is an SDK client authenticated with Key. It retries without waiting, so injected
	// faults cost a test no time, and runs on the clock of Account, so a test that moves that
	// clock (SetTime, AdvanceTime) keeps signing and refreshing tokens right.
	Client *medspa.Client
	// Key is the client's API key: plan enterprise, every scope, a fresh account.
	Key APIKey
	// Account is Key's account, the one the client's requests act on.
	Account string
	// BaseURL is the address the client sends to: InProcessBaseURL, or the loopback listener's
	// URL with WithLoopbackListener.
	BaseURL string

	hc *http.Client // the client's transport: in-process, or to the listener
}

// NewTest returns a fresh server, an SDK client for it and the client's key, all closed with t.
// By default the client talks to the server in-process; WithLoopbackListener serves it over a
// real 127.0.0.1 listener instead. For a second client, call NewClient (a fresh key and account)
// or ClientFor (a key of your own, such as one with signing required).
func NewTest(t testing.TB, opts ...Option) *TestServer {
	t.Helper()
	s, err := New(opts...)
	if err != nil {
		t.Fatalf("mockserver: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	key, err := s.CreateAPIKey(APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
	if err != nil {
		t.Fatalf("mockserver: creating API key: %v", err)
	}
	ts := &TestServer{Server: s, Key: key, Account: key.Account, BaseURL: InProcessBaseURL, hc: s.HTTPClient()}
	if s.opts.listen {
		hs := httptest.NewUnstartedServer(s)
		hs.Config = s.HTTPServer() // the timeouts and head limit of docs/protocol.md §13
		hs.Listener = s.LimitListener(hs.Listener)
		hs.Start()
		s.onClose(func() error { hs.Close(); return nil })
		ts.BaseURL, ts.hc = hs.URL, hs.Client()
	}
	if ts.Client, err = ts.ClientFor(key); err != nil {
		t.Fatalf("mockserver: creating SDK client: %v", err)
	}
	return ts
}

// ClientFor returns an SDK client of the test's server authenticated with key (from
// CreateAPIKey), as Server.ClientFor does but over the test's transport (in-process, or the
// loopback listener): no retry waits, signing when the key requires it, the clock of key's
// account. Extra options are applied last.
func (ts *TestServer) ClientFor(key APIKey, opts ...medspa.Option) (*medspa.Client, error) {
	return medspa.New(append(ts.clientOptions(key, ts.BaseURL, ts.hc), opts...)...)
}
