package mockserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

// benchServer is a server with an unlimited key (so the bucket never empties during a run) and
// n patients, plus an SDK client using that key in-process.
type benchServer struct {
	srv    *mockserver.Server
	key    string
	client *medspa.Client
	first  string
}

func newBenchServer(b *testing.B, n int, opts ...mockserver.Option) *benchServer {
	b.Helper()
	srv, err := mockserver.New(opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = srv.Close() })
	key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "custom", RatePerMinute: 1e9, Burst: 1e9, Scopes: []string{"*"}})
	if err != nil {
		b.Fatal(err)
	}
	c, err := medspa.New(medspa.WithAPIKey(key.Key), medspa.WithBaseURL(mockserver.InProcessBaseURL), medspa.WithHTTPClient(srv.HTTPClient()))
	if err != nil {
		b.Fatal(err)
	}
	bs := &benchServer{srv: srv, key: key.Key, client: c}
	ids := make([]string, n)
	var wg sync.WaitGroup
	const workers = 4
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				p, _, err := c.Patients.Create(context.Background(), &patients.CreateParams{
					FirstName: "Bench", LastName: "Patient" + strconv.Itoa(i), Email: "bench" + strconv.Itoa(i) + "@example.com",
				})
				if err != nil {
					errs[w] = err
					return
				}
				ids[i] = p.ID
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	if n > 0 {
		bs.first = ids[0]
	}
	return bs
}

// serve runs one request through the full handler stack (auth, rate limit, audit, journal,
// PHI sealing, encoding) without the network and without a client.
func (bs *benchServer) serve(b *testing.B, method, target, body string, want int) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	req.Header.Set("Authorization", "Bearer "+bs.key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	bs.srv.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatal(rec.Code, rec.Body.String())
	}
}

// BenchmarkHandlerGetPatient measures the full stack of a get by id.
func BenchmarkHandlerGetPatient(b *testing.B) {
	bs := newBenchServer(b, 1)
	b.ReportAllocs()
	for b.Loop() {
		bs.serve(b, http.MethodGet, "/api/v1/patients/"+bs.first, "", http.StatusOK)
	}
}

// BenchmarkHandlerListPatients is a page of 25 patients (page 1 and page 40 of 1,000).
func BenchmarkHandlerListPatients(b *testing.B) {
	bs := newBenchServer(b, 1000)
	for _, page := range []int{1, 40} {
		b.Run("page="+strconv.Itoa(page), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bs.serve(b, http.MethodGet, "/api/v1/patients?perPage=25&page="+strconv.Itoa(page), "", http.StatusOK)
			}
		})
	}
}

// BenchmarkHandlerCreatePatient is a create without an Idempotency-Key.
func BenchmarkHandlerCreatePatient(b *testing.B) {
	bs := newBenchServer(b, 0)
	b.ReportAllocs()
	for b.Loop() {
		bs.serve(b, http.MethodPost, "/api/v1/patients", `{"firstName":"Bench","lastName":"Patient","email":"bench@example.com"}`, http.StatusCreated)
	}
}

// BenchmarkHandlerCreatePayment is a cash payment on an invoice that never runs out.
func BenchmarkHandlerCreatePayment(b *testing.B) {
	bs := newBenchServer(b, 1)
	ctx := context.Background()
	inv, _, err := bs.client.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: bs.first,
		LineItems: []billing.LineItemParams{{Description: "bench", Quantity: 10_000, UnitAmount: medspa.Ptr[int64](1_000_000_000_000)}}})
	if err != nil {
		b.Fatal(err)
	}
	body := `{"invoiceId":"` + inv.ID + `","amount":150,"method":"cash"}`
	b.ReportAllocs()
	for b.Loop() {
		bs.serve(b, http.MethodPost, "/api/v1/payments", body, http.StatusCreated)
	}
}

// BenchmarkHandlerAdjust is a +1 received adjustment on one product.
func BenchmarkHandlerAdjust(b *testing.B) {
	bs := newBenchServer(b, 0)
	prod, _, err := bs.client.Products.Create(context.Background(), &inventory.ProductCreateParams{SKU: "B-1", Name: "Bench", Category: inventory.CategoryConsumable, Price: 100})
	if err != nil {
		b.Fatal(err)
	}
	body := `{"productId":"` + prod.ID + `","delta":1,"reason":"received"}`
	b.ReportAllocs()
	for b.Loop() {
		bs.serve(b, http.MethodPost, "/api/v1/inventory/adjust", body, http.StatusCreated)
	}
}

// BenchmarkSDKGet is Patients.Get against the in-process server; compare with BenchmarkRawGet
// (same server, same transport) for the SDK's own cost.
func BenchmarkSDKGet(b *testing.B) {
	bs := newBenchServer(b, 1)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		p, _, err := bs.client.Patients.Get(ctx, bs.first)
		if err != nil || p.ID != bs.first {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawGet is the hand-written equivalent of BenchmarkSDKGet: net/http and
// encoding/json, no retries, no error model.
func BenchmarkRawGet(b *testing.B) {
	bs := newBenchServer(b, 1)
	hc := bs.srv.HTTPClient()
	ctx := context.Background()
	url := mockserver.InProcessBaseURL + "/api/v1/patients/" + bs.first
	b.ReportAllocs()
	for b.Loop() {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+bs.key)
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var p patients.Patient
		err = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || p.ID != bs.first {
			b.Fatal(resp.StatusCode, err)
		}
	}
}

// BenchmarkAllStep is one step of Patients.All: with PerPage 1 every step fetches and decodes a
// page, so this is the per-page cost of iterating.
func BenchmarkAllStep(b *testing.B) {
	bs := newBenchServer(b, 100)
	ctx := context.Background()
	next, stop := iter.Pull2(bs.client.Patients.All(ctx, &patients.ListParams{ListOptions: listOptions(1)}))
	defer stop()
	b.ReportAllocs()
	for b.Loop() {
		if _, err, ok := next(); !ok || err != nil {
			stop()
			next, stop = iter.Pull2(bs.client.Patients.All(ctx, &patients.ListParams{ListOptions: listOptions(1)}))
			if _, err, ok = next(); !ok || err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkAllHeap iterates Patients.All over N patients (100 a page) and reports the bytes
// allocated per page and the live heap's growth during the iteration (after a GC every 50
// pages): both stay flat from N = 10,000 to N = 100,000, so the iterator holds one page at a
// time. Seeding 100,000 patients takes a few seconds.
func BenchmarkAllHeap(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			bs := newBenchServer(b, n)
			ctx := context.Background()
			var ms runtime.MemStats
			for b.Loop() {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				startHeap, startTotal := ms.HeapAlloc, ms.TotalAlloc
				var growth uint64
				count := 0
				for _, err := range bs.client.Patients.All(ctx, &patients.ListParams{ListOptions: listOptions(100)}) {
					if err != nil {
						b.Fatal(err)
					}
					count++
					if count%(50*100) == 0 {
						runtime.GC()
						runtime.ReadMemStats(&ms)
						growth = max(growth, ms.HeapAlloc-min(ms.HeapAlloc, startHeap))
					}
				}
				if count != n {
					b.Fatalf("iterated %d patients, want %d", count, n)
				}
				runtime.ReadMemStats(&ms)
				b.ReportMetric(float64(ms.TotalAlloc-startTotal)/float64(n/100), "B/page")
				b.ReportMetric(float64(growth), "heap-growth-B")
			}
		})
	}
}

func listOptions(perPage int) client.ListOptions { return client.ListOptions{PerPage: perPage} }
