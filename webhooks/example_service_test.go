package webhooks_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
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

// Update is a merge patch: it changes what it names; medspa.Null clears the description, and
// resets enabled to true.
func ExampleService_Update() {
	c, srv := exampleClient()
	defer srv.Close()
	ctx := context.Background()
	e, _, err := c.Webhooks.Create(ctx, &webhooks.CreateParams{
		URL: "https://hooks.example.com/medspa", Events: []webhooks.EventType{webhooks.EventPaymentSucceeded}, Description: "books",
	})
	if err != nil {
		log.Fatal(err)
	}

	e, _, err = c.Webhooks.Update(ctx, e.ID, &webhooks.UpdateParams{
		Events:  []webhooks.EventType{webhooks.EventPaymentSucceeded, webhooks.EventRefundCreated},
		Enabled: medspa.Set(false), // pause deliveries
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.Events, e.Description, e.Enabled)

	e, _, _ = c.Webhooks.Update(ctx, e.ID, &webhooks.UpdateParams{Description: medspa.Null[string](), Enabled: medspa.Null[bool]()})
	fmt.Printf("%q %v\n", e.Description, e.Enabled)

	_, _, err = c.Webhooks.Update(ctx, e.ID, &webhooks.UpdateParams{URL: "http://hooks.example.com/medspa"}) // plain http, not loopback
	fmt.Println(errors.Is(err, medspa.ErrValidation))
	// Output:
	// [payment.succeeded refund.created] books false
	// "" true
	// true
}

// RotateSecret issues a new secret at once; until the previous one expires, every delivery
// carries both signatures, the new one first, so a receiver that knows either accepts it.
func ExampleService_RotateSecret() {
	srv, err := mockserver.New(mockserver.WithStartTime(time.Date(2030, time.July, 1, 10, 0, 0, 0, time.UTC)))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	c, _, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	var oldSecret, newSecret string
	recv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		for _, s := range []struct{ name, secret string }{{"old", oldSecret}, {"new", newSecret}} {
			if s.secret != "" {
				_, err := c.Webhooks.Verify(s.secret, r.Header, body)
				fmt.Printf("  verified with the %s secret: %t\n", s.name, err == nil)
			}
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()
	e := registerAll(c, "http://"+recv.Listener.Addr().String()+"/hooks")
	oldSecret = e.Secret
	recv.Start()

	rot, _, err := c.Webhooks.RotateSecret(ctx, e.ID, &webhooks.RotateSecretParams{PreviousSecretExpiresIn: medspa.Ptr(time.Hour)})
	if err != nil {
		log.Fatal(err)
	}
	newSecret = rot.Secret
	fmt.Println("the previous secret signs until", rot.PreviousSecretExpiresAt.Format(time.RFC3339))
	fmt.Println("a delivery in the overlap:")
	if _, _, err := c.Webhooks.Test(ctx, e.ID); err != nil {
		log.Fatal(err)
	}
	// Output:
	// the previous secret signs until 2030-07-01T11:00:00Z
	// a delivery in the overlap:
	//   verified with the old secret: true
	//   verified with the new secret: true
}

// A zero-downtime rotation, on the mock server's clock: the receiver takes the new secret
// while the previous one still signs (keeping the previous one, WithSecrets), and lets the
// previous one go once it has expired. Every delivery is verified throughout; only a receiver
// still holding just the old secret after the expiry would refuse one.
func Example_rotateSecret() {
	srv, err := mockserver.New(mockserver.WithStartTime(time.Date(2030, time.July, 1, 10, 0, 0, 0, time.UTC)))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	c, key, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	// The receiver's configuration, replaced as a deployment would replace it.
	var handler atomic.Pointer[http.Handler]
	configure := func(secret, previous string) {
		h := c.Webhooks.NewHandler(secret, func(context.Context, *webhooks.Event) error { return nil },
			webhooks.WithSecrets(previous)) // "" once there is no previous secret
		handler.Store(&h)
	}
	recv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		(*handler.Load()).ServeHTTP(w, r)
	}))
	defer recv.Close()
	e := registerAll(c, "http://"+recv.Listener.Addr().String()+"/hooks")
	configure(e.Secret, "")
	recv.Start()
	deliver := func(when string) {
		res, _, err := c.Webhooks.Test(ctx, e.ID) // a delivery, now; the answer says how the receiver took it
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-44s %d\n", when+":", *res.StatusCode)
	}

	deliver("before the rotation")
	rot, _, err := c.Webhooks.RotateSecret(ctx, e.ID, &webhooks.RotateSecretParams{PreviousSecretExpiresIn: medspa.Ptr(time.Hour)})
	if err != nil {
		log.Fatal(err)
	}
	deliver("rotated, the receiver not yet told")
	configure(rot.Secret, e.Secret)
	deliver("the receiver holding both")
	srv.AdvanceTime(key.Account, time.Hour)
	deliver("the previous secret expired")
	configure(rot.Secret, "")
	deliver("the receiver holding the new one only")
	configure(e.Secret, "")
	deliver("(a receiver left with the old one only)")
	// Output:
	// before the rotation:                         204
	// rotated, the receiver not yet told:          204
	// the receiver holding both:                   204
	// the previous secret expired:                 204
	// the receiver holding the new one only:       204
	// (a receiver left with the old one only):     400
}
