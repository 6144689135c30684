package store

import "time"

// Event is a domain event: a state change, ready for webhook delivery. Data carries ids,
// statuses, amounts and counts only, never PHI.
type Event struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	CreatedAt time.Time `json:"createdAt"`
	Data      any       `json:"data"`
}

// emit records an event; the caller holds a.mu.
func (a *Account) emit(typ string, data any) {
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
