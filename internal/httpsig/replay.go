package httpsig

import (
	"strings"
	"sync"
	"time"
)

// DefaultReplayCapacity bounds a ReplayCache's size: far above the number of
// authenticated requests a mock server sees within one window.
const DefaultReplayCapacity = 1 << 20

// ReplayCache remembers request nonces for a time window so that a signed
// request cannot be replayed. Time comes from the caller (tests and the
// mock's fake clock drive it). Memory is bounded: expired entries are swept
// in insertion order, and when the cache is full of live entries Seen fails
// closed (reports a replay). Feed it only nonces of requests whose signature
// verified, so unauthenticated traffic cannot fill it. It is safe for
// concurrent use.
type ReplayCache struct {
	window   time.Duration
	capacity int

	mu    sync.Mutex
	seen  map[string]time.Time // nonce → time recorded
	queue []queued             // insertion order, for sweeping
	head  int                  // first live index of queue
}

type queued struct {
	nonce string
	at    time.Time
}

// NewReplayCache returns a cache that remembers nonces for window, holding
// at most DefaultReplayCapacity live entries.
func NewReplayCache(window time.Duration) *ReplayCache {
	return NewBoundedReplayCache(window, DefaultReplayCapacity)
}

// NewBoundedReplayCache returns a cache that remembers nonces for window,
// holding at most capacity live entries (<= 0: DefaultReplayCapacity); past
// it, Seen fails closed.
func NewBoundedReplayCache(window time.Duration, capacity int) *ReplayCache {
	if capacity <= 0 {
		capacity = DefaultReplayCapacity
	}
	return &ReplayCache{window: window, capacity: capacity, seen: make(map[string]time.Time)}
}

// Sweep drops the nonces whose window is over at now, as Seen does before
// it records, and returns how many nonces are left. Callers that may stop
// calling Seen (a credential no longer used) sweep so memory is given back.
func (c *ReplayCache) Sweep(now time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep(now)
	if len(c.seen) == 0 {
		c.queue, c.head = nil, 0
	}
	return len(c.seen)
}

// Seen reports whether nonce was recorded within the window before now; if
// not, it records nonce at now and reports false. A full cache reports true,
// because admitting a possible replay is worse than refusing a request.
func (c *ReplayCache) Seen(nonce string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep(now)
	if at, ok := c.seen[nonce]; ok && now.Sub(at) < c.window {
		return true
	}
	if len(c.seen) >= c.capacity {
		return true
	}
	nonce = strings.Clone(nonce) // not a piece of the request's header, which it would keep
	c.seen[nonce] = now
	c.queue = append(c.queue, queued{nonce, now})
	return false
}

// Len reports the number of nonces currently held.
func (c *ReplayCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

// sweep drops expired entries from the front of the queue. Entries are
// queued in call order; if the caller's clock steps backwards the queue is
// not perfectly sorted and sweeping stops early, which only delays cleanup.
func (c *ReplayCache) sweep(now time.Time) {
	for c.head < len(c.queue) {
		q := c.queue[c.head]
		if now.Sub(q.at) < c.window {
			break
		}
		// The nonce may have been re-recorded later; only the entry this
		// queue slot created is removed.
		if at, ok := c.seen[q.nonce]; ok && at.Equal(q.at) {
			delete(c.seen, q.nonce)
		}
		c.queue[c.head] = queued{}
		c.head++
	}
	// Compact once the dead prefix dominates, keeping amortized O(1) cost
	// and memory proportional to live entries.
	if c.head > 1024 && c.head*2 > len(c.queue) {
		c.queue = append(c.queue[:0:0], c.queue[c.head:]...)
		c.head = 0
	}
}
