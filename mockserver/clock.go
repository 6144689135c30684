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
//
// Naming an account gives it a clock of its own, which later SetTime("") calls leave alone (it
// was set on purpose), while AdvanceTime("") moves it too, by the same amount; RealTime(account)
// makes it follow the server-wide clock again.
func (s *Server) SetTime(account string, t time.Time) {
	s.clockFor(account, true).Set(t)
	s.clockChanged(account)
}

// AdvanceTime moves account's clock forward by d; work that falls due (webhook retries) runs.
// Account "" moves the server-wide clock and every account's clock of its own (one that SetTime
// or AdvanceTime naming the account gave it), each by d: moving the server clock moves every
// account, whether it follows the server's time or a time set for it.
func (s *Server) AdvanceTime(account string, d time.Duration) {
	if account != "" {
		s.clockFor(account, true).Advance(d)
		s.clockChanged(account)
		return
	}
	s.clock.Advance(d)
	s.clockChanged("")
	for _, a := range s.store.Accounts() {
		if c := a.Clock(); c != s.clock {
			c.Advance(d)
			s.clockChanged(a.ID)
		}
	}
}

// RealTime returns the server-wide clock (account "") to real time, or makes account follow
// the server-wide clock again, dropping its clock of its own.
func (s *Server) RealTime(account string) {
	if account == "" {
		s.clock.Real()
	} else {
		s.store.Account(account).SetClock(nil)
		s.hooks.Poke()
	}
	s.clockChanged(account)
}
