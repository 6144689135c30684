// Package webhooks receives and verifies MedSpa webhook events.
//
// A receiver registers a handler built from the endpoint's secret (returned
// once, when the endpoint is created) and switches on the event type:
//
//	h := webhooks.NewHandler(os.Getenv("MEDSPA_WEBHOOK_SECRET"),
//		func(ctx context.Context, e *webhooks.Event) error {
//			switch d := e.Data.(type) {
//			case *webhooks.AppointmentData:
//				return syncAppointment(ctx, d.ID, d.Status)
//			case *webhooks.PaymentData:
//				return recordPayment(ctx, d.ID, d.Amount, d.Currency)
//			}
//			return nil // ignore the rest, including types added later
//		})
//	http.Handle("POST /medspa/webhooks", h)
//
// Event data is thin: ids, statuses, amounts and counts, never PHI. Fetch
// details through the API with the receiver's own credentials and scopes.
//
// # Verification
//
// Deliveries follow Standard Webhooks. Verify (and the handler) accept a
// delivery only if webhook-signature holds a "v1," HMAC-SHA256 of
// "<webhook-id>.<webhook-timestamp>.<body>" under the secret's key, and
// webhook-timestamp is within a tolerance of now (default 5 minutes, either
// direction) so a captured delivery can't be replayed later. During secret
// rotation the sender signs with several secrets; any one matching v1
// signature is enough and other signature versions are ignored. A receiver
// may hold several secrets too (WithSecrets): it accepts a delivery when any
// signature matches any of them. Tests
// against a mock server whose clock was moved build the receiver from the
// client instead (Service.NewHandler, Service.Verify: the client's clock, set
// by medspa.WithClock and by mockserver's NewTest), or pass WithNow.
//
// Delivery is at least once and unordered: a retry carries the same
// webhook-id (the event id), so receivers dedupe on it and make effects
// idempotent. Any non-2xx answer, including the 500 the handler returns when
// the callback fails, makes the sender retry later.
//
// Sign and SignHeaders produce the same headers a sender does, for
// receivers' own tests.
//
// # Managing endpoints
//
// Service (the Webhooks field of medspa.Client) registers, lists, updates,
// removes and tests endpoints, and rotates their secrets. The secret comes
// back once, from Create:
//
//	e, _, err := c.Webhooks.Create(ctx, &webhooks.CreateParams{
//		URL:    "https://hooks.example.com/medspa",
//		Events: []webhooks.EventType{webhooks.EventAppointmentCreated, webhooks.EventPaymentSucceeded},
//	})
//	// keep e.Secret for NewHandler
//	res, _, err := c.Webhooks.Test(ctx, e.ID) // a webhook.test delivery, now
//	e, _, err = c.Webhooks.Update(ctx, e.ID, &webhooks.UpdateParams{
//		Events:      []webhooks.EventType{webhooks.EventAll},
//		Description: medspa.Null[string](), // clears it
//	})
//
// A failed delivery (no 2xx within 10 s; redirects are not followed) is
// retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h, or
// later when a 429 or 503 carries Retry-After; 410 Gone disables the
// endpoint.
//
// # Rotating a secret without downtime
//
// Service.RotateSecret gives an endpoint a new secret at once and keeps
// signing with the previous one for a while (24 hours unless
// RotateSecretParams say otherwise): until PreviousSecretExpiresAt every
// delivery carries two signatures, the new secret's first. A receiver that
// knows either secret accepts them, so no delivery is refused at any point
// if the receiver learns the new secret within that window:
//
//  1. Rotate, and store the new secret beside the current one.
//  2. Run the receiver with both, the new one first, while the window lasts:
//     webhooks.NewHandler(newSecret, fn, webhooks.WithSecrets(oldSecret)).
//  3. Once the window is over, drop the previous secret (WithSecrets("")
//     skips an empty setting, so the code need not change).
//
// A receiver that holds both secrets also accepts a delivery signed just
// before the rotation (with the previous secret only) that reaches it after.
// Example_rotateSecret runs the whole sequence against the mock server.
//
// # Testing against the mock server
//
// The mock server (package mockserver) delivers to loopback receivers over
// http://, so a test can register an httptest server running NewHandler.
// Tests that only need to know which events happened skip HTTP altogether
// with mockserver's Server.RecordEvents; Server.Deliveries lists every
// delivery attempt, and moving the mock's clock runs the retries that fall
// due (verify those deliveries on the mock's time: c.Webhooks.NewHandler with
// a client from mockserver.NewTest does).
package webhooks
