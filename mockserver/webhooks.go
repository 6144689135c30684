package mockserver

import (
	"context"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/webhook"
	"github.com/medspa/medspa-go/webhooks"
)

// WithPrivateWebhookURLs lets webhook endpoints use private and link-local addresses (say,
// receivers on a Docker network), over http:// too. By default they are refused when an
// endpoint is registered and again at every connection (so DNS rebinding cannot reach them);
// loopback is allowed unless WithLoopbackWebhooks(false).
func WithPrivateWebhookURLs() Option {
	return func(o *options) {
		if o.webhooks.Policy == nil {
			o.webhooks.Policy = &webhook.Policy{}
		}
		o.webhooks.Policy.AllowPrivate = true
	}
}

// WithLoopbackWebhooks says whether webhook endpoints may point to loopback addresses and
// names (127.0.0.0/8, ::1, localhost). They may by default: tests run their receivers there.
// A server reachable from the network passes false, so that its users cannot make it reach
// services of its own host (cmd/medspa-mock does when its listener is not loopback-only,
// unless -loopback-webhooks): such endpoints are refused with 422 when registered and again
// at every connection.
func WithLoopbackWebhooks(allow bool) Option {
	return func(o *options) {
		if o.webhooks.Policy == nil {
			o.webhooks.Policy = &webhook.Policy{}
		}
		o.webhooks.Policy.RefuseLoopback = !allow
	}
}

// WithWebhookTimeout sets how long a delivery attempt may take (default 10 s); tests with
// hanging receivers shorten it.
func WithWebhookTimeout(d time.Duration) Option { return func(o *options) { o.webhooks.Timeout = d } }

// Delivery is one webhook delivery attempt (GET /__admin/deliveries).
type Delivery struct {
	EventID    string             `json:"eventId"`
	EventType  webhooks.EventType `json:"eventType"`
	EndpointID string             `json:"endpointId"`
	URL        string             `json:"url"`
	// Attempt counts from 1; test deliveries are always attempt 1.
	Attempt int `json:"attempt"`
	// StatusCode is the receiver's status, 0 when no response arrived.
	StatusCode int `json:"statusCode"`
	// Error is the class of a failed or dropped delivery (timeout, connection_refused, dns, tls,
	// blocked_address, status, dropped, …), never an address, port or payload.
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"durationMs"`
	// At is the account clock when the attempt started (the webhook-timestamp sent), or when
	// the delivery was dropped.
	At time.Time `json:"at"`
	// Delivered is true on a 2xx.
	Delivered bool `json:"delivered"`
	// Dropped is true for a delivery a bounded queue dropped before it was attempted
	// (Bounds.WebhookQueue, Bounds.WebhookBacklog).
	Dropped bool `json:"dropped,omitempty"`
	// Outcome sums the record up: "delivered", "failed" or "dropped".
	Outcome string `json:"outcome"`
	// NextAttemptAt is when the retry falls due on the account clock, if one is scheduled.
	NextAttemptAt *time.Time `json:"nextAttemptAt,omitempty"`
}

// Deliveries returns the account's webhook delivery attempts, oldest first (every account's
// when account is ""). The log is bounded (the newest 10,000 per account, 100,000 in all:
// Bounds.DeliveryLog, Bounds.DeliveryLogTotal). It is also served
// as GET /__admin/deliveries?account=.
func (s *Server) Deliveries(account string) []Delivery {
	ds := s.hooks.Deliveries(account)
	out := make([]Delivery, len(ds))
	for i, d := range ds {
		out[i] = Delivery{EventID: d.EventID, EventType: d.EventType, EndpointID: d.EndpointID, URL: d.URL,
			Attempt: d.Attempt, StatusCode: d.StatusCode, Error: d.Error, DurationMs: d.DurationMs, At: d.At,
			Delivered: d.Delivered, Dropped: d.Dropped, Outcome: d.Outcome, NextAttemptAt: d.NextAttemptAt}
	}
	return out
}

// EventRecorder collects an account's domain events in process, as they are emitted, without
// any webhook endpoint or HTTP (RecordEvents).
type EventRecorder struct{ r *webhook.Recorder }

// Events returns the events recorded so far, oldest first.
func (r *EventRecorder) Events() []webhooks.Event { return r.r.Events() }

// Wait blocks until at least n events were recorded, and returns them all; when ctx ends first
// it returns those recorded so far with ctx's error.
func (r *EventRecorder) Wait(ctx context.Context, n int) ([]webhooks.Event, error) {
	return r.r.Wait(ctx, n)
}

// Stop ends the recording; the events recorded so far stay readable.
func (r *EventRecorder) Stop() { r.r.Stop() }

// RecordEvents starts recording account's events (from now on):
//
//	rec := srv.RecordEvents(key.Account)
//	// … API calls …
//	events, err := rec.Wait(ctx, 2)
func (s *Server) RecordEvents(account string) *EventRecorder {
	return &EventRecorder{r: s.hooks.Record(account)}
}
