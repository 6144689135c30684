package medspa_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"time"

	"golang.org/x/oauth2"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

// newServer returns an in-process mock server for the examples.
func newServer(opts ...mockserver.Option) *mockserver.Server {
	srv, err := mockserver.New(opts...)
	if err != nil {
		log.Fatal(err)
	}
	return srv
}

// inProcess points a client at srv without a network; real programs leave both options out
// (MEDSPA_BASE_URL, or the production API).
func inProcess(srv *mockserver.Server) []medspa.Option {
	return []medspa.Option{medspa.WithBaseURL(mockserver.InProcessBaseURL), medspa.WithHTTPClient(srv.HTTPClient())}
}

// The authorization-code flow with PKCE, through golang.org/x/oauth2: the user approves on
// /oauth/authorize (the mock approves at once), the app exchanges the code with its verifier,
// and WithOAuth2 uses and refreshes the tokens.
func ExampleWithOAuth2() {
	srv := newServer()
	defer srv.Close()
	oc, _ := srv.CreateOAuthClient(mockserver.OAuthClientParams{
		Plan: "starter", Scopes: []string{"patients:read"}, RedirectURIs: []string{"https://app.example/callback"},
	})
	cfg := &oauth2.Config{
		ClientID: oc.ClientID, ClientSecret: oc.ClientSecret,
		RedirectURL: "https://app.example/callback", Scopes: []string{"patients:read"},
		Endpoint: medspa.OAuthEndpoint(mockserver.InProcessBaseURL), // in production: medspa.DefaultBaseURL
	}

	// 1. Send the user to the authorization URL with a PKCE challenge.
	verifier := oauth2.GenerateVerifier()
	authURL := cfg.AuthCodeURL("state-123", oauth2.S256ChallengeOption(verifier))

	// (Here the mock answers at once with a redirect to the callback, carrying the code.)
	hc := srv.HTTPClient()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Get(authURL)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	callback, _ := url.Parse(resp.Header.Get("Location"))
	fmt.Println("state:", callback.Query().Get("state"))

	// 2. In the callback handler, exchange the code with the verifier.
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, srv.HTTPClient()) // in-process only
	tok, err := cfg.Exchange(ctx, callback.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		log.Fatal(err)
	}

	// 3. Call the API with the tokens; the SDK refreshes them when they expire.
	c, err := medspa.New(append(inProcess(srv), medspa.WithOAuth2(cfg, tok))...)
	if err != nil {
		log.Fatal(err)
	}
	page, _, err := c.Patients.List(context.Background(), nil)
	fmt.Println(page.Meta.Total, err)

	// The token carries only the scopes the user granted.
	_, _, err = c.Patients.Create(context.Background(), &patients.CreateParams{FirstName: "A", LastName: "B", Email: "a@example.com"})
	fmt.Println(errors.Is(err, medspa.ErrInsufficientScope))
	// Output:
	// state: state-123
	// 0 <nil>
	// true
}

// An OAuth client authenticates with the client-credentials grant; tokens are fetched, cached
// and renewed by the SDK. Every call returns the server's rate-limit state.
func ExampleWithClientCredentials() {
	srv := newServer()
	defer srv.Close()
	oc, _ := srv.CreateOAuthClient(mockserver.OAuthClientParams{Plan: "starter", Scopes: []string{"patients:read"}})

	c, err := medspa.New(append(inProcess(srv), medspa.WithClientCredentials(oc.ClientID, oc.ClientSecret, "patients:read"))...)
	if err != nil {
		log.Fatal(err)
	}
	page, resp, err := c.Patients.List(context.Background(), nil)
	fmt.Println(len(page.Data), err, resp.RateLimit.Limit, resp.RateLimit.DailyRemaining)
	// Output: 0 <nil> 100 9999
}

// A key that requires signatures: every request is signed and every response verified.
func ExampleWithSigning() {
	srv := newServer()
	defer srv.Close()
	key, _ := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}, SigningRequired: true})

	c, err := medspa.New(append(inProcess(srv),
		medspa.WithAPIKey(key.Key), medspa.WithSigning(key.ID, key.SigningSecret), medspa.WithPlan(medspa.PlanStarter))...)
	if err != nil {
		log.Fatal(err)
	}
	_, resp, err := c.Patients.List(context.Background(), nil)
	fmt.Println(err, resp.Header.Get("Signature") != "")
	// Output: <nil> true
}

// WithClock gives the client the server's idea of now. Against a mock server that runs in
// 2020, a signing client on the wall clock is refused (its signatures look six years late),
// while one on the mock's clock works, however the mock's clock moves. (mockserver's NewTest,
// NewClient and ClientFor set this for you.)
func ExampleWithClock() {
	srv := newServer(mockserver.WithStartTime(time.Date(2020, time.March, 2, 9, 0, 0, 0, time.UTC)))
	defer srv.Close()
	key, _ := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}, SigningRequired: true})
	signing := append(inProcess(srv), medspa.WithAPIKey(key.Key), medspa.WithSigning(key.ID, key.SigningSecret))
	ctx := context.Background()

	wall, _ := medspa.New(signing...)
	_, _, err := wall.Patients.List(ctx, nil)
	fmt.Println("wall clock:", errors.Is(err, medspa.ErrInvalidSignature))

	mock, _ := medspa.New(append(signing, medspa.WithClock(func() time.Time { return srv.Now(key.Account) }))...)
	for range 2 {
		_, resp, err := mock.Patients.List(ctx, nil)
		fmt.Println("mock clock:", mock.Now().Format(time.DateTime), resp.StatusCode, err)
		srv.AdvanceTime(key.Account, 6*time.Hour)
	}
	// Output:
	// wall clock: true
	// mock clock: 2020-03-02 09:00:00 200 <nil>
	// mock clock: 2020-03-02 15:00:00 200 <nil>
}

// The hook sees every OAuth token fetch and why it happened (metadata only, never the token).
// On the mock's clock, two hours later the first token's lifetime is over and the next call
// fetches another before it is sent, rather than after a 401.
func ExampleWithTokenRefreshHook() {
	srv := newServer(mockserver.WithStartTime(time.Date(2026, time.November, 22, 9, 0, 0, 0, time.UTC)))
	defer srv.Close()
	oc, _ := srv.CreateOAuthClient(mockserver.OAuthClientParams{Plan: "enterprise", Scopes: []string{"*"}})
	c, err := medspa.New(append(inProcess(srv),
		medspa.WithClientCredentials(oc.ClientID, oc.ClientSecret),
		medspa.WithClock(func() time.Time { return srv.Now(oc.Account) }),
		medspa.WithTokenRefreshHook(func(r medspa.TokenRefresh) {
			fmt.Println("token:", r.Reason, r.Grant, "renew at", r.RenewAt.Format(time.TimeOnly), r.Err)
		}))...)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	_, _, err = c.Patients.List(ctx, nil)
	fmt.Println("first call:", err)
	srv.AdvanceTime(oc.Account, 2*time.Hour)
	_, _, err = c.Patients.List(ctx, nil)
	fmt.Println("two hours later:", err)
	// Output:
	// token: first client_credentials renew at 09:59:50 <nil>
	// first call: <nil>
	// token: expiring client_credentials renew at 11:59:50 <nil>
	// two hours later: <nil>
}

// WithLogger logs metadata only: at Info each token fetch and each wait longer than a second
// (how long, and why), at Debug every attempt.
func ExampleWithLogger() {
	srv := newServer(mockserver.WithStartTime(time.Date(2026, time.November, 22, 9, 0, 0, 0, time.UTC)))
	defer srv.Close()
	oc, _ := srv.CreateOAuthClient(mockserver.OAuthClientParams{Plan: "enterprise", Scopes: []string{"*"}})
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "took" { // left out to keep the output stable
				return slog.Attr{}
			}
			return a
		},
	}))
	c, err := medspa.New(append(inProcess(srv),
		medspa.WithClientCredentials(oc.ClientID, oc.ClientSecret),
		medspa.WithClock(func() time.Time { return srv.Now(oc.Account) }),
		medspa.WithLogger(logger))...)
	if err != nil {
		log.Fatal(err)
	}
	if _, _, err := c.Patients.List(context.Background(), nil); err != nil {
		log.Fatal(err)
	}
	// Output:
	// level=INFO msg="medspa token refresh" reason=first grant=client_credentials renew_at=2026-11-22T09:59:50.000Z
}

// WithPlan paces the client to its plan's rate limit, so bursts wait instead of failing with
// 429; every Response carries the state the server reported.
func ExampleWithPlan() {
	srv := newServer()
	defer srv.Close()
	key, _ := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"patients:read"}})
	srv.SetTime(key.Account, time.Date(2026, time.November, 22, 9, 0, 0, 0, time.UTC)) // frozen: no refill
	c, err := medspa.New(append(inProcess(srv), medspa.WithAPIKey(key.Key), medspa.WithPlan(medspa.PlanStarter))...)
	if err != nil {
		log.Fatal(err)
	}

	var resp *medspa.Response
	for range 3 {
		if _, resp, err = c.Patients.List(context.Background(), nil); err != nil {
			log.Fatal(err)
		}
	}
	rl := resp.RateLimit
	fmt.Println("limit", rl.Limit, "remaining", rl.Remaining, "today", rl.DailyRemaining)
	// Output: limit 100 remaining 97 today 9997
}

// Every non-2xx answer is an *Error: test its code with errors.Is, read its fields with
// errors.As. A validation error names every invalid field.
func ExampleError() {
	srv := newServer()
	defer srv.Close()
	c, _, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}
	_, resp, err := c.Patients.Create(context.Background(), &patients.CreateParams{FirstName: "Ada", Email: "not-an-email"})

	var apiErr *medspa.Error
	if errors.Is(err, medspa.ErrValidation) && errors.As(err, &apiErr) {
		fmt.Println(apiErr.Status, apiErr.Code, apiErr.RequestID == resp.RequestID)
		for _, f := range apiErr.Fields {
			fmt.Println(f.Pointer, f.Code)
		}
	}
	// Output:
	// 422 validation_error true
	// /lastName required
	// /email invalid_format
}

// Every call returns the metadata of the server's answer: here a retried POST whose first
// attempt was applied, so the second one is an idempotent replay of the same answer.
func ExampleResponse() {
	srv := newServer()
	defer srv.Close()
	c, key, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}
	// The next create is applied, then its answer is lost (503): the SDK retries with the same
	// Idempotency-Key and the server replays the stored answer.
	if err := srv.InjectFault(mockserver.Fault{Account: key.Account, Method: http.MethodPost, Path: "/api/v1/patients",
		Status: http.StatusServiceUnavailable, AfterCommit: true, Times: 1}); err != nil {
		log.Fatal(err)
	}
	p, resp, err := c.Patients.Create(context.Background(), &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	if err != nil {
		log.Fatal(err)
	}
	page, _, _ := c.Patients.List(context.Background(), nil)
	fmt.Println(p.FirstName, resp.StatusCode, resp.Attempts, resp.Replayed, page.Meta.Total)
	// Output: Ada 201 2 true 1
}

// Do sends a call the services do not cover through the same call path; Path escapes each
// segment, so an id can never name another resource.
func ExampleClient_Do() {
	srv := newServer()
	defer srv.Close()
	c, _, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	p, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})

	var out map[string]any
	resp, err := c.Do(ctx, http.MethodGet, medspa.Path("patients", p.ID), nil, &out)
	fmt.Println(resp.StatusCode, out["firstName"], err)

	_, err = c.Do(ctx, http.MethodGet, medspa.Path("patients", "../webhooks"), nil, &out)
	fmt.Println(errors.Is(err, medspa.ErrInvalidArgument))
	// Output:
	// 200 Ada <nil>
	// true
}
