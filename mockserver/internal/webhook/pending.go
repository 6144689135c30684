package webhook

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/webhooks"
)

// Pending is one delivery waiting for an attempt, as ExportPending gives it and ImportPending
// takes it back: for restarts (pending retries survive; those due while the server was down run
// after start) and snapshots (docs/protocol.md §12, §13). It is plain JSON and holds no secret
// (the endpoint's is looked up at each attempt) and no PHI (events are thin, docs/protocol.md
// §9).
type Pending struct {
	EndpointID string             `json:"endpointId"`
	EventID    string             `json:"eventId"`
	EventType  webhooks.EventType `json:"eventType"`
	// Event is the event exactly as it is delivered: the signed body, the same on every attempt.
	Event json.RawMessage `json:"event"`
	// Attempt is the number of the next attempt, from 1.
	Attempt int `json:"attempt"`
	// NextAttemptAt is when the attempt falls due, on the account's clock.
	NextAttemptAt time.Time `json:"nextAttemptAt"`
}

// maxPendingEvent bounds the event body ImportPending accepts (thin events are far smaller).
const maxPendingEvent = 64 << 10

// ErrClosed is returned by ImportPending after Close.
var ErrClosed = errors.New("webhook: dispatcher closed")

// ExportPending returns the account's pending deliveries, oldest first: queued, scheduled for a
// retry, and in flight (as the attempt now running, which may yet succeed: delivery is at least
// once). Events not yet fanned out to endpoints are fanned out first. It asks the store for
// subscribers, so it must not be called under the account's lock.
func (d *Dispatcher) ExportPending(account string) []Pending {
	d.fanMu.Lock()
	defer d.fanMu.Unlock()
	d.mu.Lock()
	var batch []fanned
	if q := d.accounts[account]; q != nil {
		for _, e := range q.backlog {
			batch = append(batch, fanned{q, e})
		}
		q.backlog = nil // the loop finds it empty if it is still in d.backlogged
	}
	d.mu.Unlock()
	d.spread(batch)

	d.mu.Lock()
	var jobs []*job
	if q := d.accounts[account]; q != nil {
		for _, l := range q.lanes {
			for _, j := range l.running {
				if j.epoch == l.epoch { // an attempt of before ImportPending is not retried
					jobs = append(jobs, j)
				}
			}
			jobs = append(append(jobs, l.ready.jobs...), l.later.jobs...)
		}
	}
	d.mu.Unlock()
	slices.SortFunc(jobs, func(a, b *job) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]Pending, len(jobs))
	for i, j := range jobs {
		out[i] = Pending{
			EndpointID: j.endpoint, EventID: j.eventID, EventType: j.typ, Event: slices.Clone(j.body),
			Attempt: j.attempt, NextAttemptAt: j.due,
		}
	}
	return out
}

// ImportPending replaces the account's pending deliveries with p (what ExportPending gave,
// in its order): those already due on the account's clock are attempted at once, the others
// when they fall due. What was pending before is dropped unlogged, and attempts in flight are
// not retried, as when a snapshot replaces the account's state. Every item is checked first:
// on an invalid one nothing changes. Queue bounds apply as to new deliveries.
func (d *Dispatcher) ImportPending(a *store.Account, p []Pending) error {
	for i := range p {
		if why := p[i].invalid(); why != "" {
			return fmt.Errorf("webhook: pending delivery %d: %s", i, why)
		}
	}
	now := a.Clock().Now()
	d.fanMu.Lock()
	defer d.fanMu.Unlock()
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return ErrClosed
	}
	for i := range p {
		if l := d.lanes[p[i].EndpointID]; l != nil && l.owner.acct.ID != a.ID {
			d.mu.Unlock()
			return fmt.Errorf("webhook: pending delivery %d: the endpoint belongs to another account", i)
		}
	}
	q := d.accountLocked(a)
	clear(q.backlog)
	q.backlog = nil
	for _, l := range q.lanes {
		l.clear()
		delete(d.retrying, l)
	}
	var dropped []*job
	for _, x := range p {
		d.seq++
		l := d.laneLocked(q, x.EndpointID)
		j := newJob(d.seq, x.EndpointID, x.EventID, x.EventType, slices.Clone(x.Event), x.Attempt, x.NextAttemptAt)
		dropped = append(dropped, d.addLocked(l, j, now)...)
	}
	for _, l := range q.lanes {
		d.releaseLocked(l)
	}
	d.releaseAccountLocked(q)
	d.mu.Unlock()
	d.logDropped(a, dropped)
	if len(p) > 0 {
		d.startLoop()
		d.Poke()
	}
	return nil
}

// invalid says what is wrong with p, or "".
func (p *Pending) invalid() string {
	switch {
	case !wire.IsID(p.EndpointID, "whk"):
		return "endpointId is not a webhook id"
	case !wire.IsID(p.EventID, "evt"):
		return "eventId is not an event id"
	case !p.EventType.Valid() || p.EventType == webhooks.EventAll || p.EventType == webhooks.EventWebhookTest:
		return "eventType is not a deliverable event type"
	case p.Attempt < 1 || p.Attempt > len(schedule)+1:
		return fmt.Sprintf("attempt must be 1–%d", len(schedule)+1)
	case p.NextAttemptAt.IsZero():
		return "nextAttemptAt is missing"
	case len(p.Event) == 0 || len(p.Event) > maxPendingEvent:
		return "event is missing or too large"
	}
	var e webhooks.Event
	if err := json.Unmarshal(p.Event, &e); err != nil {
		return "event is not a valid event"
	}
	if e.ID != p.EventID || e.Type != p.EventType {
		return "event does not match eventId and eventType"
	}
	return ""
}
