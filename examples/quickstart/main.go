// Quickstart starts the embedded mock server and walks through the patients API with the SDK:
// create, fetch, update (merge patch), list with filters, iterate every page, and handle errors.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer) error {
	// A mock server on a loopback port, and an API key for a fresh account.
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "mock server at %s\n", ts.URL)

	c, err := medspa.New(medspa.WithBaseURL(ts.URL), medspa.WithAPIKey(key.Key))
	if err != nil {
		return err
	}

	ada, _, err := c.Patients.Create(ctx, &patients.CreateParams{
		FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com",
		Phone: "+15551234567", Tags: []string{"vip"},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "created patient %s (%s %s)\n", ada.ID, ada.FirstName, ada.LastName)

	for _, p := range []patients.CreateParams{
		{FirstName: "Grace", LastName: "Hopper", Email: "grace@example.com"},
		{FirstName: "Alan", LastName: "Turing", Email: "alan@example.com"},
	} {
		if _, _, err := c.Patients.Create(ctx, &p); err != nil {
			return err
		}
	}

	got, _, err := c.Patients.Get(ctx, ada.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "fetched %s: email %s\n", got.ID, got.Email)

	upd, _, err := c.Patients.Update(ctx, ada.ID, &patients.UpdateParams{
		Notes: medspa.Set("Prefers morning appointments."),
		Phone: medspa.Null[string](), // clears the phone
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "updated %s: phone cleared=%t, notes set=%t\n", upd.ID, upd.Phone == "", upd.Notes != "")

	page, _, err := c.Patients.List(ctx, &patients.ListParams{Q: "ho"})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "search %q: %d of %d match\n", "ho", len(page.Data), page.Meta.Total)

	n := 0
	for p, err := range c.Patients.All(ctx, &patients.ListParams{ListOptions: medspa.ListOptions{PerPage: 2}, Sort: medspa.SortCreatedDesc}) {
		if err != nil {
			return err
		}
		n++
		fmt.Fprintf(out, "  %d. %s %s\n", n, p.FirstName, p.LastName)
	}

	_, _, err = c.Patients.Create(ctx, &patients.CreateParams{FirstName: "No", Email: "not-an-email"})
	var apiErr *medspa.Error
	if errors.As(err, &apiErr) && errors.Is(err, medspa.ErrValidation) {
		fmt.Fprintf(out, "validation failed as expected (%d):\n", apiErr.Status)
		for _, f := range apiErr.Fields {
			fmt.Fprintf(out, "  %s: %s (%s)\n", f.Pointer, f.Detail, f.Code)
		}
	} else {
		return fmt.Errorf("expected a validation error, got %v", err)
	}

	if _, _, err := c.Patients.Get(ctx, "pat_00000000000000000000000000000000"); errors.Is(err, medspa.ErrNotFound) {
		fmt.Fprintln(out, "unknown patient: not found, as expected")
	}
	return nil
}
