package mockserver_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver"
)

// Benchmarks of the data directory (BENCHMARKS.md "Durability on bbolt"). Run them apart from the
// others, on a quiet machine:
//
//	go test ./mockserver -run '^$' -bench 'DurableWrite' -benchtime 2s -count 3
//	go test ./mockserver -run '^$' -bench 'Restart100k' -benchtime 1x -timeout 30m

// durableCreate serves one create through the whole handler stack and returns its latency.
func durableCreate(b *testing.B, srv *mockserver.Server, key string, i int64) time.Duration {
	req := httptest.NewRequest(http.MethodPost, "/api/v1/patients",
		strings.NewReader(fmt.Sprintf(`{"firstName":"Durable","lastName":"Bench%d","email":"d%d@example.com"}`, i, i)))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	start := time.Now()
	srv.ServeHTTP(rec, req)
	d := time.Since(start)
	if rec.Code != http.StatusCreated {
		b.Fatal(rec.Code, rec.Body.String())
	}
	return d
}

// BenchmarkDurableWrite is a patient create through the handler stack, in memory and with a
// data directory (fsync before the answer), from one client and from 16 at once (the group
// commit shares each fsync among the writes that wait for it). It reports the latency's p50 and
// p99.
func BenchmarkDurableWrite(b *testing.B) {
	for _, store := range []string{"memory", "datadir"} {
		for _, clients := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/clients=%d", store, clients), func(b *testing.B) {
				var opts []mockserver.Option
				if store == "datadir" {
					opts = append(opts, mockserver.WithDataDir(b.TempDir()))
				}
				bs := newBenchServer(b, 0, opts...)
				srv, key := bs.srv, bs.key
				var (
					mu  sync.Mutex
					lat []time.Duration
					seq atomic.Int64
				)
				b.ReportAllocs()
				b.ResetTimer()
				if clients == 1 {
					for b.Loop() {
						lat = append(lat, durableCreate(b, srv, key, seq.Add(1)))
					}
				} else {
					b.SetParallelism(max(1, clients/runtime.GOMAXPROCS(0))) // about clients goroutines
					b.RunParallel(func(pb *testing.PB) {
						var mine []time.Duration
						for pb.Next() {
							mine = append(mine, durableCreate(b, srv, key, seq.Add(1)))
						}
						mu.Lock()
						lat = append(lat, mine...)
						mu.Unlock()
					})
				}
				b.StopTimer()
				slices.Sort(lat)
				if len(lat) > 0 {
					b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
					b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
				}
			})
		}
	}
}

// BenchmarkRestart100k is the start of a server on a data directory holding 100,000 patients
// (with notes, tags and an address each, loaded 1,000 to a change), after a clean stop
// ("snapshot") and after a crash ("log"): reading the buckets either way.
func BenchmarkRestart100k(b *testing.B) {
	const n, perLoad = 100_000, 1_000
	for _, crash := range []bool{false, true} {
		b.Run(map[bool]string{false: "snapshot", true: "log"}[crash], func(b *testing.B) {
			dir := b.TempDir()
			srv, err := mockserver.New(mockserver.WithDataDir(dir))
			if err != nil {
				b.Fatal(err)
			}
			key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < n; i += perLoad { // a fixture load is one change of perLoad patients
				var fx mockserver.Fixtures
				for j := i; j < i+perLoad; j++ {
					fx.Patients = append(fx.Patients, map[string]any{"firstName": fmt.Sprint("Restart", j), "lastName": "Bench",
						"email": fmt.Sprintf("r%d@example.com", j), "notes": strings.Repeat("n", 100), "tags": []string{"a", "b"},
						"address": map[string]any{"line1": "1 Replay Road", "city": "Logton", "country": "US"}})
				}
				if _, err := srv.LoadFixtures(key.Account, fx); err != nil {
					b.Fatal(err)
				}
			}
			if crash {
				err = mockserver.CrashForTest(srv)
			} else {
				err = srv.Close()
			}
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				s, err := mockserver.New(mockserver.WithDataDir(dir))
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				_, st, _ := s.DataDir()
				b.ReportMetric(st.Replay.Seconds()*1000, "replay-ms")
				b.ReportMetric(float64(st.SnapshotRecords), "snapshot-records")
				b.ReportMetric(float64(st.LoggedChanges), "logged-changes")
				if crash {
					err = mockserver.CrashForTest(s) // keep the file as a crash leaves it for the next start
				} else {
					err = s.Close()
				}
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}
