package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"maps"
	"net"
	"net/http"
	_ "net/http/pprof" // served only when BENCH_LOAD_PPROF is set
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/reports"
)

// runServer is the child process: it seeds its server, prints its address and seed info, and
// serves until interrupted.
func runServer(kind string, n, payments int) error {
	var h http.Handler
	info := map[string]string{}
	switch kind {
	case "mock":
		var opts []mockserver.Option
		if dataDir != "" {
			dir, err := os.MkdirTemp(dataDir, "medspa-load-data")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			opts = append(opts, mockserver.WithDataDir(dir))
		}
		srv, err := mockserver.New(opts...)
		if err != nil {
			log.Fatal(err)
		}
		defer srv.Close()
		unlimited := mockserver.APIKeyParams{Plan: "custom", RatePerMinute: 1e9, Burst: 1e9, Scopes: []string{"*"}}
		key, err := srv.CreateAPIKey(unlimited)
		if err != nil {
			return err
		}
		reportKey, err := srv.CreateAPIKey(unlimited) // its own account: the report covers exactly the seeded payments
		if err != nil {
			return err
		}
		info["rss.empty"] = fmt.Sprintf("%.1f", rssMiB(os.Getpid()))
		start := time.Now()
		seeded, err := seedMock(srv, key.Key, reportKey.Key, n, payments)
		if err != nil {
			return err
		}
		maps.Copy(info, seeded)
		info["seeded"] = time.Since(start).Round(time.Millisecond).String()
		if dataDir != "" {
			// Restart on the directory: Close compacts the seeding's log, so no compaction of
			// it runs during the measurements (they see the log a steady load keeps). The keys
			// and records come back.
			if err := srv.Close(); err != nil {
				return err
			}
			start := time.Now()
			if srv, err = mockserver.New(opts...); err != nil {
				return err
			}
			defer srv.Close()
			info["restarted"] = time.Since(start).Round(time.Millisecond).String()
		}
		// At rest the runtime's scavenger returns the seeding's garbage to the OS over a few
		// minutes; do it now so the RSS printed is the resting one.
		debug.FreeOSMemory()
		info["key"], info["reportKey"] = key.Key, reportKey.Key
		h = srv
	case "baseline":
		b := newBaseline(n)
		info["key"], info["reportKey"], info["patient"] = "baseline", "baseline", b.first
		info["invoices"], info["product"] = "inv_1,inv_2", "prd_1"
		h = b
	default:
		return fmt.Errorf("unknown server %q", kind)
	}
	if addr := os.Getenv("BENCH_LOAD_PPROF"); addr != "" && kind == "mock" {
		// Profiling the child: BENCH_LOAD_PPROF=127.0.0.1:6060 serves net/http/pprof there.
		go func() { _ = http.ListenAndServe(addr, http.DefaultServeMux) }()
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

// baseline is the physical limit: a plain map behind a mutex, serving JSON of the same shape.
// POSTs decode their body and insert the record they answer into the map.
type baseline struct {
	mu      sync.RWMutex
	byID    map[string][]byte
	order   []string // patients, in list order
	next    int
	first   string
	revenue []byte // a precomputed revenue report
}

func newBaseline(n int) *baseline {
	b := &baseline{byID: make(map[string][]byte, n)}
	now := time.Now().UTC().Truncate(time.Second)
	for i := range n {
		b.putPatient(patients.Patient{FirstName: "Seed", LastName: "Patient" + strconv.Itoa(i), Email: "seed" + strconv.Itoa(i) + "@example.com"}, now)
	}
	b.first = b.order[0]
	rep := reports.RevenueReport{Report: "revenue", From: now.AddDate(0, 0, -30), To: now, Timezone: "UTC", GroupBy: "day", Currency: "usd"}
	for d := range 30 {
		row := reports.RevenueRow{Key: now.AddDate(0, 0, d-29).Format(time.DateOnly)}
		if d == 29 {
			row.RevenueTotals = reports.RevenueTotals{Collected: 14_950_000, Payments: reportPayments, Invoiced: reportInvoices * 10_000 * hugeUnitAmount, Invoices: reportInvoices}
		}
		rep.Data = append(rep.Data, row)
	}
	rep.Totals = rep.Data[29].RevenueTotals
	b.revenue = mustJSON(rep)
	return b
}

// newID returns a fresh id with the prefix; the caller holds b.mu.
func (b *baseline) newID(prefix string) string {
	b.next++
	return fmt.Sprintf("%s_%032x", prefix, b.next)
}

// putPatient stores p; the caller holds b.mu (or is the constructor).
func (b *baseline) putPatient(p patients.Patient, now time.Time) []byte {
	p.ID, p.CreatedAt, p.UpdatedAt = b.newID("pat"), now, now
	body := mustJSON(p)
	b.byID[p.ID] = body
	b.order = append(b.order, p.ID)
	return body
}

func (b *baseline) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Method == http.MethodPost {
		b.post(w, r)
		return
	}
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
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/reports/revenue":
		_, _ = w.Write(b.revenue)
	default:
		http.NotFound(w, r)
	}
}

// post decodes a create, stores the record it answers and writes it.
func (b *baseline) post(w http.ResponseWriter, r *http.Request) {
	now := time.Now().UTC().Truncate(time.Second)
	dec := json.NewDecoder(r.Body)
	var body []byte
	switch r.URL.Path {
	case "/api/v1/patients":
		var p patients.Patient
		if dec.Decode(&p) != nil {
			http.Error(w, `{"code":"malformed_json"}`, http.StatusBadRequest)
			return
		}
		b.mu.Lock()
		body = b.putPatient(p, now)
		b.mu.Unlock()
	case "/api/v1/payments":
		var in billing.PaymentCreateParams
		if dec.Decode(&in) != nil {
			http.Error(w, `{"code":"malformed_json"}`, http.StatusBadRequest)
			return
		}
		b.mu.Lock()
		p := billing.Payment{ID: b.newID("pay"), InvoiceID: in.InvoiceID, Amount: in.Amount, Currency: "usd", Method: in.Method, Status: billing.PaymentSucceeded, CreatedAt: now}
		body = mustJSON(p)
		b.byID[p.ID] = body
		b.mu.Unlock()
	case "/api/v1/inventory/adjust":
		var in inventory.AdjustParams
		if dec.Decode(&in) != nil {
			http.Error(w, `{"code":"malformed_json"}`, http.StatusBadRequest)
			return
		}
		b.mu.Lock()
		adj := inventory.Adjustment{ID: b.newID("adj"), ProductID: in.ProductID, Location: "main", Delta: in.Delta, Reason: in.Reason, OnHandAfter: int64(b.next), CreatedAt: now,
			Inventory: inventory.StockRecord{ID: "stk_1", ProductID: in.ProductID, SKU: "LOAD-1", Location: "main", OnHand: int64(b.next)}}
		body = mustJSON(adj)
		b.byID[adj.ID] = body
		b.mu.Unlock()
	default:
		http.NotFound(w, r)
		return
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}
