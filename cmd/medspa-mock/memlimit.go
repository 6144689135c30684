package main

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// defaultMemoryLimitMiB is -memory-limit's default. What the server keeps is bounded (about
// 70 MB under the memory benchmark's load, RELIABILITY.md "Bounds"); without a limit the garbage
// collector lets the heap grow to twice what is live before it collects, so resident memory would
// sit near 150 MB. The limit makes it collect sooner instead (BENCHMARKS.md, "Memory under
// sustained load").
const defaultMemoryLimitMiB = 128

// gcPercentUnderLimit is the collector's pace while the memory limit holds and GOGC is not set:
// the heap may grow to five times what is live (Go's default: twice) before a collection, and
// never past the limit. A server with a small live heap answering many requests collects a
// quarter as often; BENCHMARKS.md ("Throughput from outside") has what that is worth.
const gcPercentUnderLimit = 400

// setMemoryLimit sets the runtime's soft memory limit to mib MiB, unless GOMEMLIMIT set one (the
// runtime read it at start) or mib <= 0, and keeps it above what the data needs (limitFor)
// until stop is called. Under that limit the collector runs at gcPercentUnderLimit, unless GOGC
// says otherwise.
func setMemoryLimit(mib int) (stop func()) {
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok || mib <= 0 {
		return func() {}
	}
	base := int64(mib) << 20
	debug.SetMemoryLimit(base)
	if _, ok := os.LookupEnv("GOGC"); !ok {
		debug.SetGCPercent(gcPercentUnderLimit)
	}
	done := make(chan struct{})
	go followLiveHeap(base, time.Second, done)
	return func() { close(done) }
}

// limitFor is the soft memory limit for a live heap (what the last collection kept): the
// configured base, or, when the data the server holds (an account seeded with 1,000,000
// patients: ~300 MB) outgrows it, that heap plus a quarter and 16 MiB. A limit below the live
// heap cannot be met: the collector would run back to back (up to half the CPU) while every
// request waits, and resident memory would not shrink. The limit bounds the garbage, not the
// data.
func limitFor(base, live int64) int64 { return max(base, live+live/4+16<<20) }

// followLiveHeap sets the limit from the live heap every interval until done is closed.
func followLiveHeap(base int64, every time.Duration, done <-chan struct{}) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	t := time.NewTicker(every)
	defer t.Stop()
	last := base
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return // a runtime without the metric: keep the base
		}
		if limit := limitFor(base, int64(sample[0].Value.Uint64())); limit != last {
			debug.SetMemoryLimit(limit)
			last = limit
		}
	}
}
