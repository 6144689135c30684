package webhooks_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/webhooks"
)

// exampleClient returns a client of a fresh in-process mock server (closed by the caller) with
// the options given to the server.
func exampleClient(opts ...mockserver.Option) (*medspa.Client, *mockserver.Server) {
	srv, err := mockserver.New(opts...)
	if err != nil {
		log.Fatal(err)
	}
	c, _, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}
	return c, srv
}

// registerAll creates an endpoint for url subscribed to every event.
func registerAll(c *medspa.Client, url string) *webhooks.Endpoint {
	e, _, err := c.Webhooks.Create(context.Background(), &webhooks.CreateParams{URL: url, Events: []webhooks.EventType{webhooks.EventAll}})
	if err != nil {
		log.Fatal(err)
	}
	return e
}

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

// Get returns an endpoint; its secret is never shown again after Create.
func ExampleService_Get() {
	c, srv := exampleClient()
	defer srv.Close()
	created := registerAll(c, "https://hooks.example.com/medspa")
	e, _, err := c.Webhooks.Get(context.Background(), created.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.URL, e.Events, e.Enabled, e.Secret == "")
	// Output: https://hooks.example.com/medspa [*] true true
}

func ExampleService_List() {
	c, srv := exampleClient()
	defer srv.Close()
	registerAll(c, "https://hooks.example.com/a")
	registerAll(c, "https://hooks.example.com/b")
	page, _, err := c.Webhooks.List(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range page.Data {
		fmt.Println(e.URL)
	}
	fmt.Println("total", page.Meta.Total)
	// Output:
	// https://hooks.example.com/a
	// https://hooks.example.com/b
	// total 2
}

func ExampleService_All() {
	c, srv := exampleClient()
	defer srv.Close()
	for _, name := range []string{"a", "b", "c"} {
		registerAll(c, "https://hooks.example.com/"+name)
	}
	n := 0
	for _, err := range c.Webhooks.All(context.Background(), &webhooks.ListParams{ListOptions: medspa.ListOptions{PerPage: 2}}) {
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Println(n, "endpoints")
	// Output: 3 endpoints
}

// Delete answers 204 with no body: the call returns the answer's metadata only.
func ExampleService_Delete() {
	c, srv := exampleClient()
	defer srv.Close()
	ctx := context.Background()
	e := registerAll(c, "https://hooks.example.com/medspa")
	resp, err := c.Webhooks.Delete(ctx, e.ID)
	if err != nil {
		log.Fatal(err)
	}
	_, _, err = c.Webhooks.Get(ctx, e.ID)
	fmt.Println(resp.StatusCode, errors.Is(err, medspa.ErrNotFound))
	// Output: 204 true
}

// Test delivers a webhook.test event at once and reports how the receiver answered.
func ExampleService_Test() {
	c, srv := exampleClient()
	defer srv.Close()
	gone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusGone) }))
	defer gone.Close()
	e := registerAll(c, gone.URL)
	res, _, err := c.Webhooks.Test(context.Background(), e.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Delivered, *res.StatusCode)
	// Output: false 410
}

// A receiver built from the client checks delivery timestamps against the client's clock. The
// mock server here runs in 2020 and NewClient sets the client's clock to it, so the client's
// receiver accepts the mock's deliveries, while a receiver on the wall clock refuses them as
// replays.
func ExampleService_NewHandler() {
	c, srv := exampleClient(mockserver.WithStartTime(time.Date(2020, time.March, 2, 9, 0, 0, 0, time.UTC)))
	defer srv.Close()
	ctx := context.Background()
	handle := func(_ context.Context, e *webhooks.Event) error { return nil }
	for _, name := range []string{"client clock", "wall clock"} {
		recv := httptest.NewUnstartedServer(nil)
		e := registerAll(c, "http://"+recv.Listener.Addr().String()+"/hooks")
		if name == "client clock" {
			recv.Config.Handler = c.Webhooks.NewHandler(e.Secret, handle)
		} else {
			recv.Config.Handler = webhooks.NewHandler(e.Secret, handle)
		}
		recv.Start()
		res, _, err := c.Webhooks.Test(ctx, e.ID)
		recv.Close()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(name, *res.StatusCode)
	}
	// Output:
	// client clock 204
	// wall clock 400
}

// Verify is webhooks.Verify on the client's clock.
func ExampleService_Verify() {
	c, srv := exampleClient(mockserver.WithStartTime(time.Date(2020, time.March, 2, 9, 0, 0, 0, time.UTC)))
	defer srv.Close()
	secret := webhooks.NewSecret()
	body := []byte(`{"id":"evt_01","type":"webhook.test","createdAt":"2020-03-02T09:00:00Z","data":{"object":"webhook","id":"whk_01"}}`)
	header, _ := webhooks.SignHeaders(secret, "evt_01", c.Now(), body) // stamped as the mock would

	e, err := c.Webhooks.Verify(secret, header, body)
	fmt.Println(e.Type, err)
	_, err = webhooks.Verify(secret, header, body) // the wall clock: years later
	fmt.Println(errors.Is(err, webhooks.ErrTimestampTooOld))
	// Output:
	// webhook.test <nil>
	// true
}
