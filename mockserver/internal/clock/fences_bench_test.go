package clock

import (
	"sync"
	"testing"
	"time"
)

// The benchmark that keeps this package's fenced optimisation (BENCHMARKS.md "Fenced
// optimisations"): the optimisation ("fast") and the plain code it replaces ("plain") in one run.

// plainClock is Clock as it was: its setting behind a read-write lock.
type plainClock struct {
	mu     sync.RWMutex
	frozen bool
	at     time.Time
	offset time.Duration
}

func (c *plainClock) Now() time.Time {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.frozen {
		return c.at
	}
	return time.Now().UTC().Add(c.offset)
}

// BenchmarkFenceClockRead keeps Clock's atomic setting (clock.go): the time read from every core
// at once (each request reads its account's clock) versus behind a read lock, whose readers all
// write the lock's word. Both read the real time; At, which derives it from one read per
// request, is "at".
func BenchmarkFenceClockRead(b *testing.B) {
	c, p := New(), &plainClock{}
	c.Advance(time.Hour)
	p.offset = time.Hour
	b.Run("fast", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				_ = c.Now()
			}
		})
	})
	b.Run("at", func(b *testing.B) {
		real := time.Now()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				_ = c.At(real)
			}
		})
	})
	b.Run("plain", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				_ = p.Now()
			}
		})
	})
}
