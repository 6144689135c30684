package store

import "github.com/medspa/medspa-go/webhooks"

// Event is a domain event: a state change, ready for webhook delivery. Its data carries ids,
// statuses, amounts and counts only, never PHI (the webhooks data types have no PHI fields).
type Event = webhooks.Event

// emit records an event; the caller holds a.mu. The hook must not block.
func (a *Account) emit(typ webhooks.EventType, data webhooks.EventData) {
	e := Event{ID: a.newID("evt"), Type: typ, CreatedAt: a.Now(), Data: data}
	a.data.Events = append(a.data.Events, e)
	a.store.mu.RLock()
	f := a.store.onEvent
	a.store.mu.RUnlock()
	if f != nil {
		f(a, e)
	}
}

// Events returns the account's event log, oldest first.
func (a *Account) Events() []Event {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return append([]Event(nil), a.data.Events...)
}
