package patients_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

// exampleClient returns a client of an in-process mock server; real programs call medspa.New
// with their API key.
func exampleClient() *medspa.Client {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	c, _, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}
	return c
}

func ExampleService_Create() {
	c := exampleClient()
	p, _, err := c.Patients.Create(context.Background(), &patients.CreateParams{
		FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com", Tags: []string{"vip"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.FirstName, p.LastName, p.Tags)
	// Output: Ada Lovelace [vip]
}

// Get returns the patient, and every call also returns the metadata of the server's answer.
func ExampleService_Get() {
	c := exampleClient()
	ctx := context.Background()
	created, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com",
		DateOfBirth: medspa.NewDate(1990, time.December, 10)})

	p, resp, err := c.Patients.Get(ctx, created.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.FirstName, p.DateOfBirth)
	fmt.Println(resp.StatusCode, strings.HasPrefix(resp.RequestID, "req_"), resp.Attempts, resp.RateLimit.Limit)
	// Output:
	// Ada 1990-12-10
	// 200 true 1 2000
}

// List returns one page and its paging information; filters combine with AND.
func ExampleService_List() {
	c := exampleClient()
	ctx := context.Background()
	for _, name := range []string{"Ada", "Grace", "Alan", "Barbara"} {
		_, _, _ = c.Patients.Create(ctx, &patients.CreateParams{FirstName: name, LastName: "Example", Email: strings.ToLower(name) + "@example.com"})
	}
	page, _, err := c.Patients.List(ctx, &patients.ListParams{Q: "a", ListOptions: medspa.ListOptions{PerPage: 2}})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range page.Data {
		fmt.Println(p.FirstName)
	}
	fmt.Println("total", page.Meta.Total, "more", page.HasMore())
	// Output:
	// Ada
	// Grace
	// total 4 more true
}

func ExampleService_Update() {
	c := exampleClient()
	ctx := context.Background()
	p, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Grace", LastName: "Hopper", Email: "grace@example.com", Phone: "+15551234567"})

	// Absent fields are unchanged, Set changes one, Null clears one.
	p, _, err := c.Patients.Update(ctx, p.ID, &patients.UpdateParams{
		Notes: medspa.Set("Prefers mornings."),
		Phone: medspa.Null[string](),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %q %q\n", p.FirstName, p.Phone, p.Notes)
	// Output: Grace "" "Prefers mornings."
}

// An address is patched member by member (RFC 7396): only the members set are sent, so a
// server that merges nested objects as docs/protocol.md §2 says keeps the street.
func ExampleAddressPatch() {
	c := exampleClient()
	ctx := context.Background()
	p, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com",
		Address: &patients.Address{Line1: "12 St James's Square", City: "London", Country: "GB"}})

	// Sends {"address":{"city":"Boston","country":"US"}}.
	p, _, err := c.Patients.Update(ctx, p.ID, &patients.UpdateParams{
		Address: medspa.Set(patients.AddressPatch{City: medspa.Set("Boston"), Country: medspa.Set("US")}),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Address.City, p.Address.Country)
	// Output: Boston US
}

func ExampleService_All() {
	c := exampleClient()
	ctx := context.Background()
	for _, name := range []string{"Ada", "Grace", "Alan"} {
		_, _, _ = c.Patients.Create(ctx, &patients.CreateParams{FirstName: name, LastName: "Example", Email: "x@example.com"})
	}
	// All fetches pages lazily (two per page here) and stops when the loop breaks.
	params := &patients.ListParams{ListOptions: medspa.ListOptions{PerPage: 2}, Sort: medspa.SortCreatedDesc}
	for p, err := range c.Patients.All(ctx, params) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(p.FirstName)
	}
	// Output:
	// Alan
	// Grace
	// Ada
}

func ExampleService_Get_errors() {
	c := exampleClient()
	_, _, err := c.Patients.Get(context.Background(), "pat_00000000000000000000000000000000")

	var apiErr *medspa.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.Status, apiErr.Code)
	}
	fmt.Println(errors.Is(err, medspa.ErrNotFound))
	// Output:
	// 404 not_found
	// true
}

func ExampleService_Create_validation() {
	c := exampleClient()
	_, _, err := c.Patients.Create(context.Background(), &patients.CreateParams{FirstName: "Ada", Email: "not-an-email"})

	var apiErr *medspa.Error
	if errors.As(err, &apiErr) && errors.Is(err, medspa.ErrValidation) {
		for _, f := range apiErr.Fields { // every invalid field, not just the first
			fmt.Println(f.Pointer, f.Code)
		}
	}
	// Output:
	// /lastName required
	// /email invalid_format
}
