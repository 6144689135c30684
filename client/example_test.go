package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"time"

	"golang.org/x/oauth2"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

// The authorization-code flow with PKCE, through golang.org/x/oauth2: the user approves on
// /oauth/authorize (the mock approves at once), the app exchanges the code with its verifier,
// and WithOAuth2 uses and refreshes the tokens.
func ExampleWithOAuth2() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	oc, _ := srv.CreateOAuthClient(mockserver.OAuthClientParams{
		Plan: "starter", Scopes: []string{"patients:read"}, RedirectURIs: []string{"https://app.example/callback"},
	})
	cfg := &oauth2.Config{
		ClientID: oc.ClientID, ClientSecret: oc.ClientSecret,
		RedirectURL: "https://app.example/callback", Scopes: []string{"patients:read"},
		Endpoint: client.OAuthEndpoint(mockserver.InProcessBaseURL), // in production: client.DefaultBaseURL
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
	c, err := medspa.New(client.WithOAuth2(cfg, tok),
		client.WithBaseURL(mockserver.InProcessBaseURL), client.WithHTTPClient(srv.HTTPClient()))
	if err != nil {
		log.Fatal(err)
	}
	page, _, err := c.Patients.List(context.Background(), nil)
	fmt.Println(page.Meta.Total, err)

	// The token carries only the scopes the user granted.
	_, _, err = c.Patients.Create(context.Background(), &patients.CreateParams{FirstName: "A", LastName: "B", Email: "a@example.com"})
	fmt.Println(errors.Is(err, client.ErrInsufficientScope))
	// Output:
	// state: state-123
	// 0 <nil>
	// true
}

// WithPlan paces the client to its plan's rate limit, so bursts wait instead of failing with 429;
// WithResponseInto shows what the server reported.
func ExampleWithPlan() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	key, _ := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"patients:read"}})
	srv.SetTime(key.Account, time.Date(2026, time.November, 22, 9, 0, 0, 0, time.UTC)) // frozen: no refill
	c, err := medspa.New(client.WithAPIKey(key.Key), client.WithPlan(client.PlanStarter),
		client.WithBaseURL(mockserver.InProcessBaseURL), client.WithHTTPClient(srv.HTTPClient()))
	if err != nil {
		log.Fatal(err)
	}

	var resp *client.Response
	for range 3 {
		var err error
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
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	c, _, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}
	_, _, err = c.Patients.Create(context.Background(), &patients.CreateParams{FirstName: "Ada", Email: "not-an-email"})

	var apiErr *client.Error
	if errors.Is(err, client.ErrValidation) && errors.As(err, &apiErr) {
		fmt.Println(apiErr.Status, apiErr.Code)
		for _, f := range apiErr.Fields {
			fmt.Println(f.Pointer, f.Code)
		}
	}
	// Output:
	// 422 validation_error
	// /lastName required
	// /email invalid_format
}
