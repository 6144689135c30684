package store

import "github.com/medspa/medspa-go/webhooks"

// Event is a domain event: a state change, ready for webhook delivery. Its data carries ids,
// statuses, amounts and counts only, never PHI (the webhooks data types have no PHI fields).
type Event = webhooks.Event

// EventLogSize is how many of the newest domain events an account keeps at least (Events, and
// snapshots); it keeps at most twice as many. Nothing in the server reads older ones: webhook
// deliveries and recorders take events from the hook as they happen, so memory stays bounded
// under load.
const EventLogSize = 10_000

// logEvent keeps a committed event and hands it to the event hook; the caller holds a.mu. The
// hook must not block.
func (a *Account) logEvent(e Event) {
	a.keepEvent(e)
	a.store.mu.RLock()
	f := a.store.onEvent
	a.store.mu.RUnlock()
	if f != nil {
		f(a.self, e) // the account's own handle: a hook may keep it
	}
}

// Events returns the account's event log (at least the newest EventLogSize events), oldest first.
func (a *Account) Events() []Event {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return append([]Event(nil), a.data.Events...)
}

// keepEvent adds e to the account's event log, keeping it bounded; the caller holds a.mu.
func (a *Account) keepEvent(e Event) {
	if len(a.data.Events) >= 2*EventLogSize { // amortized: one copy per EventLogSize events
		a.data.Events = append(make([]Event, 0, 2*EventLogSize), a.data.Events[len(a.data.Events)-EventLogSize+1:]...)
	}
	a.data.Events = append(a.data.Events, e)
}

// Redeliver hands events the account committed before to the event hook again: a server that
// restarts after a crash delivers what it may not have delivered (at least once).
func (a *Account) Redeliver(events []Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.store.mu.RLock()
	f := a.store.onEvent
	a.store.mu.RUnlock()
	if f == nil {
		return
	}
	for _, e := range events {
		f(a.self, e)
	}
}
