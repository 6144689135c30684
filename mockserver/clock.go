package mockserver

import (
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/clock"
)

// clockFor returns the clock that account follows; account "" is the server-wide clock. Asking
// for an account's clock with own=true gives it a clock of its own first (starting at the time
// it currently sees), so moving it disturbs no other account.
func (s *Server) clockFor(account string, own bool) *clock.Clock {
	if account == "" {
		return s.clock
	}
	a := s.store.Account(account)
	c := a.Clock()
	if own && c == s.clock {
		c = clock.New()
		c.Set(s.clock.Now())
		if !s.clock.Frozen() {
			c.Real()
			c.Advance(s.clock.Now().Sub(time.Now().UTC()))
		}
		c.OnMove(s.hooks.Poke) // retries that fall due on this clock run when it moves
		a.SetClock(c)
	}
	return c
}

// Now returns the time as account sees it ("" for the server-wide clock).
func (s *Server) Now(account string) time.Time { return s.clockFor(account, false).Now() }

// Frozen reports whether account's clock ("" for the server's) is frozen.
func (s *Server) Frozen(account string) bool { return s.clockFor(account, false).Frozen() }

// SetTime freezes account's clock ("" for the server-wide clock) at t. Every time-based rule
// follows: timestamps, expiry, rate limits, no-show, reports, signatures, retries.
func (s *Server) SetTime(account string, t time.Time) {
	s.clockFor(account, true).Set(t)
	s.clockChanged(account)
}

// AdvanceTime moves account's clock ("" for the server-wide clock) forward by d; work that
// falls due (webhook retries) runs.
func (s *Server) AdvanceTime(account string, d time.Duration) {
	s.clockFor(account, true).Advance(d)
	s.clockChanged(account)
}

// RealTime returns account's clock ("" for the server-wide clock) to real time.
func (s *Server) RealTime(account string) {
	if account == "" {
		s.clock.Real()
	} else {
		s.store.Account(account).SetClock(nil)
		s.hooks.Poke()
	}
	s.clockChanged(account)
}
