package clock

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRealByDefault(t *testing.T) {
	t.Parallel()
	c := New()
	before := time.Now().UTC()
	now := c.Now()
	after := time.Now().UTC()
	if now.Before(before) || now.After(after) || now.Location() != time.UTC || c.Frozen() {
		t.Fatalf("Now %v not within [%v, %v] in UTC, or frozen %t", now, before, after, c.Frozen())
	}
}

// Each control moves the clock as documented; every move runs the OnMove callbacks once.
func TestControls(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 14, 3, 0, 0, time.FixedZone("x", 3600))
	for _, tc := range []struct {
		name   string
		move   func(c *Clock)
		frozen bool
		// want is the time the clock reads after move, or zero for "real time plus offset".
		want   time.Time
		offset time.Duration
	}{
		{"set freezes, in UTC", func(c *Clock) { c.Set(at) }, true, at.UTC(), 0},
		{"advance a frozen clock", func(c *Clock) { c.Set(at); c.Advance(90 * time.Minute) }, true, at.UTC().Add(90 * time.Minute), 0},
		{"advance a running clock", func(c *Clock) { c.Advance(48 * time.Hour) }, false, time.Time{}, 48 * time.Hour},
		{"real after set", func(c *Clock) { c.Set(at); c.Real() }, false, time.Time{}, 0},
		{"real drops the offset", func(c *Clock) { c.Advance(time.Hour); c.Real() }, false, time.Time{}, 0},
		{"set after advance", func(c *Clock) { c.Advance(time.Hour); c.Set(at) }, true, at.UTC(), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := New()
			var moves atomic.Int32
			c.OnMove(func() { moves.Add(1) })
			tc.move(c)
			before := time.Now().UTC().Add(tc.offset)
			now := c.Now()
			after := time.Now().UTC().Add(tc.offset)
			if c.Frozen() != tc.frozen {
				t.Errorf("frozen %t, want %t", c.Frozen(), tc.frozen)
			}
			switch {
			case !tc.want.IsZero() && !now.Equal(tc.want):
				t.Errorf("Now %v, want %v", now, tc.want)
			case tc.want.IsZero() && (now.Before(before) || now.After(after)):
				t.Errorf("Now %v not within [%v, %v]", now, before, after)
			}
			if now.Location() != time.UTC {
				t.Errorf("Now in %v, want UTC", now.Location())
			}
			if got, want := int(moves.Load()), moveCount(tc.name); got != want {
				t.Errorf("%d OnMove calls, want %d", got, want)
			}
		})
	}
}

// moveCount is how many controls each case of TestControls calls.
func moveCount(name string) int {
	if name == "set freezes, in UTC" || name == "advance a running clock" {
		return 1
	}
	return 2
}

// The clock is safe for concurrent use (run with -race).
func TestConcurrent(t *testing.T) {
	t.Parallel()
	c := New()
	c.OnMove(func() {})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 100 {
				switch i % 4 {
				case 0:
					c.Advance(time.Second)
				case 1:
					c.Set(time.Unix(int64(i), 0))
				case 2:
					_ = c.Now()
				default:
					_ = c.Frozen()
				}
			}
		})
	}
	wg.Wait()
}

// At derives the clock's time from a real instant: the frozen instant, or the instant plus the
// clock's offset, in UTC; it agrees with Now.
func TestAt(t *testing.T) {
	t.Parallel()
	c := New()
	real := time.Date(2026, 11, 25, 12, 0, 0, 0, time.FixedZone("X", 3600))
	if got := c.At(real); !got.Equal(real) || got.Location() != time.UTC {
		t.Errorf("real clock: At = %v", got)
	}
	c.Advance(90 * time.Minute)
	if got, want := c.At(real), real.Add(90*time.Minute).UTC(); !got.Equal(want) {
		t.Errorf("advanced: At = %v, want %v", got, want)
	}
	if d := c.Now().Sub(c.At(time.Now())); d < -time.Second || d > time.Second {
		t.Errorf("At(now) is %v from Now", d)
	}
	frozen := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	c.Set(frozen)
	if got := c.At(real); !got.Equal(frozen) {
		t.Errorf("frozen: At = %v, want %v", got, frozen)
	}
	c.Advance(time.Second)
	if got := c.At(real); !got.Equal(frozen.Add(time.Second)) {
		t.Errorf("frozen and advanced: At = %v", got)
	}
	c.Real()
	if got := c.At(real); !got.Equal(real) {
		t.Errorf("back to real: At = %v", got)
	}
}
