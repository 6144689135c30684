package webhook

import (
	"container/list"
	"context"
	"errors"
	"net/url"
	"slices"
	"strconv"
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
	// ID names this record (dlv_ and a number, in the order of logging): POST
	// /__admin/deliveries/{id}/resend makes a new attempt of its event to its endpoint.
	ID        string             `json:"id"`
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
	// RequestHeaders are the headers the attempt sent: webhook-id, webhook-timestamp,
	// webhook-signature (signatures only: never the secret), content-type, user-agent.
	RequestHeaders map[string]string `json:"requestHeaders,omitempty"`
	// ResendOf is the id of the record a resend (Resend) repeated.
	ResendOf string `json:"resendOf,omitempty"`

	// body is the event as sent, for a resend: shared by every attempt of a delivery.
	body []byte
	// signature is the webhook-signature sent; the other headers follow from the record
	// (withHeaders), so the log keeps one string per attempt for them.
	signature string
}

// withHeaders returns d with RequestHeaders filled in from what the record keeps.
func (d Delivery) withHeaders() Delivery {
	if d.signature == "" {
		return d
	}
	d.RequestHeaders = map[string]string{
		"webhook-id": d.EventID, "webhook-timestamp": strconv.FormatInt(d.At.Unix(), 10),
		"webhook-signature": d.signature, "content-type": "application/json", "user-agent": userAgent,
	}
	return d
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
func (d *Dispatcher) log(account string, rec Delivery) Delivery {
	switch {
	case rec.Dropped:
		rec.Outcome = OutcomeDropped
	case rec.Delivered:
		rec.Outcome = OutcomeDelivered
	default:
		rec.Outcome = OutcomeFailed
	}
	d.logMu.Lock()
	defer func() {
		d.logMu.Unlock()
		if h := d.onLog.Load(); h != nil && (h.wants == nil || h.wants()) {
			h.f(account, rec.withHeaders())
		}
	}()
	d.logSeq++
	rec.ID = "dlv_" + strconv.FormatUint(d.logSeq, 10)
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
	return rec
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
	var out []Delivery
	if l := d.logs[account]; l != nil && account != "" {
		out = l.ring.all()
	} else if account == "" {
		for _, l := range d.logs {
			out = append(out, l.ring.all()...)
		}
	}
	d.logMu.Unlock()
	if account == "" {
		slices.SortStableFunc(out, func(a, b Delivery) int { return a.At.Compare(b.At) })
	}
	for i := range out {
		out[i] = out[i].withHeaders()
	}
	return out
}

// OnLog makes f see every delivery record as it is logged, while wants reports true (at most
// one f; nil: none). f must not block.
func (d *Dispatcher) OnLog(f func(account string, rec Delivery), wants func() bool) {
	if f == nil {
		d.onLog.Store(nil)
		return
	}
	d.onLog.Store(&logHook{f: f, wants: wants})
}

// logHook is OnLog's f, and whether it wants records at all right now.
type logHook struct {
	f     func(account string, rec Delivery)
	wants func() bool
}

// ErrNoDelivery, ErrEndpointGone and ErrNotResendable are Resend's refusals.
var (
	ErrNoDelivery    = errors.New("webhook: no such delivery")
	ErrEndpointGone  = errors.New("webhook: the delivery's endpoint was deleted or is disabled")
	ErrNotResendable = errors.New("webhook: the delivery was dropped before it reached an endpoint")
)

// Resend makes a new attempt now of the event of the delivery record id to its endpoint, on
// the caller's goroutine (like Test: outside the queues, no retry scheduled; the pending retries
// of the delivery stay as they were), logs it with ResendOf set, and returns it. account ("" =
// any) must own the record.
func (d *Dispatcher) Resend(ctx context.Context, account, id string) (Delivery, error) {
	d.logMu.Lock()
	var orig Delivery
	found, attempts := false, 0
	for acct, l := range d.logs {
		if account != "" && acct != account {
			continue
		}
		for _, r := range l.ring.all() {
			if r.ID == id {
				orig, found, account = r, true, acct
			}
		}
	}
	if found {
		for _, r := range d.logs[account].ring.all() {
			if r.EventID == orig.EventID && r.EndpointID == orig.EndpointID {
				attempts = max(attempts, r.Attempt)
			}
		}
	}
	d.logMu.Unlock()
	if !found {
		return Delivery{}, ErrNoDelivery
	}
	if orig.EndpointID == "" || orig.body == nil {
		return Delivery{}, ErrNotResendable
	}
	a, ok := d.store.LookupAccount(account)
	if !ok {
		return Delivery{}, ErrNoDelivery
	}
	t, ok := a.WebhookTarget(orig.EndpointID)
	if !ok || !t.Enabled {
		return Delivery{}, ErrEndpointGone
	}
	rec, _ := d.attempt(ctx, a, t, orig.EventID, orig.EventType, orig.body, attempts+1)
	rec.ResendOf = orig.ID
	return d.log(account, rec).withHeaders(), nil
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
