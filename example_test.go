package medspa_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

// newClient returns a client of an in-process mock server. Real programs write
//
//	c, err := medspa.New(medspa.WithAPIKey(os.Getenv("MEDSPA_API_KEY")))
func newClient() *medspa.Client {
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

// The README's first call: create a patient, list patients with the iterator, handle an error.
func Example() {
	ctx := context.Background()
	c := newClient()

	p, _, err := c.Patients.Create(ctx, &patients.CreateParams{
		FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created", p.FirstName, p.LastName)

	for p, err := range c.Patients.All(ctx, &patients.ListParams{Q: "love"}) { // pages fetched lazily
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("found", p.FirstName, p.LastName)
	}

	_, _, err = c.Patients.Get(ctx, "pat_00000000000000000000000000000000")
	var apiErr *medspa.Error
	if errors.As(err, &apiErr) && errors.Is(err, medspa.ErrNotFound) {
		fmt.Println(apiErr.Status, apiErr.Code)
	}
	// Output:
	// created Ada Lovelace
	// found Ada Lovelace
	// 404 not_found
}

// The first hour end to end: book an appointment, invoice it, take a card payment, and see a
// declined card.
func Example_checkout() {
	ctx := context.Background()
	c := newClient()
	p, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})

	start := time.Date(2030, time.January, 7, 9, 0, 0, 0, time.UTC)
	apt, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: p.ID, ProviderID: "prv_9", Service: "Hydrafacial",
		StartAt: start, EndAt: start.Add(time.Hour),
	})
	if err != nil {
		log.Fatal(err)
	}
	inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: p.ID, AppointmentID: apt.ID, TaxRateBps: 825, // 8.25%
		LineItems: []billing.LineItemParams{{Description: "Hydrafacial", Quantity: 1, UnitAmount: medspa.Ptr[int64](19900)}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(apt.Status, inv.Total, inv.Status)

	// A declined card is an error, and the failed attempt is recorded.
	_, _, err = c.Payments.Create(ctx, &billing.PaymentCreateParams{
		InvoiceID: inv.ID, Amount: inv.AmountDue, Method: billing.MethodCard, CardToken: billing.TokenDecline,
	})
	var apiErr *medspa.Error
	if errors.Is(err, medspa.ErrCardDeclined) && errors.As(err, &apiErr) {
		fmt.Println("declined:", apiErr.DeclineCode)
	}

	pay, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{
		InvoiceID: inv.ID, Amount: inv.AmountDue, Method: billing.MethodCard, CardToken: billing.TokenVisa,
	})
	if err != nil {
		log.Fatal(err)
	}
	inv, _, _ = c.Invoices.Get(ctx, inv.ID)
	fmt.Println(pay.Status, pay.Card.Brand, pay.Card.Last4, inv.Status)
	// Output:
	// scheduled 21542 open
	// declined: generic_decline
	// succeeded visa 4242 paid
}
