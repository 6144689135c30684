package webhooks_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/webhooks"
)

// Register an endpoint, keep its secret for the receiver, and send it a test event.
func ExampleService_Create() {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	c, _, err := srv.NewClient()
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	// A receiver on loopback; it learns the secret once the endpoint is registered.
	recv := httptest.NewUnstartedServer(nil)
	defer recv.Close()
	e, _, err := c.Webhooks.Create(ctx, &webhooks.CreateParams{
		URL:    "http://" + recv.Listener.Addr().String() + "/hooks",
		Events: []webhooks.EventType{webhooks.EventAppointmentCreated, webhooks.EventAppointmentCancelled},
	})
	if err != nil {
		panic(err)
	}
	recv.Config.Handler = webhooks.NewHandler(e.Secret, func(_ context.Context, ev *webhooks.Event) error {
		fmt.Println("received", ev.Type)
		return nil
	})
	recv.Start()

	res, _, err := c.Webhooks.Test(ctx, e.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println("delivered:", res.Delivered, *res.StatusCode)
	// Output:
	// received webhook.test
	// delivered: true 204
}
