package webhook

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/webhooks"
)

// Delivery is one delivery attempt, or one delivery dropped unattempted, as the admin surface
// shows it (GET /__admin/deliveries).
type Delivery struct {
	EventID   string             `json:"eventId"`
	EventType webhooks.EventType `json:"eventType"`
	// EndpointID is empty for an event dropped before it was fanned out to endpoints.
	EndpointID string `json:"endpointId"`
	// URL is the endpoint's URL (without user info), empty when EndpointID is.
	URL string `json:"url"`
	// Attempt counts from 1; test deliveries are always attempt 1.
	Attempt int `json:"attempt"`
	// StatusCode is the receiver's status, 0 when no response arrived.
	StatusCode int `json:"statusCode"`
	// Error is the error class of a failed or dropped delivery (see ErrorClasses): never an
	// address, a port or a resolver's message.
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"durationMs"`
	// At is the account clock when the attempt started (the webhook-timestamp sent), or when
	// the delivery was dropped.
	At time.Time `json:"at"`
	// Delivered is true on a 2xx.
	Delivered bool `json:"delivered"`
	// Dropped is true for a delivery the queue bound dropped before it was attempted
	// (docs/protocol.md §13); Error is then "dropped".
	Dropped bool `json:"dropped,omitempty"`
	// NextAttemptAt is when the retry falls due on the account clock, if one is scheduled.
	NextAttemptAt *time.Time `json:"nextAttemptAt,omitempty"`
}

// deliveryLog is an account's newest deliveries, a ring of at most LogLimit.
type deliveryLog struct {
	buf  []Delivery
	next int // where the next one goes once the ring is full
}

func (l *deliveryLog) add(rec Delivery, limit int) {
	if len(l.buf) < limit {
		l.buf = append(l.buf, rec)
		return
	}
	l.buf[l.next] = rec
	l.next = (l.next + 1) % len(l.buf)
}

// all returns the deliveries oldest first.
func (l *deliveryLog) all() []Delivery {
	return append(slices.Clone(l.buf[l.next:]), l.buf[:l.next]...)
}

// log appends rec to the account's bounded delivery log.
func (d *Dispatcher) log(account string, rec Delivery) {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	l := d.logs[account]
	if l == nil {
		l = &deliveryLog{}
		d.logs[account] = l
	}
	l.add(rec, d.o.LogLimit)
}

// logDropped records jobs the queue bound dropped; the caller holds no lock.
func (d *Dispatcher) logDropped(a *store.Account, jobs []*job) {
	if len(jobs) == 0 {
		return
	}
	at := a.Clock().Now().Truncate(time.Second)
	for _, j := range jobs {
		rec := Delivery{EventID: j.eventID, EventType: j.typ, EndpointID: j.endpoint, Attempt: j.attempt, At: at, Error: ClassDropped, Dropped: true}
		if t, ok := a.WebhookTarget(j.endpoint); ok {
			rec.URL = displayURL(t.URL)
		}
		d.log(a.ID, rec)
	}
}

// Deliveries returns the account's delivery attempts, oldest first ("" for every account's).
func (d *Dispatcher) Deliveries(account string) []Delivery {
	d.logMu.Lock()
	defer d.logMu.Unlock()
	if account != "" {
		if l := d.logs[account]; l != nil {
			return l.all()
		}
		return nil
	}
	var out []Delivery
	for _, l := range d.logs {
		out = append(out, l.all()...)
	}
	slices.SortStableFunc(out, func(a, b Delivery) int { return a.At.Compare(b.At) })
	return out
}

// displayURL is an endpoint URL as it may be shown: without user info, which CheckURL refuses
// but an endpoint stored before that rule may still carry.
func displayURL(raw string) string {
	if !strings.Contains(raw, "@") {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}
