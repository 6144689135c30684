package httpapi

import (
	"net/netip"
	"sync"
	"time"
)

// Credential stuffing guard (docs/protocol.md §7): failed client authentications per address in a fixed window.
const (
	stuffingLimit  = 20
	stuffingWindow = time.Minute
)

// stuffingGuard counts failed client authentications at /oauth per caller address; an address
// past the limit gets 429 until its window ends.
type stuffingGuard struct {
	mu       sync.Mutex
	failures map[netip.Addr]*failWindow
}

type failWindow struct {
	start time.Time
	n     int
}

// blocked returns how long addr stays blocked (0: not blocked).
func (g *stuffingGuard) blocked(addr netip.Addr, now time.Time) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	w := g.failures[addr]
	if w == nil || w.n < stuffingLimit {
		return 0
	}
	if left := w.start.Add(stuffingWindow).Sub(now); left > 0 {
		return left
	}
	return 0
}

// fail counts a failed client authentication of addr.
func (g *stuffingGuard) fail(addr netip.Addr, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failures == nil {
		g.failures = map[netip.Addr]*failWindow{}
	}
	if len(g.failures) > 10000 { // bound memory: forget windows that are over
		for k, w := range g.failures {
			if !now.Before(w.start.Add(stuffingWindow)) {
				delete(g.failures, k)
			}
		}
	}
	w := g.failures[addr]
	if w == nil || !now.Before(w.start.Add(stuffingWindow)) || now.Before(w.start) {
		w = &failWindow{start: now}
		g.failures[addr] = w
	}
	w.n++
}
