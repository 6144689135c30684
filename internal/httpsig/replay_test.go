package httpsig

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestReplayCache(t *testing.T) {
	t.Parallel()
	c := NewReplayCache(600 * time.Second)
	t0 := time.Unix(1763820180, 0)
	steps := []struct {
		nonce string
		at    time.Duration
		want  bool
	}{
		{"n1", 0, false},
		{"n1", 0, true},
		{"n2", time.Second, false},
		{"n1", 599 * time.Second, true},
		{"n1", 600 * time.Second, false}, // window elapsed: recorded afresh
		{"n1", 601 * time.Second, true},
		{"n2", 601 * time.Second, false},
	}
	for i, s := range steps {
		if got := c.Seen(s.nonce, t0.Add(s.at)); got != s.want {
			t.Fatalf("step %d: Seen(%s, +%v) = %v, want %v", i, s.nonce, s.at, got, s.want)
		}
	}
	if n := c.Len(); n != 2 {
		t.Fatalf("Len = %d, want 2", n)
	}
	// Everything expires and is swept on the next call.
	c.Seen("n3", t0.Add(2000*time.Second))
	if n := c.Len(); n != 1 {
		t.Fatalf("Len after expiry = %d, want 1", n)
	}
}

// TestReplayCacheBounded checks that memory stays proportional to the live
// window under a steady stream of unique nonces.
func TestReplayCacheBounded(t *testing.T) {
	t.Parallel()
	c := NewReplayCache(10 * time.Second)
	t0 := time.Unix(0, 0)
	for i := range 100000 {
		now := t0.Add(time.Duration(i) * 10 * time.Millisecond) // 100 per second
		if c.Seen(fmt.Sprint(i), now) {
			t.Fatalf("fresh nonce %d reported as seen", i)
		}
	}
	if n := c.Len(); n > 1001 {
		t.Fatalf("Len = %d, want ≤ 1001", n)
	}
	c.mu.Lock()
	q := len(c.queue) - c.head
	c.mu.Unlock()
	if q > 1001 || cap(c.queue) > 8192 {
		t.Fatalf("queue live %d cap %d", q, cap(c.queue))
	}
}

func TestReplayCacheFullFailsClosed(t *testing.T) {
	t.Parallel()
	c := NewReplayCache(time.Minute)
	c.capacity = 3
	now := time.Unix(0, 0)
	for _, n := range []string{"a", "b", "c"} {
		if c.Seen(n, now) {
			t.Fatal(n)
		}
	}
	if !c.Seen("d", now) {
		t.Fatal("full cache admitted a new nonce")
	}
	if c.Seen("d", now.Add(time.Minute)) {
		t.Fatal("cache did not free expired entries")
	}
}

func TestReplayCacheConcurrent(t *testing.T) {
	t.Parallel()
	c := NewReplayCache(time.Minute)
	now := time.Unix(0, 0)
	var fresh atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range 500 {
				if !c.Seen(fmt.Sprint(i), now) {
					fresh.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if fresh.Load() != 500 {
		t.Fatalf("%d nonces accepted, want exactly 500", fresh.Load())
	}
}

func TestReplayCacheSweepAndCapacity(t *testing.T) {
	t.Parallel()
	c := NewBoundedReplayCache(time.Minute, 3)
	t0 := time.Unix(1763820180, 0)
	for i := range 3 {
		if c.Seen(fmt.Sprint(i), t0) {
			t.Fatalf("fresh nonce %d", i)
		}
	}
	if !c.Seen("new", t0) {
		t.Fatal("a full cache admitted a fresh nonce")
	}
	if n := c.Sweep(t0.Add(59 * time.Second)); n != 3 {
		t.Fatalf("Sweep within the window left %d", n)
	}
	if n := c.Sweep(t0.Add(time.Minute)); n != 0 {
		t.Fatalf("Sweep after the window left %d", n)
	}
	c.mu.Lock()
	q := len(c.queue)
	c.mu.Unlock()
	if q != 0 {
		t.Fatalf("an empty cache keeps a queue of %d", q)
	}
	if c.Seen("new", t0.Add(time.Minute)) {
		t.Fatal("after the sweep, a fresh nonce is refused")
	}
}
