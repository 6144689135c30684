package mockserver

import (
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// WithPrivateWebhookURLs lets webhook endpoints use private and link-local addresses (say,
// receivers on a Docker network), over http:// too. By default they are refused when an
// endpoint is registered and again at every connection (so DNS rebinding cannot reach them);
// loopback is always allowed.
func WithPrivateWebhookURLs() Option {
	return func(o *options) {
		if o.webhooks.Policy == nil {
			o.webhooks.Policy = &webhook.Policy{}
		}
		o.webhooks.Policy.AllowPrivate = true
	}
}

// WithWebhookTimeout sets how long a delivery attempt may take (default 10 s); tests with
// hanging receivers shorten it.
func WithWebhookTimeout(d time.Duration) Option { return func(o *options) { o.webhooks.Timeout = d } }

// Delivery is one webhook delivery attempt: event, endpoint, attempt number (from 1), status
// code (0 when no response arrived), error, duration and time on the account clock.
type Delivery = webhook.Delivery

// Deliveries returns the account's webhook delivery attempts, oldest first (every account's
// when account is ""). The log is bounded (the newest 10,000 per account). It is also served
// as GET /__admin/deliveries?account=.
func (s *Server) Deliveries(account string) []Delivery { return s.hooks.Deliveries(account) }

// EventRecorder collects an account's domain events in process, as they are emitted, without
// any webhook endpoint or HTTP. Events returns them so far; Wait(ctx, n) blocks until n have
// arrived; Stop ends the recording.
type EventRecorder = webhook.Recorder

// RecordEvents starts recording account's events (from now on):
//
//	rec := srv.RecordEvents(key.Account)
//	// … API calls …
//	events, err := rec.Wait(ctx, 2)
func (s *Server) RecordEvents(account string) *EventRecorder { return s.hooks.Record(account) }

// Close stops webhook delivery: workers end, in-flight attempts are cancelled and pending
// deliveries and retries are abandoned. The server still answers requests. Safe to call twice.
// It returns the first error met while releasing what the server holds.
func (s *Server) Close() error {
	s.hooks.Close()
	return nil
}
