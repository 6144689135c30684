// Package clock is the one source of time for the mock server: real by default, frozen or
// moved by the admin surface so that every time-based rule follows it.
package clock

import (
	"sync"
	"sync/atomic"
	"time"
)

// Clock tells the time. The zero value is not usable; use New.
//
// Its setting is an immutable snapshot behind an atomic pointer: read without a lock, replaced
// whole by a change.
type Clock struct {
	setting atomic.Pointer[setting]
	mu      sync.Mutex // serialises changes (and guards moved)
	moved   []func()   // called after every change (e.g. to run webhook retries that fell due)
}

// setting is a clock's state: frozen at at, or real time plus offset. Never changed once
// published.
type setting struct {
	frozen bool
	at     time.Time     // the frozen instant
	offset time.Duration // added to real time when not frozen
}

// New returns a clock at real time.
func New() *Clock {
	c := &Clock{}
	c.setting.Store(&setting{})
	return c
}

// Now returns the clock's current time in UTC.
func (c *Clock) Now() time.Time {
	s := c.setting.Load()
	if s.frozen {
		return s.at
	}
	return time.Now().UTC().Add(s.offset)
}

// At returns the clock's time at the real instant real (UTC): the frozen instant, or real plus
// the offset. A request reads the real time once and derives every clock's time from it.
func (c *Clock) At(real time.Time) time.Time {
	s := c.setting.Load()
	if s.frozen {
		return s.at
	}
	return real.UTC().Add(s.offset)
}

// Frozen reports whether the clock is frozen.
func (c *Clock) Frozen() bool { return c.setting.Load().frozen }

// Set freezes the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.setting.Store(&setting{frozen: true, at: t.UTC()})
	c.mu.Unlock()
	c.notify()
}

// Advance moves the clock forward by d (frozen or not).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	s := *c.setting.Load()
	if s.frozen {
		s.at = s.at.Add(d)
	} else {
		s.offset += d
	}
	c.setting.Store(&s)
	c.mu.Unlock()
	c.notify()
}

// Real returns the clock to real time.
func (c *Clock) Real() {
	c.mu.Lock()
	c.setting.Store(&setting{})
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
	c.mu.Lock()
	fs := append([]func(){}, c.moved...)
	c.mu.Unlock()
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
	s := c.setting.Load()
	return State{Frozen: s.frozen, At: s.at, Offset: s.offset}
}

// Restore sets the clock to a setting State returned (the functions registered with OnMove run,
// as after any change).
func (c *Clock) Restore(s State) {
	c.mu.Lock()
	if s.Frozen {
		c.setting.Store(&setting{frozen: true, at: s.At.UTC(), offset: s.Offset})
	} else {
		c.setting.Store(&setting{offset: s.Offset})
	}
	c.mu.Unlock()
	c.notify()
}
