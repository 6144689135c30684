package webhooks_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/medspa/medspa-go/webhooks"
)

// Sign computes the webhook-signature a sender attaches; this is the
// Standard Webhooks specification's own test vector.
func ExampleSign() {
	sig, err := webhooks.Sign(
		"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
		"msg_p5jXN8AQM9LWM0D4loKWxJek",
		time.Unix(1614265330, 0),
		[]byte(`{"test": 2432232314}`),
	)
	if err != nil {
		panic(err)
	}
	fmt.Println(sig)
	// Output: v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=
}

// Verify checks a delivery's headers and body and decodes the event. WithNow
// pins the clock here so the example is deterministic; a receiver testing
// against a mock server with a moved clock does the same.
func ExampleVerify() {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	sentAt := time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC)
	body := []byte(`{"id":"evt_0193","type":"payment.failed","createdAt":"2026-11-22T14:03:00Z",` +
		`"data":{"object":"payment","id":"pay_01","invoiceId":"inv_01","status":"failed",` +
		`"amount":12500,"currency":"usd","method":"card","declineCode":"insufficient_funds"}}`)
	header, _ := webhooks.SignHeaders(secret, "evt_0193", sentAt, body) // what the sender does

	clock := webhooks.WithNow(func() time.Time { return sentAt.Add(time.Minute) })
	e, err := webhooks.Verify(secret, header, body, clock)
	if err != nil {
		fmt.Println("rejected:", err)
		return
	}
	if p, ok := e.Payment(); ok {
		fmt.Println(e.Type, p.ID, p.Amount, p.Currency, p.DeclineCode)
	}

	// A replay an hour later is refused.
	late := webhooks.WithNow(func() time.Time { return sentAt.Add(time.Hour) })
	_, err = webhooks.Verify(secret, header, body, late)
	fmt.Println(errors.Is(err, webhooks.ErrTimestampTooOld))
	// Output:
	// payment.failed pay_01 12500 usd insufficient_funds
	// true
}

// NewHandler turns a callback into an http.Handler that verifies each
// delivery; the callback switches on the event's data type.
func ExampleNewHandler() {
	secret := webhooks.NewSecret() // in production: the secret from webhook creation
	h := webhooks.NewHandler(secret, func(ctx context.Context, e *webhooks.Event) error {
		switch d := e.Data.(type) {
		case *webhooks.AppointmentData:
			fmt.Println("appointment", d.ID, "is now", d.Status)
		case *webhooks.InvoiceData:
			fmt.Println("invoice", d.ID, "due", d.AmountDue)
		default:
			// Ignore other types, including ones added after this code.
		}
		return nil // an error here answers 500 and the sender retries
	})
	mux := http.NewServeMux()
	mux.Handle("/medspa/webhooks", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// Simulate the API delivering an event.
	body := `{"id":"evt_01","type":"appointment.cancelled","createdAt":"2026-11-22T14:03:00Z",` +
		`"data":{"object":"appointment","id":"apt_01","patientId":"pat_01","providerId":"prv_9",` +
		`"status":"cancelled","previousStatus":"confirmed","startAt":"2026-11-23T09:00:00Z","endAt":"2026-11-23T09:30:00Z"}}`
	header, _ := webhooks.SignHeaders(secret, "evt_01", time.Now(), []byte(body))
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/medspa/webhooks", strings.NewReader(body))
	req.Header = header
	resp, err := srv.Client().Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Status)
	// Output:
	// appointment apt_01 is now cancelled
	// 204 No Content
}

// WithSecrets lets a receiver hold the previous secret beside the new one while an endpoint's
// secret is rotated: a delivery signed with either is accepted.
func ExampleWithSecrets() {
	oldSecret, newSecret := webhooks.NewSecret(), webhooks.NewSecret()
	sentAt := time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC)
	clock := webhooks.WithNow(func() time.Time { return sentAt })
	body := []byte(`{"id":"evt_01","type":"webhook.test","createdAt":"2026-11-22T14:03:00Z","data":{"object":"webhook","id":"whk_01"}}`)

	// Signed before the rotation reached the sender: the previous secret only.
	header, _ := webhooks.SignHeaders(oldSecret, "evt_01", sentAt, body)
	_, err := webhooks.Verify(newSecret, header, body, clock)
	fmt.Println("new secret alone:", errors.Is(err, webhooks.ErrSignatureMismatch))
	_, err = webhooks.Verify(newSecret, header, body, clock, webhooks.WithSecrets(oldSecret))
	fmt.Println("new and previous:", err)

	// Once the rotation is over, an empty previous-secret setting is skipped.
	_, err = webhooks.Verify(newSecret, header, body, clock, webhooks.WithSecrets(""))
	fmt.Println("previous setting emptied:", errors.Is(err, webhooks.ErrSignatureMismatch))
	// Output:
	// new secret alone: true
	// new and previous: <nil>
	// previous setting emptied: true
}
