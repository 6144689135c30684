package mockserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/reports"
)

// A defaulted to is the end of the clock's current second (docs/protocol.md §9 "Reports"): what
// a test writes under a frozen clock is in the default revenue and patients reports.
func TestReportDefaultWindowHoldsWhatWasJustWritten(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	ts := mockserver.NewTest(t, mockserver.WithStartTime(start))
	c, ctx := ts.Client, context.Background()
	inv := payInvoice(t, c) // a patient, an invoice and its payment

	rev, _, err := c.Reports.Revenue(ctx, &reports.RevenueParams{GroupBy: reports.GroupByDay})
	if err != nil {
		t.Fatal(err)
	}
	if want := start.Add(time.Second); !rev.To.Equal(want) || !rev.From.Equal(want.AddDate(0, 0, -30)) {
		t.Errorf("default window [%s, %s), want [%s, %s)", rev.From, rev.To, want.AddDate(0, 0, -30), want)
	}
	want := reports.RevenueTotals{Collected: inv.AmountDue, Payments: 1, Invoiced: inv.Total, Invoices: 1, Net: inv.AmountDue}
	if rev.Totals != want || len(rev.Data) != 1 || rev.Data[0].Key != "2026-11-22" {
		t.Errorf("default revenue report: totals %+v rows %+v, want totals %+v in one row 2026-11-22", rev.Totals, rev.Data, want)
	}
	pr, _, err := c.Reports.Patients(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Totals.NewPatients != 1 || len(pr.Data) != 1 || pr.Data[0].Key != "2026-11" {
		t.Errorf("default patients report: totals %+v rows %+v, want one new patient in 2026-11", pr.Totals, pr.Data)
	}

	// The next second starts a new window: what was written at its first instant is inside,
	// and an explicit to stays exclusive.
	ts.AdvanceTime(time.Second)
	rev, _, err = c.Reports.Revenue(ctx, &reports.RevenueParams{To: start})
	if err != nil {
		t.Fatal(err)
	}
	if rev.Totals != (reports.RevenueTotals{}) {
		t.Errorf("explicit to at the write's instant: totals %+v, want none (to is exclusive)", rev.Totals)
	}
}

// Over HTTP, under real time: a default report right after a payment includes it, and its to is
// a whole second after the payment's createdAt.
func TestReportDefaultWindowOverHTTP(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, nil)
	_, body := e.Do(t, http.MethodPost, "/api/v1/patients", `{"firstName":"A","lastName":"B","email":"a@b.co"}`)
	var p struct{ ID string }
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	_, body = e.Do(t, http.MethodPost, "/api/v1/invoices",
		`{"patientId":"`+p.ID+`","lineItems":[{"description":"Peel","quantity":1,"unitAmount":5000}]}`)
	var inv struct {
		ID        string
		AmountDue int64
	}
	if err := json.Unmarshal(body, &inv); err != nil {
		t.Fatal(err)
	}
	resp, body := e.Do(t, http.MethodPost, "/api/v1/payments",
		`{"invoiceId":"`+inv.ID+`","amount":5000,"method":"card","cardToken":"tok_visa"}`)
	var pay struct{ CreatedAt time.Time }
	if err := json.Unmarshal(body, &pay); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("payment: %d %s", resp.StatusCode, body)
	}
	for _, path := range []string{"/api/v1/reports/revenue", "/api/v1/reports/patients"} {
		resp, body = e.Do(t, http.MethodGet, path, "")
		var r struct {
			To     time.Time
			Totals map[string]int64
		}
		if err := json.Unmarshal(body, &r); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
		if r.To.Before(pay.CreatedAt.Add(time.Second)) {
			t.Errorf("%s: to %s, want at least a second after the payment's createdAt %s", path, r.To, pay.CreatedAt)
		}
		metric, want := "collected", int64(5000)
		if path == "/api/v1/reports/patients" {
			metric, want = "newPatients", 1
		}
		if r.Totals[metric] != want {
			t.Errorf("%s: totals %v, want %s %d", path, r.Totals, metric, want)
		}
	}
}
