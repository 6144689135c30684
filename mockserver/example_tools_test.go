package mockserver_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

// Fixtures are created through the API's own rules; "@<kind>.<index>" refers to an earlier
// fixture, createdAt backdates a record, and an appointment's status is reached through legal
// transitions.
func ExampleServer_LoadFixtures() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	c, key, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}
	ids, err := srv.LoadFixtures(key.Account, mockserver.Fixtures{
		Patients: []any{
			patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"},
		},
		Appointments: []any{map[string]any{
			"patientId": "@patients.0", "providerId": "prv_1", "service": "Botox",
			"startAt": "2026-01-06T10:00:00Z", "endAt": "2026-01-06T10:30:00Z", "status": "completed",
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	apt, _, _ := c.Appointments.Get(context.Background(), ids.Appointments[0])
	fmt.Println(len(ids.Patients), apt.PatientID == ids.Patients[0], apt.Status)
	// Output: 1 true completed
}

// A fault fails the next Times matching requests; the SDK retries 503 with Retry-After, and
// surfaces it when retries are off.
func ExampleServer_InjectFault() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	c, key, _ := srv.NewClient()
	ctx := context.Background()

	retryAfter := 0
	_ = srv.InjectFault(mockserver.Fault{Account: key.Account, Method: "GET", Path: "/api/v1/patients",
		Status: 503, RetryAfter: &retryAfter, Times: 2})
	_, _, err = c.Patients.List(ctx, nil) // two 503s, then success
	fmt.Println("with retries:", err)

	_ = srv.InjectFault(mockserver.Fault{Path: "/api/v1/patients", Status: 503, Times: 1})
	_, _, err = c.Patients.List(ctx, nil, medspa.WithMaxRetries(0))
	fmt.Println("without:", errors.Is(err, medspa.ErrServiceUnavailable))
	// Output:
	// with retries: <nil>
	// without: true
}

// Snapshots save an account's whole state by name and put it back, as often as needed.
func ExampleServer_Snapshot() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	c, key, _ := srv.NewClient()
	ctx := context.Background()
	_, _, _ = c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})

	_ = srv.Snapshot(key.Account, "one patient")
	_, _, _ = c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Grace", LastName: "Hopper", Email: "grace@example.com"})
	before, _, _ := c.Patients.List(ctx, nil)
	_ = srv.Restore(key.Account, "one patient")
	after, _, _ := c.Patients.List(ctx, nil)
	fmt.Println(before.Meta.Total, after.Meta.Total)
	// Output: 2 1
}

// The clock is per account (or server-wide with ""): freeze it, move it, and every time-based
// rule follows — timestamps here, and an appointment that has started can be a no-show.
func ExampleServer_SetTime() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	c, key, _ := srv.NewClient()
	ctx := context.Background()
	nine := time.Date(2026, time.November, 22, 9, 0, 0, 0, time.UTC)
	srv.SetTime(key.Account, nine)

	p, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	apt, _, _ := c.Appointments.Create(ctx, &appointments.CreateParams{PatientID: p.ID, ProviderID: "prv_1", Service: "Peel",
		StartAt: nine.Add(time.Hour), EndAt: nine.Add(90 * time.Minute)})
	_, _, err = c.Appointments.Update(ctx, apt.ID, &appointments.UpdateParams{Status: medspa.Set(appointments.StatusNoShow)})
	fmt.Println(p.CreatedAt.Format(time.Kitchen), "no-show before the start:", errors.Is(err, medspa.ErrInvalidStateTransition))

	srv.AdvanceTime(key.Account, 2*time.Hour)
	apt, _, err = c.Appointments.Update(ctx, apt.ID, &appointments.UpdateParams{Status: medspa.Set(appointments.StatusNoShow)})
	fmt.Println(srv.Now(key.Account).Format(time.Kitchen), apt.Status, err)
	// Output:
	// 9:00AM no-show before the start: true
	// 11:00AM no_show <nil>
}

// The journal lists what the server saw, newest last: method, path, status, request id, and
// query parameter names — never bodies, credentials or query values.
func ExampleServer_Requests() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	c, key, _ := srv.NewClient()
	ctx := context.Background()
	_, _, _ = c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	_, _, _ = c.Patients.List(ctx, &patients.ListParams{Q: "love"})
	_, _, _ = c.Patients.Get(ctx, "pat_00000000000000000000000000000000")

	for _, e := range srv.Requests(key.Account) {
		fmt.Println(e.Method, e.Path, e.QueryParams, e.Status, e.IdempotencyKey != "")
	}
	// Output:
	// POST /api/v1/patients [] 201 true
	// GET /api/v1/patients [q] 200 false
	// GET /api/v1/patients/pat_00000000000000000000000000000000 [] 404 false
}
