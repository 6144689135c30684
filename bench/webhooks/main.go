// Command webhooks measures webhook delivery throughput: the mock server (in-process, every
// feature on) delivers the events of n patient creations to a receiver on 127.0.0.1 that
// verifies each signature, and the command reports deliveries per second and how many were
// lost (an event never received) or duplicated. Creators keep at most -window events ahead
// of the receiver: each endpoint's pending queue is bounded (docs/protocol.md §13, 10,000 by
// default; overflow drops the oldest), and a burst past it would measure the drops.
//
//	go run ./bench/webhooks -events 20000
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

func main() {
	n := flag.Int("events", 20_000, "patients to create (one patient.created delivery each)")
	workers := flag.Int("c", 8, "concurrent creators")
	timeout := flag.Duration("timeout", 2*time.Minute, "give up waiting for deliveries after this")
	window := flag.Int64("window", 5_000, "most events created and not yet received (below the endpoint queue bound)")
	flag.Parse()
	if err := run(*n, *workers, *window, *timeout); err != nil {
		log.Fatal(err)
	}
}

func run(n, workers int, window int64, timeout time.Duration) error {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "custom", RatePerMinute: 1e9, Burst: 1e9, Scopes: []string{"*"}})
	if err != nil {
		return err
	}
	c, err := medspa.New(medspa.WithAPIKey(key.Key), medspa.WithBaseURL(mockserver.InProcessBaseURL), medspa.WithHTTPClient(srv.HTTPClient()))
	if err != nil {
		return err
	}
	ctx := context.Background()

	var (
		mu       sync.Mutex
		seen     = make(map[string]bool, n)
		dups     atomic.Int64
		received atomic.Int64
		sent     atomic.Int64
		last     atomic.Int64 // unix nanos of the latest receipt
		all      = make(chan struct{})
	)
	recv := httptest.NewUnstartedServer(nil)
	defer recv.Close()
	ep, _, err := c.Webhooks.Create(ctx, &webhooks.CreateParams{URL: "http://" + recv.Listener.Addr().String() + "/hooks", Events: []webhooks.EventType{webhooks.EventPatientCreated}})
	if err != nil {
		return err
	}
	recv.Config.Handler = webhooks.NewHandler(ep.Secret, func(_ context.Context, e *webhooks.Event) error {
		mu.Lock()
		dup := seen[e.ID]
		seen[e.ID] = true
		mu.Unlock()
		if dup {
			dups.Add(1)
			return nil
		}
		last.Store(time.Now().UnixNano())
		if received.Add(1) == int64(n) {
			close(all)
		}
		return nil
	})
	recv.Start()

	start := time.Now()
	var wg sync.WaitGroup
	var cerr atomic.Value
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				for sent.Load()-received.Load() >= window {
					time.Sleep(100 * time.Microsecond)
				}
				sent.Add(1)
				if _, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Hook", LastName: "Patient" + strconv.Itoa(i), Email: "hook@example.com"}); err != nil {
					cerr.CompareAndSwap(nil, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err, _ := cerr.Load().(error); err != nil {
		return err
	}
	created := time.Since(start)
	select {
	case <-all:
	case <-time.After(timeout):
	}
	got := received.Load()
	elapsed := time.Unix(0, last.Load()).Sub(start)
	failed := 0
	for _, d := range srv.Deliveries(key.Account) {
		if !d.Delivered {
			failed++
		}
	}
	fmt.Printf("created %d patients in %s (%.0f/s)\n", n, created.Round(time.Millisecond), float64(n)/created.Seconds())
	fmt.Printf("delivered %d of %d events in %s: %.0f deliveries/s sustained; lost %d, duplicates %d, failed attempts %d\n",
		got, n, elapsed.Round(time.Millisecond), float64(got)/elapsed.Seconds(), int64(n)-got, dups.Load(), failed)
	if got != int64(n) {
		return fmt.Errorf("%d events lost", int64(n)-got)
	}
	return nil
}
