// Webhook-receiver starts the embedded mock server and a local webhook receiver, registers the
// receiver, triggers events, and prints the verified events it receives (type and ids only:
// event data never carries PHI).
//
//	go run ./examples/webhook-receiver
package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"slices"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
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
	defer srv.Close() // stops webhook delivery
	ts := httptest.NewServer(srv)
	defer ts.Close()
	key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
	if err != nil {
		return err
	}
	c, err := medspa.New(medspa.WithBaseURL(ts.URL), medspa.WithAPIKey(key.Key))
	if err != nil {
		return err
	}

	// The receiver listens on loopback (http:// is allowed only there). Its address is known
	// before it serves, so it can be registered first: the secret comes back only then.
	recv := httptest.NewUnstartedServer(nil)
	defer recv.Close()
	endpoint, _, err := c.Webhooks.Create(ctx, &webhooks.CreateParams{
		URL:         "http://" + recv.Listener.Addr().String() + "/medspa/webhooks",
		Events:      []webhooks.EventType{webhooks.EventPatientCreated, webhooks.EventAppointmentCreated, webhooks.EventAppointmentCancelled},
		Description: "example receiver",
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "registered %s (secret %s…)\n", endpoint.ID, endpoint.Secret[:10])

	received := make(chan *webhooks.Event, 16)
	recv.Config.Handler = webhooks.NewHandler(endpoint.Secret, func(_ context.Context, e *webhooks.Event) error {
		received <- e // verified: signature and timestamp checked by the handler
		return nil
	})
	recv.Start()

	// Trigger events: a patient is created and booked for tomorrow, and the booking is
	// cancelled; then a test delivery.
	p, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	if err != nil {
		return err
	}
	start := time.Now().UTC().Truncate(time.Hour).Add(24 * time.Hour)
	apt, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: p.ID, ProviderID: "prv_9", Service: "Botox — forehead", StartAt: start, EndAt: start.Add(45 * time.Minute),
	})
	if err != nil {
		return err
	}
	if _, _, err := c.Appointments.Cancel(ctx, apt.ID, ""); err != nil {
		return err
	}
	res, _, err := c.Webhooks.Test(ctx, endpoint.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "test delivery: delivered=%t status=%d\n", res.Delivered, deref(res.StatusCode))

	// Delivery is asynchronous and unordered: collect, then print in event order.
	var events []*webhooks.Event
	timeout := time.After(10 * time.Second)
	const want = 4 // patient.created, appointment.created, appointment.cancelled, webhook.test
	for len(events) < want {
		select {
		case e := <-received:
			events = append(events, e)
		case <-timeout:
			return fmt.Errorf("received %d of %d events", len(events), want)
		}
	}
	slices.SortFunc(events, func(a, b *webhooks.Event) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	for _, e := range events {
		fmt.Fprintf(out, "received %s %s: %s %s\n", e.Type, e.ID, e.Data.ObjectType(), objectID(e))
	}

	// The server keeps a log of every attempt (also GET /__admin/deliveries?account=); an
	// attempt is logged once the receiver's answer is in, a moment after the handler ran.
	for deadline := time.Now().Add(5 * time.Second); len(srv.Deliveries(key.Account)) < want && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	for _, d := range srv.Deliveries(key.Account) {
		fmt.Fprintf(out, "attempt %d of %s to %s: status %d\n", d.Attempt, d.EventType, d.EndpointID, d.StatusCode)
	}
	return nil
}

// objectID returns the id of the event's object.
func objectID(e *webhooks.Event) string {
	switch d := e.Data.(type) {
	case *webhooks.PatientData:
		return d.ID
	case *webhooks.AppointmentData:
		return d.ID
	case *webhooks.InvoiceData:
		return d.ID
	case *webhooks.PaymentData:
		return d.ID
	case *webhooks.TestData:
		return d.ID
	}
	return ""
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
