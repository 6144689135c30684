package durable_test

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/medspa/medspa-go/mockserver/internal/durable"
)

// benchDir is where the benchmarks put their logs: DURABLE_BENCH_DIR, else the test's temporary
// directory. fsync figures mean something only on a real disk (not tmpfs).
func benchDir(b *testing.B) string {
	if d := os.Getenv("DURABLE_BENCH_DIR"); d != "" {
		dir, err := os.MkdirTemp(d, "bench")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	return b.TempDir()
}

// BenchmarkAppendFsync is appends of 128-byte records with an fsync before each returns, by 1, 8
// and 64 concurrent appenders. appends/s at 64 over appends/s at 1 is the group-commit gain.
func BenchmarkAppendFsync(b *testing.B) {
	rec := bytes.Repeat([]byte("r"), 128)
	for _, appenders := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("appenders=%d", appenders), func(b *testing.B) {
			l, err := durable.Open(benchDir(b), durable.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for range appenders {
				wg.Go(func() {
					for next.Add(1) <= int64(b.N) {
						if err := l.Append(b.Context(), rec); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			st := l.Stats()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "appends/s")
			b.ReportMetric(float64(st.Syncs)/float64(b.N), "fsyncs/append")
		})
	}
}

// BenchmarkReplay replays a log of 64 MiB of 1 KiB records (in 1 MiB frames). The MB/s column is
// the replay rate (page cache warm: the log was just written).
func BenchmarkReplay(b *testing.B) {
	l, err := durable.Open(benchDir(b), durable.Options{Sync: durable.SyncNone})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	rec := bytes.Repeat([]byte("r"), 1024)
	batch := make([][]byte, 1000)
	for i := range batch {
		batch[i] = rec
	}
	const total = 64 << 20
	for written := 0; written < total; written += len(batch) * len(rec) {
		if err := l.AppendBatch(b.Context(), batch); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if err := l.Replay(func(rec []byte) error {
			n += len(rec)
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		if n < total {
			b.Fatalf("replayed %d bytes, want %d", n, total)
		}
	}
}
