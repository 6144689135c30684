package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// Config bounds a soak run.
type Config struct {
	Writes  int           // intended write requests (about 7.25 per unit)
	Rate    float64       // share of writes that get a fault
	Workers int           // concurrent workers
	Delay   time.Duration // the delay fault (2 s in the command)
	Timeout time.Duration // the whole run
	Seed    uint64        // fault choices
}

// Report is what a run did and found.
type Report struct {
	Units, IntendedWrites, Workers int
	Rate                           float64
	Requests, Retries              int64
	FaultsArmed, FaultsInjected    int
	FaultKinds                     map[string]int
	ClientErrors                   int64
	Duplicates, LostWrites         int
	Invoices, Payments             int
	Paid                           int64
	MoneyOK                        bool
	Products, Adjustments          int
	StockOK                        bool
	Events, EventsDelivered        int
	Deliveries                     int
	AuditEvents                    int
	AuditOK                        bool
	Elapsed                        time.Duration
}

// A unit of the workload writes 9 times: a patient, a stock receipt, an appointment and its
// confirmation, an invoice that sells stock, two payments, and — contended by every worker — a
// payment on one hot invoice and a receipt on one hot product; one product per 4 units: 37
// writes per 4 units.
const unitWrites, perUnits = 37, 4

// fault kinds, in the order they are drawn.
var faultKinds = []string{"503+Retry-After", "429+Retry-After", "drop before commit", "drop after commit", "503 after commit", "delay"}

// receiver is the loopback webhook endpoint: it verifies each delivery and dedupes by
// webhook-id.
type receiver struct {
	secret     string
	mu         sync.Mutex
	seen       map[string]int
	deliveries int
	bad        int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if _, err := webhooks.Verify(rc.secret, r.Header, body); err != nil {
		rc.bad++
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	rc.deliveries++
	rc.seen[r.Header.Get(webhooks.HeaderID)]++
	w.WriteHeader(http.StatusNoContent)
}

// intended is what the workload meant to write, by unique tag, and what the SDK said.
type intended struct {
	mu       sync.Mutex
	patients map[string]bool // tag
	products map[string]bool // sku
	receipts map[string]int64
	appts    map[string]bool // providerId
	invoices map[string]bool // line description
	payments map[string][]int64
	sold     map[string]int64 // product id → units sold
	received map[string]int64 // product id → units received
}

// Run starts the server and the receiver on loopback, runs the workload and checks the books.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	units := max(cfg.Writes*perUnits/unitWrites, 1)
	rep := &Report{Units: units, Workers: cfg.Workers, Rate: cfg.Rate, FaultKinds: map[string]int{}}

	srv, err := mockserver.New(mockserver.WithJournalSize(cfg.Writes*8 + 1000))
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	base := "http://" + ln.Addr().String()

	rcv := &receiver{seen: map[string]int{}}
	rln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rs := &http.Server{Handler: rcv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = rs.Serve(rln) }()
	defer rs.Close()

	key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "custom", Scopes: []string{"*"}, RatePerMinute: 1e9, Burst: 1e9})
	if err != nil {
		return nil, err
	}
	ct := &http.Transport{MaxIdleConnsPerHost: cfg.Workers * 2}
	c, err := medspa.New(medspa.WithBaseURL(base), medspa.WithAPIKey(key.Key), medspa.WithHTTPClient(&http.Client{Transport: ct}),
		medspa.WithMaxRetries(12), medspa.WithRetryWait(5*time.Millisecond, 100*time.Millisecond), medspa.WithMaxRetryAfter(2*time.Second))
	if err != nil {
		return nil, err
	}
	hook, _, err := c.Webhooks.Create(ctx, &webhooks.CreateParams{URL: "http://" + rln.Addr().String() + "/hook", Events: []webhooks.EventType{webhooks.EventAll}})
	if err != nil {
		return nil, err
	}
	rcv.mu.Lock()
	rcv.secret = hook.Secret
	rcv.mu.Unlock()
	rec := srv.RecordEvents(key.Account)
	defer rec.Stop()
	journalBefore := len(srv.Requests(key.Account))

	in := &intended{patients: map[string]bool{}, products: map[string]bool{}, receipts: map[string]int64{}, appts: map[string]bool{},
		invoices: map[string]bool{}, payments: map[string][]int64{}, sold: map[string]int64{}, received: map[string]int64{}}
	var calls, armed atomic.Int64
	var kindMu sync.Mutex
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x50a4))
	var rngMu sync.Mutex
	// maybeFault arms, at the configured rate, one fault on the exact method and path the next
	// call uses. Another worker's request to the same path may take it: still one fault.
	maybeFault := func(method, path string) {
		calls.Add(1)
		rngMu.Lock()
		hit, k, ra := rng.Float64() < cfg.Rate, rng.IntN(len(faultKinds)), rng.IntN(2)
		rngMu.Unlock()
		if !hit {
			return
		}
		f := mockserver.Fault{Account: key.Account, Method: method, Path: path, Times: 1}
		retryAfter := ra
		switch faultKinds[k] {
		case "503+Retry-After":
			f.Status, f.RetryAfter = http.StatusServiceUnavailable, &retryAfter
		case "429+Retry-After":
			f.Status, f.RetryAfter = http.StatusTooManyRequests, &retryAfter
		case "drop before commit":
			f.DropConnection = true
		case "drop after commit":
			f.DropConnection, f.AfterCommit = true, true
		case "503 after commit":
			zero := 0
			f.Status, f.AfterCommit, f.RetryAfter = http.StatusServiceUnavailable, true, &zero
		case "delay":
			f.DelayMs = int(cfg.Delay / time.Millisecond)
		}
		if err := srv.InjectFault(f); err != nil {
			fmt.Fprintln(log, "arming a fault:", err)
			return
		}
		armed.Add(1)
		kindMu.Lock()
		rep.FaultKinds[faultKinds[k]]++
		kindMu.Unlock()
	}
	var clientErrors atomic.Int64
	fail := func(what string, err error) bool {
		if err == nil {
			return false
		}
		clientErrors.Add(1)
		fmt.Fprintf(log, "%s: %v\n", what, err)
		return true
	}

	// Products first: every fourth unit sells from its own product, the others share.
	nProducts := max(units/4, 1)
	productIDs := make([]string, nProducts)
	for i := range nProducts {
		sku := fmt.Sprintf("SOAK-%05d", i)
		maybeFault(http.MethodPost, "/api/v1/products")
		p, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: sku, Name: "Soak product", Category: inventory.CategoryConsumable, Price: 1500})
		in.products[sku] = true
		if fail("create product", err) {
			return rep, err
		}
		productIDs[i] = p.ID
	}

	// The hot records every worker writes to at once (set up without faults).
	hotPatient, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Hot", LastName: "Spot", Email: "hot@example.com", Tags: []string{"hot"}})
	if fail("create hot patient", err) {
		return rep, err
	}
	hotInvoice, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: hotPatient.ID,
		LineItems: []billing.LineItemParams{{Description: "hot", Quantity: 1, UnitAmount: medspa.Ptr[int64](int64(units) * 100)}}})
	if fail("create hot invoice", err) {
		return rep, err
	}
	hotProduct, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "SOAK-HOT", Name: "Hot product", Category: inventory.CategoryConsumable, Price: 100})
	if fail("create hot product", err) {
		return rep, err
	}
	in.patients["hot"], in.invoices["hot"], in.products["SOAK-HOT"] = true, true, true

	day := srv.Now(key.Account).Add(24 * time.Hour).Truncate(24 * time.Hour)
	unit := func(i int) {
		prd := productIDs[i%nProducts]
		tag := fmt.Sprintf("soak-%05d", i)
		hotRef := "rcv-hot-" + tag
		in.mu.Lock()
		in.payments[hotInvoice.ID] = append(in.payments[hotInvoice.ID], 100)
		in.receipts[hotRef] = 1
		in.received[hotProduct.ID]++
		in.mu.Unlock()
		maybeFault(http.MethodPost, "/api/v1/payments")
		_, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: hotInvoice.ID, Amount: 100, Method: billing.MethodCash})
		if fail("pay hot invoice", err) {
			return
		}
		maybeFault(http.MethodPost, "/api/v1/inventory/adjust")
		_, _, err = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: hotProduct.ID, Delta: 1, Reason: inventory.ReasonReceived, Reference: hotRef})
		if fail("receive hot product", err) {
			return
		}
		in.mu.Lock()
		in.patients[tag] = true
		in.mu.Unlock()
		var pat *patients.Patient
		maybeFault(http.MethodPost, "/api/v1/patients")
		pat, _, err = c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Soak", LastName: fmt.Sprintf("Unit%05d", i), Email: fmt.Sprintf("soak%05d@example.com", i), Tags: []string{tag}})
		if fail("create patient", err) {
			return
		}

		ref := "rcv-" + tag
		in.mu.Lock()
		in.receipts[ref] = 3
		in.received[prd] += 3
		in.mu.Unlock()
		maybeFault(http.MethodPost, "/api/v1/inventory/adjust")
		_, _, err = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: prd, Delta: 3, Reason: inventory.ReasonReceived, Reference: ref})
		if fail("adjust", err) {
			return
		}

		provider := "prv-" + tag
		in.mu.Lock()
		in.appts[provider] = true
		in.mu.Unlock()
		startAt := day.Add(time.Duration(i%500) * time.Hour)
		maybeFault(http.MethodPost, "/api/v1/appointments")
		apt, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{PatientID: pat.ID, ProviderID: provider, Service: "soak", StartAt: startAt, EndAt: startAt.Add(30 * time.Minute)})
		if fail("create appointment", err) {
			return
		}
		maybeFault(http.MethodPatch, "/api/v1/appointments/"+apt.ID)
		_, _, err = c.Appointments.Update(ctx, apt.ID, &appointments.UpdateParams{Status: medspa.Set(appointments.StatusConfirmed)})
		if fail("confirm appointment", err) {
			return
		}

		desc := "visit " + tag
		in.mu.Lock()
		in.invoices[desc] = true
		in.sold[prd] += 2
		in.mu.Unlock()
		maybeFault(http.MethodPost, "/api/v1/invoices")
		inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: pat.ID, AppointmentID: apt.ID, LineItems: []billing.LineItemParams{
			{Description: desc, Quantity: 1, UnitAmount: medspa.Ptr[int64](10_000)},
			{Description: "product", Quantity: 2, ProductID: prd},
		}})
		if fail("create invoice", err) {
			return
		}
		for _, amount := range []int64{4_000, inv.Total - 4_000} {
			in.mu.Lock()
			in.payments[inv.ID] = append(in.payments[inv.ID], amount)
			in.mu.Unlock()
			maybeFault(http.MethodPost, "/api/v1/payments")
			_, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: amount, Method: billing.MethodCard, CardToken: "tok_visa"})
			if fail("pay", err) {
				return
			}
		}
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(cfg.Workers, 1) {
		wg.Go(func() {
			for i := range work {
				unit(i)
			}
		})
	}
	for i := range units {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	srv.ClearFaults()
	// Requests as the server saw them (the journal): Go's transport also resends a request
	// with an Idempotency-Key by itself when a kept-alive connection drops, unseen by a
	// RoundTripper.
	journal := srv.Requests(key.Account)
	rep.Requests = int64(len(journal) - journalBefore)
	rep.Retries = rep.Requests - calls.Load()
	rep.IntendedWrites = int(calls.Load())
	rep.FaultsArmed = int(armed.Load())
	rep.ClientErrors = clientErrors.Load()
	for _, j := range journal {
		if j.Fault != "" {
			rep.FaultsInjected++
		}
	}
	if ctx.Err() != nil {
		return rep, fmt.Errorf("the workload did not finish in %s", cfg.Timeout)
	}

	// Every event the server emitted reaches the receiver (deliveries are asynchronous).
	for {
		events := rec.Events()
		rcv.mu.Lock()
		delivered := 0
		for _, e := range events {
			if rcv.seen[e.ID] > 0 {
				delivered++
			}
		}
		rep.Events, rep.EventsDelivered, rep.Deliveries = len(events), delivered, rcv.deliveries
		rcv.mu.Unlock()
		if delivered == len(events) || ctx.Err() != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}

	err = checkBooks(srv, key.Account, in, rep)
	audit := srv.AuditEvents(key.Account)
	rep.AuditEvents, rep.AuditOK = len(audit), mockserver.VerifyAuditChain(audit)
	rep.Elapsed = time.Since(start)
	var problems []string
	if err != nil {
		problems = append(problems, err.Error())
	}
	if rep.Duplicates != 0 || rep.LostWrites != 0 {
		problems = append(problems, fmt.Sprintf("%d duplicates, %d lost writes", rep.Duplicates, rep.LostWrites))
	}
	if rep.ClientErrors != 0 {
		problems = append(problems, fmt.Sprintf("%d calls failed despite retries", rep.ClientErrors))
	}
	if !rep.MoneyOK || !rep.StockOK {
		problems = append(problems, "the books do not reconcile")
	}
	if rep.Events != rep.EventsDelivered || rep.Events == 0 {
		problems = append(problems, fmt.Sprintf("%d of %d events delivered", rep.EventsDelivered, rep.Events))
	}
	if !rep.AuditOK {
		problems = append(problems, "the audit chain does not verify")
	}
	if len(problems) > 0 {
		return rep, errors.New(strings.Join(problems, "; "))
	}
	return rep, nil
}

// state is the part of a saved account the books need.
type state struct {
	Patients []struct {
		Tags []string `json:"tags"`
	} `json:"patients"`
	Appointments []struct {
		ProviderID string `json:"providerId"`
	} `json:"appointments"`
	Invoices []struct {
		ID         string `json:"id"`
		AmountPaid int64  `json:"amountPaid"`
		LineItems  []struct {
			Description string `json:"description"`
		} `json:"lineItems"`
	} `json:"invoices"`
	Payments []struct {
		InvoiceID string `json:"invoiceId"`
		Amount    int64  `json:"amount"`
		Status    string `json:"status"`
	} `json:"payments"`
	Products []struct {
		SKU string `json:"sku"`
	} `json:"products"`
	Stock []struct {
		ProductID string `json:"productId"`
		OnHand    int64  `json:"onHand"`
	} `json:"stock"`
	Adjustments []struct {
		ProductID string `json:"productId"`
		Delta     int64  `json:"delta"`
		Reference string `json:"reference"`
	} `json:"adjustments"`
}

// checkBooks compares the server's saved state with what the workload intended.
func checkBooks(srv *mockserver.Server, account string, in *intended, rep *Report) error {
	var sb strings.Builder
	if err := srv.SaveState(&sb); err != nil {
		return err
	}
	var saved struct {
		Accounts map[string]struct {
			Data state `json:"data"`
		} `json:"accounts"`
	}
	if err := json.Unmarshal([]byte(sb.String()), &saved); err != nil {
		return err
	}
	st := saved.Accounts[account].Data
	count := func(want map[string]bool, got []string) {
		n := map[string]int{}
		for _, g := range got {
			n[g]++
		}
		for k := range want {
			switch n[k] {
			case 0:
				rep.LostWrites++
			case 1:
			default:
				rep.Duplicates += n[k] - 1
			}
		}
	}
	var got []string
	for _, p := range st.Patients {
		got = append(got, p.Tags...)
	}
	count(in.patients, got)
	got = got[:0]
	for _, a := range st.Appointments {
		got = append(got, a.ProviderID)
	}
	count(in.appts, got)
	got = got[:0]
	for _, p := range st.Products {
		got = append(got, p.SKU)
	}
	count(in.products, got)
	got = got[:0]
	for _, inv := range st.Invoices {
		if len(inv.LineItems) > 0 {
			got = append(got, inv.LineItems[0].Description)
		}
	}
	count(in.invoices, got)
	receipts := map[string]bool{}
	for r := range in.receipts {
		receipts[r] = true
	}
	got = got[:0]
	for _, a := range st.Adjustments {
		if strings.HasPrefix(a.Reference, "rcv-") {
			got = append(got, a.Reference)
		}
	}
	count(receipts, got)

	// Money: per invoice, the succeeded payments are the intended ones and sum to amountPaid.
	rep.MoneyOK = true
	paid := map[string][]int64{}
	for _, p := range st.Payments {
		if p.Status == "succeeded" {
			paid[p.InvoiceID] = append(paid[p.InvoiceID], p.Amount)
			rep.Paid += p.Amount
		}
	}
	rep.Invoices, rep.Payments = len(st.Invoices), len(st.Payments)
	for _, inv := range st.Invoices {
		var sum int64
		for _, a := range paid[inv.ID] {
			sum += a
		}
		want := in.payments[inv.ID]
		got := paid[inv.ID]
		sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
		sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
		if sum != inv.AmountPaid || fmt.Sprint(want) != fmt.Sprint(got) {
			rep.MoneyOK = false
			if len(got) > len(want) {
				rep.Duplicates += len(got) - len(want)
			} else {
				rep.LostWrites += len(want) - len(got)
			}
		}
	}

	// Stock: onHand is the sum of the product's adjustments, and the intended receipts minus
	// the intended sales.
	rep.StockOK = true
	rep.Products, rep.Adjustments = len(st.Products), len(st.Adjustments)
	sums := map[string]int64{}
	for _, a := range st.Adjustments {
		sums[a.ProductID] += a.Delta
	}
	for _, s := range st.Stock {
		if s.OnHand != sums[s.ProductID] || s.OnHand != in.received[s.ProductID]-in.sold[s.ProductID] {
			rep.StockOK = false
		}
	}
	return nil
}
