// Webhook-rotation starts the embedded mock server and a local webhook receiver, then rotates the
// endpoint's signing secret without losing a delivery: the receiver takes the new secret while
// the previous one still signs (every delivery in that window carries both signatures), and lets
// the previous one go once it has expired on the mock server's clock. A patient is created in
// each phase; the receiver verifies every delivery, and the server's delivery log shows every
// attempt answered 204.
//
//	go run ./examples/webhook-rotation
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// delivery is what the receiver saw of one delivery, and how it answered.
type delivery struct {
	signatures int // in the webhook-signature header
	status     int
	header     http.Header
	body       []byte
}

// receiver verifies deliveries with the secrets it is configured with (configure replaces its
// handler, as a deployment rolls out new configuration), and reports each delivery.
type receiver struct {
	c       *medspa.Client
	handler atomic.Pointer[http.Handler]
	events  chan *webhooks.Event // verified events
	got     chan delivery        // every delivery, once answered
}

func (rc *receiver) configure(secret, previous string) {
	h := rc.c.Webhooks.NewHandler(secret, func(_ context.Context, e *webhooks.Event) error {
		rc.events <- e
		return nil
	}, webhooks.WithSecrets(previous)) // an empty previous secret is skipped
	rc.handler.Store(&h)
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, webhooks.DefaultMaxBodyBytes))
	if err != nil {
		http.Error(w, "read error", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body)) // read again by the handler
	rec := httptest.NewRecorder()
	(*rc.handler.Load()).ServeHTTP(rec, r)
	w.WriteHeader(rec.Code)
	rc.got <- delivery{signatures: len(strings.Fields(r.Header.Get(webhooks.HeaderSignature))), status: rec.Code, header: r.Header.Clone(), body: body}
}

func run(ctx context.Context, out io.Writer) error {
	// A mock server whose clock stands still until the program moves it.
	srv, err := mockserver.New(mockserver.WithStartTime(time.Date(2030, time.July, 1, 10, 0, 0, 0, time.UTC)))
	if err != nil {
		return err
	}
	defer srv.Close() // stops webhook delivery
	// A client on the clock of its account: so are the receivers it builds.
	c, key, err := srv.NewClient()
	if err != nil {
		return err
	}

	rc := &receiver{c: c, events: make(chan *webhooks.Event, 16), got: make(chan delivery, 16)}
	recv := httptest.NewUnstartedServer(rc)
	defer recv.Close()
	endpoint, _, err := c.Webhooks.Create(ctx, &webhooks.CreateParams{
		URL:    "http://" + recv.Listener.Addr().String() + "/medspa/webhooks",
		Events: []webhooks.EventType{webhooks.EventPatientCreated},
	})
	if err != nil {
		return err
	}
	oldSecret := endpoint.Secret
	rc.configure(oldSecret, "")
	recv.Start()
	fmt.Fprintf(out, "%s registered; the receiver holds its secret\n", endpoint.ID)

	n := 0
	phase := func(name string) (delivery, error) {
		n++
		if _, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"}); err != nil {
			return delivery{}, err
		}
		select {
		case d := <-rc.got:
			if d.status != http.StatusNoContent {
				return d, fmt.Errorf("%s: the receiver answered %d", name, d.status)
			}
			e := <-rc.events // handed over before the answer
			fmt.Fprintf(out, "%-31s %d signature(s), verified %s %s\n", name+":", d.signatures, e.Type, e.ID)
			return d, nil
		case <-time.After(10 * time.Second):
			return delivery{}, fmt.Errorf("%s: no delivery within 10 s", name)
		}
	}

	if _, err := phase("before the rotation"); err != nil {
		return err
	}
	rot, _, err := c.Webhooks.RotateSecret(ctx, endpoint.ID, &webhooks.RotateSecretParams{PreviousSecretExpiresIn: medspa.Ptr(time.Hour)})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "rotated at %s; the previous secret signs until %s\n", c.Now().Format(time.TimeOnly), rot.PreviousSecretExpiresAt.Format(time.TimeOnly))
	if _, err := phase("rotated, receiver not yet told"); err != nil {
		return err
	}
	rc.configure(rot.Secret, oldSecret)
	if _, err := phase("receiver holding both"); err != nil {
		return err
	}
	srv.AdvanceTime(key.Account, time.Hour)
	fmt.Fprintf(out, "clock moved to %s: the previous secret has expired\n", c.Now().Format(time.TimeOnly))
	last, err := phase("receiver still holding both")
	if err != nil {
		return err
	}
	// Had the receiver kept only the previous secret, it would refuse this delivery now.
	if _, err := c.Webhooks.Verify(oldSecret, last.header, last.body); !errors.Is(err, webhooks.ErrSignatureMismatch) {
		return fmt.Errorf("the previous secret still verifies after its expiry: %v", err)
	}
	fmt.Fprintln(out, "(with the previous secret alone it is refused: no matching signature)")
	rc.configure(rot.Secret, "")
	if _, err := phase("receiver holding the new one"); err != nil {
		return err
	}

	// The server's log of delivery attempts: every one answered 204, none retried. An attempt
	// is logged once the receiver's answer is in, a moment after the receiver saw it.
	for deadline := time.Now().Add(5 * time.Second); len(srv.Deliveries(key.Account)) < n && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	attempts := srv.Deliveries(key.Account)
	ok := 0
	for _, a := range attempts {
		if a.Delivered && a.StatusCode == http.StatusNoContent && a.Attempt == 1 {
			ok++
		}
	}
	fmt.Fprintf(out, "deliveries: %d of %d verified and answered 204 at the first attempt\n", ok, len(attempts))
	if ok != n || len(attempts) != n {
		return fmt.Errorf("%d of %d attempts answered 204, want all %d", ok, len(attempts), n)
	}
	return nil
}
