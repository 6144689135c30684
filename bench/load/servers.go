package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

// runServer is the child process: it seeds its server, prints its address and seed info, and
// serves until interrupted.
func runServer(kind string, n int) error {
	var h http.Handler
	info := map[string]string{}
	switch kind {
	case "mock":
		srv := mockserver.New()
		key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "custom", RatePerMinute: 1e9, Burst: 1e9, Scopes: []string{"*"}})
		if err != nil {
			return err
		}
		start := time.Now()
		first, err := seedMock(srv, key, n)
		if err != nil {
			return err
		}
		info["seeded"] = time.Since(start).Round(time.Millisecond).String()
		info["key"], info["patient"] = key.Key, first
		h = srv
	case "baseline":
		b := newBaseline(n)
		info["key"], info["patient"] = "baseline", b.first
		h = b
	default:
		return fmt.Errorf("unknown server %q", kind)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	info["base"] = "http://" + ln.Addr().String()
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	printInfo(info)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	return hs.Shutdown(sctx)
}

// seedMock creates n patients through the SDK, in-process and in parallel, so every rule and
// the PHI sealing run as they do for API traffic.
func seedMock(srv *mockserver.Server, key mockserver.APIKey, n int) (string, error) {
	client, err := newSeedClient(srv, key.Key)
	if err != nil {
		return "", err
	}
	var (
		mu    sync.Mutex
		first string
		ferr  error
		wg    sync.WaitGroup
	)
	const workers = 8
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				p, err := client.Patients.Create(context.Background(), &patients.CreateParams{
					FirstName: "Seed", LastName: "Patient" + strconv.Itoa(i), Email: "seed" + strconv.Itoa(i) + "@example.com",
				})
				mu.Lock()
				if err != nil && ferr == nil {
					ferr = err
				}
				if i == 0 && p != nil {
					first = p.ID
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return first, ferr
}

// baseline is the physical limit: a plain map behind a mutex, serving JSON of the same shape.
type baseline struct {
	mu    sync.RWMutex
	byID  map[string][]byte
	order []string
	first string
}

func newBaseline(n int) *baseline {
	b := &baseline{byID: make(map[string][]byte, n)}
	now := time.Now().UTC().Truncate(time.Second)
	for i := range n {
		b.put(i, now)
	}
	b.first = b.order[0]
	return b
}

func (b *baseline) put(i int, now time.Time) []byte {
	id := fmt.Sprintf("pat_%032x", i+1)
	body := mustJSON(patients.Patient{ID: id, FirstName: "Seed", LastName: "Patient" + strconv.Itoa(i), Email: "seed" + strconv.Itoa(i) + "@example.com", CreatedAt: now, UpdatedAt: now})
	b.byID[id] = body
	b.order = append(b.order, id)
	return body
}

func (b *baseline) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/v1/patients/"):
		b.mu.RLock()
		body, ok := b.byID[strings.TrimPrefix(r.URL.Path, "/api/v1/patients/")]
		b.mu.RUnlock()
		if !ok {
			http.Error(w, `{"code":"not_found"}`, http.StatusNotFound)
			return
		}
		_, _ = w.Write(body)
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/patients":
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		per, _ := strconv.Atoi(r.URL.Query().Get("perPage"))
		page, per = max(page, 1), min(max(per, 1), 100)
		b.mu.RLock()
		total := len(b.order)
		var sb strings.Builder
		sb.WriteString(`{"data":[`)
		for i := (page - 1) * per; i < min(page*per, total); i++ {
			if i > (page-1)*per {
				sb.WriteByte(',')
			}
			sb.Write(b.byID[b.order[i]])
		}
		b.mu.RUnlock()
		fmt.Fprintf(&sb, `],"meta":{"total":%d,"page":%d,"perPage":%d}}`, total, page, per)
		_, _ = w.Write([]byte(sb.String()))
	case r.Method == http.MethodPost:
		b.mu.Lock()
		body := b.put(len(b.order), time.Now().UTC().Truncate(time.Second))
		b.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(body)
	default:
		http.NotFound(w, r)
	}
}
