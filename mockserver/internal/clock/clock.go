// Package clock is the one source of time for the mock server: real by default, frozen or
// moved by the admin surface so that every time-based rule follows it.
package clock

import (
	"sync"
	"time"
)

// Clock tells the time. The zero value is not usable; use New.
type Clock struct {
	mu     sync.RWMutex
	frozen bool
	at     time.Time     // the frozen instant
	offset time.Duration // added to real time when not frozen
	moved  []func()      // called after every change (e.g. to run webhook retries that fell due)
}

// New returns a clock at real time.
func New() *Clock { return &Clock{} }

// Now returns the clock's current time in UTC.
func (c *Clock) Now() time.Time {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.frozen {
		return c.at
	}
	return time.Now().UTC().Add(c.offset)
}

// Frozen reports whether the clock is frozen.
func (c *Clock) Frozen() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.frozen
}

// Set freezes the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.frozen, c.at, c.offset = true, t.UTC(), 0
	c.mu.Unlock()
	c.notify()
}

// Advance moves the clock forward by d (frozen or not).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	if c.frozen {
		c.at = c.at.Add(d)
	} else {
		c.offset += d
	}
	c.mu.Unlock()
	c.notify()
}

// Real returns the clock to real time.
func (c *Clock) Real() {
	c.mu.Lock()
	c.frozen, c.offset = false, 0
	c.mu.Unlock()
	c.notify()
}

// OnMove registers f to be called after every Set, Advance or Real.
func (c *Clock) OnMove(f func()) {
	c.mu.Lock()
	c.moved = append(c.moved, f)
	c.mu.Unlock()
}

func (c *Clock) notify() {
	c.mu.RLock()
	fs := append([]func(){}, c.moved...)
	c.mu.RUnlock()
	for _, f := range fs {
		f()
	}
}

// State is a clock's setting, as a data directory keeps it: frozen at At, or real time plus
// Offset.
type State struct {
	Frozen bool          `json:"frozen"`
	At     time.Time     `json:"at,omitzero"`
	Offset time.Duration `json:"offset,omitempty"`
}

// State returns the clock's setting.
func (c *Clock) State() State {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return State{Frozen: c.frozen, At: c.at, Offset: c.offset}
}

// Restore sets the clock to a setting State returned (the functions registered with OnMove run,
// as after any change).
func (c *Clock) Restore(s State) {
	c.mu.Lock()
	c.frozen, c.at, c.offset = s.Frozen, s.At.UTC(), s.Offset
	if !s.Frozen {
		c.at = time.Time{}
	}
	c.mu.Unlock()
	c.notify()
}
