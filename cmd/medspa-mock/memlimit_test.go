package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"
	"time"
)

func TestLimitFor(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	for _, tc := range []struct{ base, live, want int64 }{
		{128 * mib, 0, 128 * mib},
		{128 * mib, 73 * mib, 128 * mib},                  // the memory benchmark's live heap: the base holds
		{128 * mib, 112 * mib, 156 * mib},                 // near the base: a quarter and 16 MiB above the data
		{128 * mib, 320 * mib, 416 * mib},                 // 1,000,000 patients
		{math.MaxInt64 / 2, 320 * mib, math.MaxInt64 / 2}, // a huge base stays
	} {
		if got := limitFor(tc.base, tc.live); got != tc.want {
			t.Errorf("limitFor(%d MiB, %d MiB) = %d MiB, want %d MiB", tc.base/mib, tc.live/mib, got/mib, tc.want/mib)
		}
	}
}

// The limit follows the live heap up from a base below it, and the follower stops when told.
// Not parallel: it sets the process's memory limit (and puts the one it found back).
func TestFollowLiveHeapRaisesTheLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(old)
	debug.SetMemoryLimit(1)
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		followLiveHeap(1, time.Millisecond, done)
	}()
	for i := 0; debug.SetMemoryLimit(-1) < 16<<20; i++ {
		if i == 5000 {
			t.Fatalf("the limit stayed at %d bytes, below the live heap", debug.SetMemoryLimit(-1))
		}
		time.Sleep(time.Millisecond)
	}
	close(done)
	<-stopped
}

// Under the memory limit the collector runs at gcPercentUnderLimit, unless GOGC or GOMEMLIMIT
// says otherwise; without a limit it keeps the runtime's pace. Not parallel: it sets the
// process's collector settings (and puts back the ones it found).
func TestGCPaceFollowsTheLimit(t *testing.T) {
	oldLimit, oldPercent := debug.SetMemoryLimit(-1), debug.SetGCPercent(100)
	defer func() { debug.SetMemoryLimit(oldLimit); debug.SetGCPercent(oldPercent) }()
	for _, tc := range []struct {
		name    string
		env     map[string]string
		mib     int
		percent int
	}{
		{"limit", nil, 128, gcPercentUnderLimit},
		{"no limit", nil, 0, 100},
		{"GOGC set", map[string]string{"GOGC": "100"}, 128, 100},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, 128, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"GOGC", "GOMEMLIMIT"} {
				v, ok := tc.env[k]
				if !ok {
					t.Setenv(k, "") // restored after the subtest
					os.Unsetenv(k)
					continue
				}
				t.Setenv(k, v)
			}
			debug.SetGCPercent(100)
			setMemoryLimit(tc.mib)()
			if got := debug.SetGCPercent(100); got != tc.percent {
				t.Errorf("GC percent %d, want %d", got, tc.percent)
			}
		})
	}
}
