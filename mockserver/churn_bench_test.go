package mockserver_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/medspa/medspa-go/mockserver"
)

// BenchmarkChurnFileSize measures the data directory's state files (BENCHMARKS.md
// "Durability"): with 1,000 patients, then after MEDSPA_CHURN patients (default 100,000) were
// created and deleted 1,000 at a time (an account reset, then 1,000 creates, by 16 clients),
// ending with 1,000 again; and after Close.
//
//	MEDSPA_CHURN=100000 go test ./mockserver -run '^$' -bench ChurnFileSize -benchtime 1x
func BenchmarkChurnFileSize(b *testing.B) {
	total := 100_000
	if v, err := strconv.Atoi(os.Getenv("MEDSPA_CHURN")); err == nil {
		total = v
	}
	for b.Loop() {
		dir := b.TempDir()
		srv, err := mockserver.New(mockserver.WithDataDir(dir))
		if err != nil {
			b.Fatal(err)
		}
		key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "custom", RatePerMinute: 1e9, Burst: 1e9, Scopes: []string{"*"}})
		if err != nil {
			b.Fatal(err)
		}
		var seq atomic.Int64
		fill := func() {
			var wg sync.WaitGroup
			for w := range 16 {
				wg.Go(func() {
					for i := w; i < 1000; i += 16 {
						durableCreate(b, srv, key.Key, seq.Add(1))
					}
				})
			}
			wg.Wait()
		}
		size := func() float64 {
			var n int64
			_ = filepath.WalkDir(filepath.Join(dir, "state"), func(_ string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					if fi, err := d.Info(); err == nil {
						n += fi.Size()
					}
				}
				return nil
			})
			return float64(n) / 1024
		}
		fill()
		alone := size()
		for done := 1000; done < total; done += 1000 {
			if err := srv.Reset(key.Account); err != nil {
				b.Fatal(err)
			}
			fill()
		}
		churned := size()
		if err := srv.Close(); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(alone, "KiB-1000")
		b.ReportMetric(churned, "KiB-churned")
		b.ReportMetric(size(), "KiB-closed")
		b.ReportMetric(churned/alone, "ratio")
	}
}
