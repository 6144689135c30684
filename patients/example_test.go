package patients_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/client"
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

func ExampleService_All() {
	c := exampleClient()
	ctx := context.Background()
	for _, name := range []string{"Ada", "Grace", "Alan"} {
		_, _, _ = c.Patients.Create(ctx, &patients.CreateParams{FirstName: name, LastName: "Example", Email: "x@example.com"})
	}
	// All fetches pages lazily (two per page here) and stops when the loop breaks.
	params := &patients.ListParams{ListOptions: client.ListOptions{PerPage: 2}, Sort: patients.SortCreatedDesc}
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
