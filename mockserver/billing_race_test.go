package mockserver_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/medspa/medspa-go/billing"
)

// Invariants of refunds and voids under concurrency (run with -race): the account's lock makes
// each check-and-apply atomic, so no interleaving of requests breaks them.

// race sends the requests at once (each a method, path and body, then headers "Name: value")
// with the env's key, over the validating client, and returns their statuses in order.
func (c wireAPI) race(reqs [][]string) []int {
	c.t.Helper()
	statuses := make([]int, len(reqs))
	var start, done sync.WaitGroup
	start.Add(1)
	for i, r := range reqs {
		req, err := http.NewRequest(r[0], c.env.URL+r[1], strings.NewReader(r[2]))
		if err != nil {
			c.t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+c.env.Key.Key)
		if r[2] != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		for _, h := range r[3:] {
			k, v, _ := strings.Cut(h, ":")
			req.Header.Set(k, strings.TrimSpace(v))
		}
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			resp, err := c.env.HTTP.Do(req)
			if err != nil {
				c.t.Errorf("%s %s: %v", r[0], r[1], err) // not Fatal: this is not the test's goroutine
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			statuses[i] = resp.StatusCode
		}()
	}
	start.Done()
	done.Wait()
	return statuses
}

func count(statuses []int, status int) int {
	n := 0
	for _, s := range statuses {
		if s == status {
			n++
		}
	}
	return n
}

// TestConcurrentRefundsNeverExceedThePayment: 50 refunds of 250 race for a payment of 10,000:
// exactly 40 succeed, the rest find nothing left, and the amounts add up everywhere.
func TestConcurrentRefundsNeverExceedThePayment(t *testing.T) {
	t.Parallel()
	c := newWireAPI(t)
	pat := c.patient()
	inv := c.id("/api/v1/invoices", `{"patientId":"`+pat+`","lineItems":[{"description":"x","quantity":1,"unitAmount":10000}]}`)
	pay := c.id("/api/v1/payments", `{"invoiceId":"`+inv+`","amount":10000,"method":"card","cardToken":"tok_visa"}`)
	reqs := make([][]string, 50)
	for i := range reqs {
		reqs[i] = []string{http.MethodPost, "/api/v1/refunds", `{"paymentId":"` + pay + `","amount":250}`}
	}
	statuses := c.race(reqs)
	if ok, none := count(statuses, http.StatusCreated), count(statuses, http.StatusConflict); ok != 40 || none != 10 {
		t.Fatalf("statuses %v: %d created, %d refused; want 40 and 10", statuses, ok, none)
	}
	var l struct {
		Data []billing.Refund
		Meta struct{ Total int }
	}
	c.expect(http.StatusOK, http.MethodGet, "/api/v1/refunds?perPage=100&paymentId="+pay, "", &l)
	var sum int64
	for _, r := range l.Data {
		sum += r.Amount
	}
	p, got := c.payment(pay), c.invoice(inv)
	if l.Meta.Total != 40 || sum != 10000 || p.AmountRefunded != 10000 || got.AmountRefunded != 10000 || got.AmountPaid != 10000 {
		t.Fatalf("%d refunds of %d in all; payment refunded %d, invoice refunded %d paid %d",
			l.Meta.Total, sum, p.AmountRefunded, got.AmountRefunded, got.AmountPaid)
	}
}

// TestVoidRacingAPayment: a void and a payment of the same open invoice, sent together, again
// and again: exactly one of them is applied each time, and the invoice shows which.
func TestVoidRacingAPayment(t *testing.T) {
	t.Parallel()
	c := newWireAPI(t)
	pat := c.patient()
	prd := c.product("RACE-1", 100, false, "100")
	const trials = 20
	var reqs [][]string
	invoices := make([]string, trials)
	for i := range invoices {
		invoices[i] = c.id("/api/v1/invoices", `{"patientId":"`+pat+`","lineItems":[{"description":"x","quantity":1,"productId":"`+prd+`"}]}`)
		reqs = append(reqs,
			[]string{http.MethodPost, "/api/v1/invoices/" + invoices[i] + "/void", ""},
			[]string{http.MethodPost, "/api/v1/payments", `{"invoiceId":"` + invoices[i] + `","amount":` + fmt.Sprint(1+i%2*99) + `,"method":"cash"}`})
	}
	statuses := c.race(reqs)
	voids := 0
	for i, id := range invoices {
		void, pay := statuses[2*i], statuses[2*i+1]
		inv := c.invoice(id)
		var l struct{ Meta struct{ Total int } }
		c.expect(http.StatusOK, http.MethodGet, "/api/v1/payments?status=succeeded&invoiceId="+id, "", &l)
		switch {
		case void == http.StatusOK && pay == http.StatusConflict:
			voids++
			if inv.Status != billing.InvoiceVoid || inv.AmountPaid != 0 || l.Meta.Total != 0 {
				t.Errorf("void won, but invoice %+v with %d payments", inv, l.Meta.Total)
			}
		case void == http.StatusConflict && pay == http.StatusCreated:
			if inv.Status == billing.InvoiceVoid || inv.AmountPaid == 0 || l.Meta.Total != 1 {
				t.Errorf("payment won, but invoice %+v with %d payments", inv, l.Meta.Total)
			}
		default:
			t.Errorf("trial %d: void %d, payment %d: want exactly one applied", i, void, pay)
		}
	}
	// Each voided invoice gave its unit back, once.
	if s := c.stock(prd); s.OnHand != 100-trials+int64(voids) {
		t.Fatalf("on hand %d after %d voids of %d sales", s.OnHand, voids, trials)
	}
}

// TestVoidReturnsStockOnce: the same void, sent 30 times at once with one Idempotency-Key and 10
// times without, returns the stock exactly once; every keyed answer is the one void's.
func TestVoidReturnsStockOnce(t *testing.T) {
	t.Parallel()
	c := newWireAPI(t)
	pat := c.patient()
	plain := c.product("ONCE-1", 100, false, "10")
	tracked := c.product("ONCE-2", 100, true, "L1:2031-01-01:2", "L2:2031-02-01:2")
	inv := c.id("/api/v1/invoices", `{"patientId":"`+pat+`","lineItems":[`+
		`{"description":"x","quantity":7,"productId":"`+plain+`"},{"description":"y","quantity":3,"productId":"`+tracked+`"}]}`)
	rec := c.env.Server.RecordEvents(c.env.Key.Account)
	defer rec.Stop()
	var reqs [][]string
	for i := range 40 {
		r := []string{http.MethodPost, "/api/v1/invoices/" + inv + "/void", `{"reason":"twice?"}`}
		if i%4 != 3 {
			r = append(r, "Idempotency-Key: void-once")
		}
		reqs = append(reqs, r)
	}
	statuses := c.race(reqs)
	applied := 0
	for _, e := range rec.Events() {
		if e.Type == "invoice.voided" {
			applied++
		}
	}
	// A keyed request answers the void (200, first or replayed) or finds its twin still running
	// (409 idempotency_key_in_use); an unkeyed one may void, or find the invoice void (409).
	if applied != 1 || count(statuses, http.StatusOK)+count(statuses, http.StatusConflict) != len(statuses) || count(statuses, http.StatusOK) == 0 {
		t.Fatalf("statuses %v, %d invoice.voided events; want exactly one void", statuses, applied)
	}
	if s := c.stock(plain); s.OnHand != 10 {
		t.Fatalf("plain on hand %d, want 10", s.OnHand)
	}
	if s := c.stock(tracked); s.OnHand != 4 || fmt.Sprint(lots(s)) != "[L1:2031-01-01:2 L2:2031-02-01:2]" {
		t.Fatalf("lots %v, want both back whole", lots(s))
	}
	// A retry with the key replays the key's first answer (200, or 409 when an unkeyed twin
	// voided first), and moves nothing.
	resp, b := c.env.Do(t, http.MethodPost, "/api/v1/invoices/"+inv+"/void", `{"reason":"twice?"}`, "Idempotency-Key: void-once")
	if resp.Header.Get("Idempotent-Replayed") != "true" || (resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusConflict) {
		t.Fatalf("a retried void: %d %s, replayed %q", resp.StatusCode, b, resp.Header.Get("Idempotent-Replayed"))
	}
	if s := c.stock(plain); s.OnHand != 10 {
		t.Fatalf("plain on hand %d after a retry, want 10", s.OnHand)
	}
}
