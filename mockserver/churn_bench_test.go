package mockserver_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/medspa/medspa-go/mockserver"
	bolt "go.etcd.io/bbolt"
)

// BenchmarkChurnFileSize measures the data directory's file (BENCHMARKS.md "Durability on bbolt") after
// Close: with 1,000 patients created, and after MEDSPA_CHURN patients (default 100,000) were
// created and deleted 1,000 at a time (an account reset, then 1,000 creates, by 16 clients),
// ending with 1,000 again. It reports the whole file (data.db, the audit events included: they
// are never dropped) and the pages the state holds in it (every bucket but the audit logs').
//
//	MEDSPA_CHURN=100000 go test ./mockserver -run '^$' -bench ChurnFileSize -benchtime 1x
func BenchmarkChurnFileSize(b *testing.B) {
	total := 100_000
	if v, err := strconv.Atoi(os.Getenv("MEDSPA_CHURN")); err == nil {
		total = v
	}
	for b.Loop() {
		aloneFile, aloneState := churn(b, 1000)
		file, state := churn(b, total)
		b.ReportMetric(aloneFile, "KiB-file-1000")
		b.ReportMetric(aloneState, "KiB-state-1000")
		b.ReportMetric(file, "KiB-file-churned")
		b.ReportMetric(state, "KiB-state-churned")
		b.ReportMetric(state/aloneState, "state-ratio")
	}
}

// churn creates total patients 1,000 at a time, resetting the account in between, closes the
// server and returns the size of its file and of the state's pages in it, in KiB.
func churn(b *testing.B, total int) (file, state float64) {
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
	for done := 0; done < total; done += 1000 {
		if done > 0 {
			if err := srv.Reset(key.Account); err != nil {
				b.Fatal(err)
			}
		}
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
	if err := srv.Close(); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "data.db")
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	_ = db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, bk *bolt.Bucket) error {
			if !strings.HasPrefix(string(name), "audit/") {
				st := bk.Stats()
				state += float64(st.BranchAlloc+st.LeafAlloc) / 1024
			}
			return nil
		})
	})
	return float64(fi.Size()) / 1024, state
}
