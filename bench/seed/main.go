// Command seed fills one account of the mock server with patients through its HTTP handler,
// in-process and in parallel (auth, rate limiting, every rule, the audit log, the journal and
// PHI sealing run as for API traffic), then prints the seed time and the process's resident set
// size.
//
//	go run ./bench/seed -patients 1000000
//
// With -url and -key it seeds a running server instead (the standalone binary, over loopback
// HTTP, as bench/wrk/scale.sh does), and prints the seed time only: the server's memory is
// that process's to report.
//
//	go run ./bench/seed -url http://127.0.0.1:8080 -key sk_test_… -patients 1000000
//
// With -batch N (and -account) it loads them as admin fixtures instead, N to a POST
// /__admin/fixtures: each load is one transaction through the same rules and PHI sealing, with
// no per-request audit event or journal entry per patient.
//
// By default the POSTs carry no Idempotency-Key, as a one-off seeding script's would; -sdk sends
// them through the SDK instead, which puts a key on every POST, so the server also keeps every
// answer for replay for 24 hours (some 450 bytes a patient more).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

func main() {
	n := flag.Int("patients", 1_000_000, "patients to create")
	workers := flag.Int("c", 4*runtime.GOMAXPROCS(0), "concurrent creators")
	viaSDK := flag.Bool("sdk", false, "create through the SDK (an Idempotency-Key on every POST)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the seeding to this file")
	memprofile := flag.String("memprofile", "", "write a heap profile after seeding to this file")
	url := flag.String("url", "", "seed the running server at this loopback base URL (with -key) instead of one in-process")
	key := flag.String("key", "", "with -url: the API key (scope patients:write, limits that never bind)")
	batch := flag.Int("batch", 0, "with -url: load the patients as admin fixtures, this many to a request, into -account")
	account := flag.String("account", "", "with -batch: the account to load into")
	flag.Parse()
	if *url != "" {
		create := poster
		if *batch > 0 {
			create = func(hc *http.Client, base, _ string) func(int) error {
				return fixtureLoader(hc, base, *account, *batch, *n)
			}
		}
		if err := seedRemote(*url, *key, *n, *batch, *workers, create); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
	}
	err := run(*n, *workers, *viaSDK, *memprofile)
	if *cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		log.Fatal(err)
	}
}

func run(n, workers int, viaSDK bool, memprofile string) error {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "custom", RatePerMinute: 1e9, Burst: 1e9, Scopes: []string{"*"}})
	if err != nil {
		return err
	}
	create, err := creator(srv, key.Key, viaSDK)
	if err != nil {
		return err
	}
	fmt.Printf("RSS empty: %.1f MiB\n", rssMiB())
	start := time.Now()
	if err := inParallel(n, workers, create); err != nil {
		return err
	}
	d := time.Since(start)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	via := "HTTP handler, no Idempotency-Key"
	if viaSDK {
		via = "SDK"
	}
	fmt.Printf("seeded %d patients (%s) in %s (%.0f/s, %d workers); RSS %.1f MiB (peak %.1f MiB), live heap %.1f MiB\n",
		n, via, d.Round(time.Millisecond), float64(n)/d.Seconds(), workers, rssMiB(), peakRSSMiB(), float64(ms.HeapAlloc)/(1<<20))
	// At rest the runtime's scavenger returns freed pages to the OS over time; this does it now.
	debug.FreeOSMemory()
	fmt.Printf("RSS at rest (freed pages returned to the OS): %.1f MiB\n", rssMiB())
	if memprofile != "" { // while the server is still alive
		f, err := os.Create(memprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		return pprof.WriteHeapProfile(f)
	}
	return nil
}

// inParallel runs create(0..n-1) on workers goroutines and returns the first error.
func inParallel(n, workers int, create func(i int) error) error {
	var (
		wg   sync.WaitGroup
		next atomic.Int64
		cerr atomic.Value
	)
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || cerr.Load() != nil {
					return
				}
				if err := create(i); err != nil {
					cerr.CompareAndSwap(nil, err)
					return
				}
			}
		})
	}
	wg.Wait()
	err, _ := cerr.Load().(error)
	return err
}

// seedRemote creates n patients in the running server at base, over HTTP, with create (one
// patient a call, or with batch > 0 one batch of patients a call), and prints the time.
func seedRemote(base, key string, n, batch, workers int, create func(hc *http.Client, base, key string) func(i int) error) error {
	if key == "" {
		return errors.New("-url needs -key")
	}
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}, Timeout: 5 * time.Minute}
	calls, via := n, "HTTP POST /api/v1/patients over loopback, no Idempotency-Key"
	if batch > 0 {
		calls, via = (n+batch-1)/batch, fmt.Sprintf("admin fixtures, %d a load", batch)
	}
	start := time.Now()
	if err := inParallel(calls, workers, create(hc, base, key)); err != nil {
		return err
	}
	d := time.Since(start)
	fmt.Printf("seeded %d patients (%s) in %s (%.0f/s, %d workers)\n", n, via, d.Round(time.Millisecond), float64(n)/d.Seconds(), workers)
	return nil
}

// fixtureLoader returns a function loading batch i (patients i*size … of n) as admin fixtures
// into the account.
func fixtureLoader(hc *http.Client, base, account string, size, n int) func(i int) error {
	url := base + "/__admin/fixtures"
	return func(i int) error {
		var body strings.Builder
		body.WriteString(`{"account":` + strconv.Quote(account) + `,"patients":[`)
		for j := i * size; j < min((i+1)*size, n); j++ {
			if j > i*size {
				body.WriteByte(',')
			}
			body.WriteString(patientBody(j))
		}
		body.WriteString("]}")
		resp, err := hc.Post(url, "application/json", strings.NewReader(body.String()))
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body) // the ids, a few hundred KiB
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("load fixtures: %s %s", resp.Status, b)
		}
		return nil
	}
}

// patientBody is the create body of seed patient i.
func patientBody(i int) string {
	s := strconv.Itoa(i)
	return `{"firstName":"Seed","lastName":"Patient` + s + `","email":"seed` + s + `@example.com","phone":"+1555` + s + `"}`
}

// creator returns a function creating patient i.
func creator(srv *mockserver.Server, key string, viaSDK bool) (func(i int) error, error) {
	ctx := context.Background()
	if viaSDK {
		c, err := medspa.New(medspa.WithAPIKey(key), medspa.WithBaseURL(mockserver.InProcessBaseURL), medspa.WithHTTPClient(srv.HTTPClient()))
		if err != nil {
			return nil, err
		}
		return func(i int) error {
			s := strconv.Itoa(i)
			_, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Seed", LastName: "Patient" + s, Email: "seed" + s + "@example.com", Phone: "+1555" + s})
			return err
		}, nil
	}
	return poster(srv.HTTPClient(), mockserver.InProcessBaseURL, key), nil
}

// poster returns a function creating patient i by a POST through hc, as a one-off seeding
// script would: no Idempotency-Key.
func poster(hc *http.Client, base, key string) func(i int) error {
	ctx := context.Background()
	url := base + "/api/v1/patients"
	return func(i int) error {
		body := patientBody(i)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			return errors.New("create patient: " + resp.Status)
		}
		return nil
	}
}

// rssMiB reads this process's resident set size from /proc (Linux; -1 elsewhere).
func rssMiB() float64 { return procStatusMiB("VmRSS:") }

// peakRSSMiB reads this process's peak resident set size from /proc (Linux; -1 elsewhere).
func peakRSSMiB() float64 { return procStatusMiB("VmHWM:") }

// procStatusMiB reads a size field of /proc/self/status in MiB.
func procStatusMiB(field string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			var kb float64
			_, _ = fmt.Sscanf(strings.TrimSpace(rest), "%f", &kb)
			return kb / 1024
		}
	}
	return -1
}
