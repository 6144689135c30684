package httpapi

import (
	"cmp"
	"net/netip"
	"sync"
	"time"
)

// Credential stuffing guard (docs/protocol.md §7): failed client authentications at /oauth per
// client address and tenant, counted per minute of real time.
const (
	stuffingLimit  = 20
	stuffingWindow = time.Minute
	// DefaultStuffingPairs bounds the (address, tenant) pairs counted in one minute: past it,
	// new pairs share one more counter (fail closed: once it is spent, every new pair waits for
	// the next minute), and pairs already counted keep theirs.
	DefaultStuffingPairs = 10_000
)

// stuffingKey is what the guard counts by: the caller's address and the tenant, the OAuth
// client the request presents when it is registered ("" for none or an unknown id, so that
// made-up ids share one counter).
type stuffingKey struct {
	addr   netip.Addr
	tenant string
}

// overflowKey counts the pairs past the bound.
var overflowKey = stuffingKey{tenant: "\x00overflow"}

// stuffingGuard counts failed client authentications at /oauth per address and tenant in the
// current minute of real time: a pair past the limit gets 429 until that minute is over. The
// count is on real time, not the admin clock, so a frozen clock does not keep a lockout forever,
// and the minute's map is dropped when the next minute begins, so it holds at most one minute
// of failures.
type stuffingGuard struct {
	mu       sync.Mutex
	now      func() time.Time // real time (tests replace it)
	limit    int              // pairs per minute (0: DefaultStuffingPairs)
	minute   time.Time        // the minute counted
	failures map[stuffingKey]int
}

// window returns the map of the minute of now, dropping an older one; the caller holds g.mu.
func (g *stuffingGuard) window(now time.Time) map[stuffingKey]int {
	if m := now.Truncate(stuffingWindow); !m.Equal(g.minute) || g.failures == nil {
		g.minute, g.failures = m, map[stuffingKey]int{}
	}
	return g.failures
}

// key is k, or the overflow key when k is new and the minute's map is full; the caller holds g.mu.
func (g *stuffingGuard) key(k stuffingKey) stuffingKey {
	if _, ok := g.failures[k]; !ok && len(g.failures) >= cmp.Or(g.limit, DefaultStuffingPairs) {
		return overflowKey
	}
	return k
}

func (g *stuffingGuard) clock() time.Time {
	if g.now != nil {
		return g.now()
	}
	return time.Now()
}

// blocked returns how long addr stays blocked for tenant (0: not blocked).
func (g *stuffingGuard) blocked(addr netip.Addr, tenant string) time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.clock()
	if g.window(now)[g.key(stuffingKey{addr, tenant})] < stuffingLimit {
		return 0
	}
	return g.minute.Add(stuffingWindow).Sub(now)
}

// fail counts a failed client authentication of addr for tenant.
func (g *stuffingGuard) fail(addr netip.Addr, tenant string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.window(g.clock())
	g.failures[g.key(stuffingKey{addr, tenant})]++
}

// sweep drops the counters of a minute that is over.
func (g *stuffingGuard) sweep() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.failures) > 0 {
		g.window(g.clock())
	}
}

// size is the number of pairs counted this minute (tests).
func (g *stuffingGuard) size() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.failures)
}
