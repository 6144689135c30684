package appointments_test

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

// exampleSetup returns a client of an in-process mock server and a patient; real programs call
// medspa.New with their API key.
func exampleSetup() (*medspa.Client, string) {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	c, _, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}
	p, _, err := c.Patients.Create(context.Background(), &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	if err != nil {
		log.Fatal(err)
	}
	return c, p.ID
}

// nineAM is a morning in the future.
var nineAM = time.Date(2030, 1, 7, 9, 0, 0, 0, time.UTC)

func ExampleService_Create() {
	c, patientID := exampleSetup()
	ap, _, err := c.Appointments.Create(context.Background(), &appointments.CreateParams{
		PatientID: patientID, ProviderID: "prv_9", Service: "Botox — forehead", RoomID: "room_1",
		StartAt: nineAM, EndAt: nineAM.Add(45 * time.Minute),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ap.Status, ap.StartAt.Format(time.RFC3339), ap.EndAt.Format(time.RFC3339))
	// Output: scheduled 2030-01-07T09:00:00Z 2030-01-07T09:45:00Z
}

// A booking that overlaps an active appointment of the same provider, room or patient is
// refused with the id of the appointment in the way.
func ExampleService_Create_conflict() {
	c, patientID := exampleSetup()
	ctx := context.Background()
	first, _, _ := c.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: patientID, ProviderID: "prv_9", Service: "Facial", StartAt: nineAM, EndAt: nineAM.Add(time.Hour),
	})
	_, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: patientID, ProviderID: "prv_2", Service: "Peel", StartAt: nineAM.Add(30 * time.Minute), EndAt: nineAM.Add(90 * time.Minute),
	})
	var apiErr *medspa.Error
	if errors.Is(err, medspa.ErrAppointmentConflict) && errors.As(err, &apiErr) {
		fmt.Println("conflict with the first:", apiErr.ConflictingID == first.ID)
	}
	// Output: conflict with the first: true
}

// Status moves along the state machine; an illegal move names both ends.
func ExampleService_Update() {
	c, patientID := exampleSetup()
	ctx := context.Background()
	ap, _, _ := c.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: patientID, ProviderID: "prv_9", Service: "Facial", StartAt: nineAM, EndAt: nineAM.Add(time.Hour),
	})
	for _, s := range []appointments.Status{appointments.StatusCheckedIn, appointments.StatusCompleted, appointments.StatusConfirmed} {
		got, _, err := c.Appointments.Update(ctx, ap.ID, &appointments.UpdateParams{Status: medspa.Set(s)})
		var apiErr *medspa.Error
		switch {
		case err == nil:
			fmt.Println("now", got.Status)
		case errors.As(err, &apiErr) && errors.Is(err, medspa.ErrInvalidStateTransition):
			fmt.Println("refused", apiErr.From, "→", apiErr.To)
		default:
			log.Fatal(err)
		}
	}
	// Output:
	// now checked_in
	// now completed
	// refused completed → confirmed
}

func ExampleService_All() {
	c, patientID := exampleSetup()
	ctx := context.Background()
	for i := range 3 {
		start := nineAM.Add(time.Duration(i) * 24 * time.Hour)
		if _, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{
			PatientID: patientID, ProviderID: "prv_9", Service: "Laser", StartAt: start, EndAt: start.Add(30 * time.Minute),
		}); err != nil {
			log.Fatal(err)
		}
	}
	// The first two days, ascending by startAt.
	for ap, err := range c.Appointments.All(ctx, &appointments.ListParams{From: nineAM, To: nineAM.Add(48 * time.Hour)}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(ap.StartAt.Format(time.DateOnly), ap.Service)
	}
	// Output:
	// 2030-01-07 Laser
	// 2030-01-08 Laser
}

func ExampleService_Get() {
	c, patientID := exampleSetup()
	ctx := context.Background()
	booked, _, _ := c.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: patientID, ProviderID: "prv_9", Service: "Facial", StartAt: nineAM, EndAt: nineAM.Add(time.Hour),
	})
	ap, resp, err := c.Appointments.Get(ctx, booked.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ap.Service, ap.Status, ap.EndAt.Sub(ap.StartAt), resp.StatusCode)
	// Output: Facial scheduled 1h0m0s 200
}

// Cancel records a reason and returns the cancelled appointment; the record is kept.
func ExampleService_Cancel() {
	c, patientID := exampleSetup()
	ctx := context.Background()
	booked, _, _ := c.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: patientID, ProviderID: "prv_9", Service: "Facial", StartAt: nineAM, EndAt: nineAM.Add(time.Hour),
	})
	ap, _, err := c.Appointments.Cancel(ctx, booked.ID, "Patient asked to rebook")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ap.Status, ap.CancellationReason, !ap.CancelledAt.IsZero())

	// Once the visit is under way it can no longer be cancelled.
	started, _, _ := c.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: patientID, ProviderID: "prv_9", Service: "Peel", StartAt: nineAM.Add(2 * time.Hour), EndAt: nineAM.Add(3 * time.Hour),
	})
	_, _, _ = c.Appointments.Update(ctx, started.ID, &appointments.UpdateParams{Status: medspa.Set(appointments.StatusCheckedIn)})
	_, _, err = c.Appointments.Cancel(ctx, started.ID, "")
	fmt.Println(errors.Is(err, medspa.ErrInvalidStateTransition))
	// Output:
	// cancelled Patient asked to rebook true
	// true
}

// List filters by patient, provider, statuses and a window on the start time.
func ExampleService_List() {
	c, patientID := exampleSetup()
	ctx := context.Background()
	for i, provider := range []string{"prv_9", "prv_2", "prv_9"} {
		start := nineAM.Add(time.Duration(i) * time.Hour)
		if _, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{
			PatientID: patientID, ProviderID: provider, Service: "Laser", StartAt: start, EndAt: start.Add(30 * time.Minute),
		}); err != nil {
			log.Fatal(err)
		}
	}
	page, _, err := c.Appointments.List(ctx, &appointments.ListParams{
		ProviderID: "prv_9", Status: []appointments.Status{appointments.StatusScheduled, appointments.StatusConfirmed},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, ap := range page.Data {
		fmt.Println(ap.StartAt.Format(time.Kitchen), ap.ProviderID)
	}
	fmt.Println("total", page.Meta.Total)
	// Output:
	// 9:00AM prv_9
	// 11:00AM prv_9
	// total 2
}
