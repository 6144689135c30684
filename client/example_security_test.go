package client_test

import (
	"context"
	"fmt"
	"log"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/mockserver"
)

// An OAuth client authenticates with the client-credentials grant; tokens are fetched, cached
// and renewed by the SDK.
func ExampleWithClientCredentials() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	oc, _ := srv.CreateOAuthClient(mockserver.OAuthClientParams{Plan: "starter", Scopes: []string{"patients:read"}})

	c, err := medspa.New(
		client.WithBaseURL(mockserver.InProcessBaseURL), client.WithHTTPClient(srv.HTTPClient()),
		client.WithClientCredentials(oc.ClientID, oc.ClientSecret, "patients:read"),
	)
	if err != nil {
		panic(err)
	}
	var resp *client.Response
	page, resp, err := c.Patients.List(context.Background(), nil)
	fmt.Println(len(page.Data), err, resp.RateLimit.Limit, resp.RateLimit.DailyRemaining)
	// Output: 0 <nil> 100 9999
}

// A key that requires signatures: every request is signed and every response verified.
func ExampleWithSigning() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	key, _ := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}, SigningRequired: true})

	c, err := medspa.New(
		client.WithBaseURL(mockserver.InProcessBaseURL), client.WithHTTPClient(srv.HTTPClient()),
		client.WithAPIKey(key.Key), client.WithSigning(key.ID, key.SigningSecret),
		client.WithPlan(client.PlanStarter),
	)
	if err != nil {
		panic(err)
	}
	var resp *client.Response
	_, resp, err = c.Patients.List(context.Background(), nil)
	fmt.Println(err, resp.Header.Get("Signature") != "")
	// Output: <nil> true
}
