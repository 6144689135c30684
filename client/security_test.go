package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// counted serves env's server on another loopback listener that counts requests per path.
type counted struct {
	URL string
	mu  sync.Mutex
	n   map[string]int
}

func countRequests(t *testing.T, env *testenv.Env) *counted {
	c := &counted{n: map[string]int{}}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.n[r.URL.Path]++
		c.mu.Unlock()
		env.Server.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c.URL = ts.URL
	return c
}

func (c *counted) count(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[path]
}

func newClient(t *testing.T, env *testenv.Env, base string, opts ...client.Option) *medspa.Client {
	t.Helper()
	all := append([]client.Option{client.WithBaseURL(base), client.WithHTTPClient(env.HTTP), client.WithRetryWait(0, 0)}, opts...)
	c, err := medspa.New(all...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newOAuthClient(t *testing.T, env *testenv.Env) mockserver.OAuthClient {
	t.Helper()
	c, err := env.Server.CreateOAuthClient(mockserver.OAuthClientParams{Plan: "enterprise", Scopes: []string{"patients:read", "patients:write"},
		RedirectURIs: []string{"https://app.example/cb"}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClientCredentialsRefreshOnServerExpiry(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	oc := newOAuthClient(t, env)
	env.Server.SetTime(oc.Account, t0)
	srv := countRequests(t, env)
	c := newClient(t, env, srv.URL, client.WithClientCredentials(oc.ClientID, oc.ClientSecret))
	ctx := context.Background()
	if _, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"}); err != nil {
		t.Fatal(err)
	}
	if n := srv.count("/oauth/token"); n != 1 {
		t.Fatalf("token requests %d", n)
	}
	// The server's clock passes the token's expiry; locally it still looks valid.
	env.Server.AdvanceTime(oc.Account, time.Hour)
	var resp *client.Response
	list, resp, err := c.Patients.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Two attempts: the one the server found expired, and the resend with the new token.
	if len(list.Data) != 1 || srv.count("/oauth/token") != 2 || resp.Attempts != 2 {
		t.Fatalf("after expiry: %d patients, %d token requests, %d attempts", len(list.Data), srv.count("/oauth/token"), resp.Attempts)
	}
	// Audit and rate limits count per OAuth client.
	events := env.Server.AuditEvents(oc.Account)
	if len(events) == 0 || events[0].Actor != oc.ClientID {
		t.Fatalf("audit actor: %+v", events)
	}
}

func TestConcurrentCallsShareOneRefresh(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	oc := newOAuthClient(t, env)
	env.Server.SetTime(oc.Account, t0)
	srv := countRequests(t, env)
	c := newClient(t, env, srv.URL, client.WithClientCredentials(oc.ClientID, oc.ClientSecret, "patients:read"))
	ctx := context.Background()
	if _, _, err := c.Patients.List(ctx, nil); err != nil {
		t.Fatal(err)
	}
	env.Server.AdvanceTime(oc.Account, 2*time.Hour)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Go(func() {
			if _, _, err := c.Patients.List(ctx, nil); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := srv.count("/oauth/token"); n != 2 {
		t.Fatalf("token requests %d, want 2 (one initial, one shared refresh)", n)
	}
	if n := srv.count("/api/v1/patients"); n < 21 || n > 41 {
		t.Fatalf("API requests %d", n)
	}
}

func TestAuthorizationCodeForcedRefresh(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	oc := newOAuthClient(t, env)
	env.Server.SetTime(oc.Account, t0)
	srv := countRequests(t, env)
	cfg := &oauth2.Config{ClientID: oc.ClientID, ClientSecret: oc.ClientSecret, RedirectURL: "https://app.example/cb",
		Scopes: []string{"patients:read"}, Endpoint: client.OAuthEndpoint(srv.URL + "/")}
	if cfg.Endpoint.TokenURL != srv.URL+"/oauth/token" || cfg.Endpoint.AuthURL != srv.URL+"/oauth/authorize" || cfg.Endpoint.AuthStyle != oauth2.AuthStyleInHeader {
		t.Fatalf("endpoint %+v", cfg.Endpoint)
	}
	octx := context.WithValue(context.Background(), oauth2.HTTPClient, env.HTTP)
	verifier := oauth2.GenerateVerifier()
	hc := *env.HTTP
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	r, err := hc.Get(cfg.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	loc, _ := url.Parse(r.Header.Get("Location"))
	tok, err := cfg.Exchange(octx, loc.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, env, srv.URL, client.WithOAuth2(cfg, tok))
	if _, _, err := c.Patients.List(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	base := srv.count("/oauth/token") // the exchange
	env.Server.AdvanceTime(oc.Account, 61*time.Minute)
	for i := range 3 { // refresh, then the rotated refresh token works again later
		if _, _, err := c.Patients.List(context.Background(), nil); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got := srv.count("/oauth/token") - base; got != i+1 {
			t.Fatalf("call %d: %d refreshes", i, got)
		}
		env.Server.AdvanceTime(oc.Account, 61*time.Minute)
	}
	// Past the refresh token's 30 days the refresh fails: the SDK reports the token error
	// instead of swallowing it.
	env.Server.AdvanceTime(oc.Account, 31*24*time.Hour)
	_, _, err = c.Patients.List(context.Background(), nil)
	var te *client.TokenError
	var re *oauth2.RetrieveError
	if !errors.As(err, &te) || !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Fatalf("token error: %v", err)
	}
}

func TestTokenErrorsAreReturned(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	oc := newOAuthClient(t, env)
	srv := countRequests(t, env)
	c := newClient(t, env, srv.URL, client.WithClientCredentials(oc.ClientID, "wrong"))
	_, _, err := c.Patients.List(context.Background(), nil)
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_client" {
		t.Fatalf("err %v", err)
	}
	if n := srv.count("/oauth/token"); n != 1 {
		t.Errorf("token requests %d: a refused token must not be retried", n)
	}
	if n := srv.count("/api/v1/patients"); n != 0 {
		t.Errorf("API requests %d without a token", n)
	}
}

// tamper is a transport that can change what the server sees or answers.
type tamper struct {
	base     http.RoundTripper
	mu       sync.Mutex
	inputs   []string
	request  func(n int, req *http.Request)
	response func(n int, resp *http.Response) *http.Response
}

func (t *tamper) RoundTrip(req *http.Request) (*http.Response, error) {
	t.mu.Lock()
	n := len(t.inputs)
	t.inputs = append(t.inputs, req.Header.Get("Signature-Input"))
	t.mu.Unlock()
	if t.request != nil {
		req = req.Clone(req.Context())
		t.request(n, req)
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && t.response != nil {
		resp = t.response(n, resp)
	}
	return resp, err
}

func body(resp *http.Response) []byte {
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return b
}

func TestSigningInterop(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	k := env.NewKey(t, mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}, SigningRequired: true})
	ctx := context.Background()

	if _, err := client.NewEngine(client.WithSigning(k.ID, "mss_short")); err == nil {
		t.Fatal("invalid signing secret accepted")
	}
	if _, err := client.NewEngine(client.WithSigning(k.ID, k.Key)); err == nil || strings.Contains(err.Error(), k.Key) {
		t.Fatalf("API key as signing secret: %v", err)
	}

	// Unsigned: the server refuses, and the SDK reports the server's error.
	_, _, err := env.ClientFor(t, k.Key).Patients.List(ctx, nil)
	if !errors.Is(err, client.ErrInvalidSignature) {
		t.Fatalf("unsigned: %v", err)
	}

	tr := &tamper{base: env.HTTP.Transport}
	c := env.ClientFor(t, k.Key, client.WithSigning(k.ID, k.SigningSecret), client.WithHTTPClient(&http.Client{Transport: tr}))
	p, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, err := c.Patients.Get(ctx, p.ID); err != nil || got.ID != p.ID {
		t.Fatalf("get: %v", err)
	}
	if _, _, err := c.Patients.List(ctx, &patients.ListParams{Q: "ada lovelace & co"}); err != nil {
		t.Fatalf("list with query: %v", err)
	}
	// Signed error answers verify and come back as *Error.
	if _, _, err := c.Patients.Get(ctx, "pat_00000000000000000000000000000000"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("signed 404: %v", err)
	}

	// Retries are re-signed: the first attempt reaches the server (which records its nonce) but
	// its answer is lost; the retry must carry a fresh signature or it would be a replay.
	tr.mu.Lock()
	start := len(tr.inputs)
	tr.mu.Unlock()
	tr.response = func(n int, resp *http.Response) *http.Response {
		if n == start {
			resp.Body.Close()
			return &http.Response{StatusCode: 503, Header: http.Header{"Retry-After": {"0"}}, Body: io.NopCloser(strings.NewReader("")), Request: resp.Request}
		}
		return resp
	}
	_, meta, err := c.Patients.Get(ctx, p.ID)
	if err != nil {
		t.Fatalf("retried call: %v", err)
	}
	if meta.Attempts != 2 || tr.inputs[start] == tr.inputs[start+1] {
		t.Fatalf("attempts %d, inputs %q", meta.Attempts, tr.inputs[start:])
	}

	// Tampered or unsigned responses are errors, never data.
	tampering := map[string]func(resp *http.Response) *http.Response{
		"body": func(resp *http.Response) *http.Response {
			b := bytes.Replace(body(resp), []byte("Ada"), []byte("Eve"), 1)
			resp.Body = io.NopCloser(bytes.NewReader(b))
			return resp
		},
		"status": func(resp *http.Response) *http.Response { resp.StatusCode = 201; return resp },
		"request id": func(resp *http.Response) *http.Response {
			resp.Header.Set("X-Request-Id", "req_other")
			return resp
		},
		"stripped": func(resp *http.Response) *http.Response {
			resp.Header.Del("Signature")
			resp.Header.Del("Signature-Input")
			return resp
		},
	}
	for name, f := range tampering {
		t.Run(name, func(t *testing.T) {
			tr.response = func(_ int, resp *http.Response) *http.Response { return f(resp) }
			defer func() { tr.response = nil }()
			got, _, err := c.Patients.Get(ctx, p.ID)
			if !errors.Is(err, client.ErrResponseSignature) || got != nil {
				t.Fatalf("got %v, %v", got, err)
			}
		})
	}

	// The server's rejections of docs/protocol.md §6 reach the caller as invalid_signature: a stale signature
	// (the server's clock moved 10 minutes on) …
	env.Server.AdvanceTime(k.Account, 10*time.Minute)
	if _, _, err := c.Patients.Get(ctx, p.ID); !errors.Is(err, client.ErrInvalidSignature) {
		t.Fatalf("stale: %v", err)
	}
	env.Server.RealTime(k.Account)
	// … and a request altered on the way.
	tr.request = func(_ int, req *http.Request) { req.URL.RawQuery = "perPage=1" }
	if _, _, err := c.Patients.List(ctx, nil); !errors.Is(err, client.ErrInvalidSignature) {
		t.Fatalf("altered request: %v", err)
	}
	tr.request = nil
}

func TestRateLimitStateAndRetry(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	k := env.NewKey(t, mockserver.APIKeyParams{Plan: "custom", Scopes: []string{"*"}, RatePerMinute: 60, Burst: 2, Daily: 100})
	ctx := context.Background()
	c := env.ClientFor(t, k.Key)
	_, meta, err := c.Patients.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	rl := meta.RateLimit
	if rl.Limit != 2 || rl.Remaining != 1 || rl.DailyRemaining != 99 || rl.Reset.Before(time.Now().Add(-time.Second)) || rl.Reset.After(time.Now().Add(2*time.Second)) {
		t.Fatalf("rate limit state %+v from %v", rl, meta.Header)
	}
	if _, _, err := c.Patients.List(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Out of tokens, no retries: *Error with RetryAfter.
	_, meta, err = c.Patients.List(ctx, nil, client.WithMaxRetries(0))
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Code != "rate_limited" || apiErr.RetryAfter != time.Second || meta.RateLimit.Remaining != 0 {
		t.Fatalf("429: %v", err)
	}
	// With retries the SDK waits Retry-After and succeeds.
	start := time.Now()
	if _, meta, err = c.Patients.List(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if meta.Attempts < 2 || time.Since(start) < 900*time.Millisecond {
		t.Fatalf("attempts %d after %v", meta.Attempts, time.Since(start))
	}
	// Waiting honours the context.
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, _, err := c.Patients.List(cctx, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ctx: %v", err)
	}

	// Enterprise: no daily quota.
	if _, meta, err = env.Client.Patients.List(ctx, nil); err != nil || meta.RateLimit.DailyRemaining != -1 || meta.RateLimit.Limit != 2000 {
		t.Fatalf("enterprise %+v %v", meta.RateLimit, err)
	}

	if _, err := client.NewEngine(client.WithPlan("gold")); err == nil {
		t.Fatal("unknown plan accepted")
	}
	if _, err := client.NewEngine(client.WithRateLimit(0, 1)); err == nil {
		t.Fatal("zero rate accepted")
	}
}

func TestPlanLimiterPacesCalls(t *testing.T) {
	env := testenv.New(t, nil)
	k := env.NewKey(t, mockserver.APIKeyParams{Plan: "custom", Scopes: []string{"*"}, RatePerMinute: 600, Burst: 5})
	// The pace is read where the limiter acts: the moment each request leaves for the wire.
	// (Wall time to the last answer also counts response handling, which a loaded machine
	// stretches; the send schedule is what the plan constrains.)
	sent := &sendTimes{base: env.HTTP.Transport}
	c := env.ClientFor(t, k.Key, client.WithRateLimit(600, 5), client.WithMaxRetries(0), client.WithHTTPClient(&http.Client{Transport: sent}))
	const n = 40
	var wg sync.WaitGroup
	var rejected atomic.Int32
	start := time.Now()
	tick := time.NewTicker(time.Second / 30) // 3× the plan's 10/s
	defer tick.Stop()
	for range n {
		<-tick.C
		wg.Go(func() {
			if _, _, err := c.Patients.List(context.Background(), nil); err != nil {
				rejected.Add(1)
				t.Error(err)
			}
		})
	}
	wg.Wait()
	times := sent.sorted()
	if rejected.Load() != 0 || len(times) != n {
		t.Fatalf("%d rejected, %d sent", rejected.Load(), len(times))
	}
	// The client keeps one token of headroom: 4 leave at once from the full bucket, the other
	// 36 at the plan's 10/s, so 36 intervals after the fourth send take 3.6 s.
	paced := times[n-1].Sub(times[3])
	rate := float64(n-4) / paced.Seconds()
	t.Logf("sent at %.2f/s after the burst (%v for %d); last answer after %v", rate, paced, n-4, time.Since(start))
	if rate < 10*0.9 || rate > 10*1.1 {
		t.Fatalf("sent at %.2f/s, want the plan's 10/s ±10%%", rate)
	}
}

// sendTimes records when each request leaves for the wire (below the SDK's limiter).
type sendTimes struct {
	base  http.RoundTripper
	mu    sync.Mutex
	times []time.Time
}

func (s *sendTimes) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.times = append(s.times, time.Now())
	s.mu.Unlock()
	return s.base.RoundTrip(r)
}

func (s *sendTimes) sorted() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.times)
	slices.SortFunc(out, time.Time.Compare)
	return out
}

func TestLimiterFollowsServer(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	k := env.NewKey(t, mockserver.APIKeyParams{Plan: "custom", Scopes: []string{"*"}, RatePerMinute: 60, Burst: 1})
	// A generous local limit: the server's answers make the client hold.
	c := env.ClientFor(t, k.Key, client.WithRateLimit(6000, 100), client.WithMaxRetries(0))
	other := env.ClientFor(t, k.Key) // shares the key, spends the token
	ctx := context.Background()
	if _, _, err := other.Patients.List(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Patients.List(ctx, nil); !errors.Is(err, client.ErrRateLimited) {
		t.Fatalf("first: %v", err)
	}
	// The 429's Retry-After (1 s) now holds the next call instead of sending it at once.
	start := time.Now()
	if _, _, err := c.Patients.List(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 800*time.Millisecond {
		t.Fatalf("held %v", d)
	}
}
