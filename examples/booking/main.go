// Booking starts the embedded mock server and walks an appointment through its day with the
// SDK: book, see a double booking refused, reschedule, confirm, check in, start, complete, bill
// the visit and take the payment, and list the day's schedule.
//
//	go run ./examples/booking
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
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

	ada, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	if err != nil {
		return err
	}
	grace, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Grace", LastName: "Hopper", Email: "grace@example.com"})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "patients %s and %s\n", ada.ID, grace.ID)

	// Tomorrow's schedule, in UTC.
	day := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	at := func(h, m int) time.Time { return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }

	apt, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: ada.ID, ProviderID: "prv_9", Service: "Botox — forehead", RoomID: "room_1",
		StartAt: at(9, 0), EndAt: at(9, 45),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "booked %s: %s %s–%s (%s)\n", apt.ID, apt.Service, clock(apt.StartAt), clock(apt.EndAt), apt.Status)

	// The same provider at an overlapping time: refused, naming the appointment in the way.
	_, _, err = c.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: grace.ID, ProviderID: "prv_9", Service: "Chemical peel", StartAt: at(9, 30), EndAt: at(10, 0),
	})
	var apiErr *medspa.Error
	if !errors.Is(err, medspa.ErrAppointmentConflict) || !errors.As(err, &apiErr) {
		return fmt.Errorf("expected a conflict, got %v", err)
	}
	fmt.Fprintf(out, "double booking refused: conflicts with %s\n", apiErr.ConflictingID)

	// Book Grace after Ada, and move Ada's visit to the afternoon.
	peel, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: grace.ID, ProviderID: "prv_9", Service: "Chemical peel", StartAt: at(9, 45), EndAt: at(10, 15),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "booked %s: %s %s–%s (%s)\n", peel.ID, peel.Service, clock(peel.StartAt), clock(peel.EndAt), peel.Status)
	apt, _, err = c.Appointments.Update(ctx, apt.ID, &appointments.UpdateParams{
		StartAt: medspa.Set(at(14, 0)), EndAt: medspa.Set(at(14, 45)),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "rescheduled %s to %s–%s\n", apt.ID, clock(apt.StartAt), clock(apt.EndAt))

	// The visit, step by step along the state machine.
	for _, s := range []appointments.Status{
		appointments.StatusConfirmed, appointments.StatusCheckedIn, appointments.StatusInProgress, appointments.StatusCompleted,
	} {
		apt, _, err = c.Appointments.Update(ctx, apt.ID, &appointments.UpdateParams{Status: medspa.Set(s)})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s is %s\n", apt.ID, apt.Status)
	}

	// A finished visit cannot be cancelled.
	if _, _, err := c.Appointments.Cancel(ctx, apt.ID, ""); errors.As(err, &apiErr) && errors.Is(err, medspa.ErrInvalidStateTransition) {
		fmt.Fprintf(out, "cancel refused: %s → %s is not allowed\n", apiErr.From, apiErr.To)
	} else {
		return fmt.Errorf("expected an invalid transition, got %v", err)
	}

	// Bill the visit and take a card payment for it.
	inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: apt.PatientID, AppointmentID: apt.ID, TaxRateBps: 825,
		LineItems: []billing.LineItemParams{{Description: apt.Service, Quantity: 1, UnitAmount: medspa.Ptr[int64](45000)}},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "invoiced %s: subtotal %s + tax %s = %s (%s)\n", inv.ID, money(inv.Subtotal), money(inv.Tax), money(inv.Total), inv.Status)
	pay, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{
		InvoiceID: inv.ID, Amount: inv.AmountDue, Method: billing.MethodCard, CardToken: billing.TokenVisa,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "paid %s with %s %s: %s\n", money(pay.Amount), pay.Card.Brand, pay.Card.Last4, pay.Status)
	if inv, _, err = c.Invoices.Get(ctx, inv.ID); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s is %s, %s due\n", inv.ID, inv.Status, money(inv.AmountDue))

	fmt.Fprintf(out, "schedule for %s:\n", day.Format(time.DateOnly))
	for a, err := range c.Appointments.All(ctx, &appointments.ListParams{From: day, To: day.Add(24 * time.Hour)}) {
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  %s–%s %-9s %s %s\n", clock(a.StartAt), clock(a.EndAt), a.Status, a.ProviderID, a.Service)
	}
	return nil
}

// money formats minor units as dollars.
func money(cents int64) string { return fmt.Sprintf("$%d.%02d", cents/100, cents%100) }

// clock formats a time of day.
func clock(t time.Time) string { return t.Format("15:04") }
