package mockserver_test

import (
	"context"
	"fmt"
	"log"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

// RecordEvents shows which domain events API calls caused, in process: no webhook endpoint,
// no receiver, no HTTP.
func ExampleServer_RecordEvents() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	c, key, err := srv.NewClient()
	if err != nil {
		panic(err)
	}
	rec := srv.RecordEvents(key.Account)
	defer rec.Stop()

	ctx := context.Background()
	p, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	if err != nil {
		panic(err)
	}
	if _, _, err := c.Patients.Update(ctx, p.ID, &patients.UpdateParams{Notes: medspa.Set("Prefers mornings.")}); err != nil {
		panic(err)
	}

	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	events, err := rec.Wait(ctx, 2)
	if err != nil {
		panic(err)
	}
	for _, e := range events {
		d, _ := e.Patient()
		fmt.Println(e.Type, d.ID == p.ID)
	}
	// Output:
	// patient.created true
	// patient.updated true
}
