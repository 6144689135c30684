package webhook

import (
	"container/list"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/webhooks"
)

// The outcomes of a Delivery record.
const (
	OutcomeDelivered = "delivered" // a 2xx answer
	OutcomeFailed    = "failed"    // any other result; retried while the schedule allows
	OutcomeDropped   = "dropped"   // never attempted: a bounded queue overflowed
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
	// Outcome sums the record up: OutcomeDelivered, OutcomeFailed or OutcomeDropped.
	Outcome string `json:"outcome"`
	// NextAttemptAt is when the retry falls due on the account clock, if one is scheduled.
	NextAttemptAt *time.Time `json:"nextAttemptAt,omitempty"`
}

// deliveryLog is one account's newest deliveries, oldest first.
type deliveryLog struct {
	account string
	ring    ring[Delivery]
	order   *list.Element // in Dispatcher.logOrder
}

// ring is a FIFO of at most a given number of values that drops the oldest to take a new one.
type ring[T any] struct {
	buf     []T
	head, n int
}

// push appends v, dropping the oldest value when limit are held; it reports whether it did.
func (r *ring[T]) push(v T, limit int) (dropped bool) {
	switch {
	case r.n < len(r.buf):
		r.buf[(r.head+r.n)%len(r.buf)] = v
		r.n++
	case r.n < limit: // grow, in order, by doubling
		buf := make([]T, r.n, min(max(2*r.n, 16), limit))
		r.copyTo(buf)
		r.buf, r.head = append(buf, v), 0
		r.buf = r.buf[:cap(r.buf)]
		r.n++
	default:
		r.buf[r.head] = v
		r.head = (r.head + 1) % len(r.buf)
		return true
	}
	return false
}

// popOldest drops the oldest value.
func (r *ring[T]) popOldest() {
	var zero T
	r.buf[r.head] = zero
	r.head = (r.head + 1) % len(r.buf)
	r.n--
}

func (r *ring[T]) copyTo(dst []T) {
	k := copy(dst, r.buf[r.head:min(r.head+r.n, len(r.buf))])
	copy(dst[k:], r.buf[:r.n-k])
}

// all returns the values, oldest first.
func (r *ring[T]) all() []T {
	out := make([]T, r.n)
	r.copyTo(out)
	return out
}

// log appends rec to the account's delivery log: at most LogLimit per account and
// LogTotalLimit over all of them, the entries of the account that logged least recently going
// first when the total is reached, so that the accounts of tests long finished make room.
func (d *Dispatcher) log(account string, rec Delivery) {
	switch {
	case rec.Dropped:
		rec.Outcome = OutcomeDropped
	case rec.Delivered:
		rec.Outcome = OutcomeDelivered
	default:
		rec.Outcome = OutcomeFailed
	}
	d.logMu.Lock()
	defer d.logMu.Unlock()
	l := d.logs[account]
	if l == nil {
		l = &deliveryLog{account: account}
		l.order = d.logOrder.PushBack(l)
		d.logs[account] = l
	} else {
		d.logOrder.MoveToBack(l.order)
	}
	if !l.ring.push(rec, d.o.LogLimit) {
		d.logTotal++
	}
	for d.logTotal > d.o.LogTotalLimit {
		old := d.logOrder.Front().Value.(*deliveryLog)
		old.ring.popOldest()
		d.logTotal--
		if old.ring.n == 0 {
			d.logOrder.Remove(old.order)
			delete(d.logs, old.account)
		}
	}
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
			return l.ring.all()
		}
		return nil
	}
	var out []Delivery
	for _, l := range d.logs {
		out = append(out, l.ring.all()...)
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
