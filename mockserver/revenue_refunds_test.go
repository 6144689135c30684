package mockserver_test

import (
	"encoding/csv"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/reports"
)

// revenueWorld is random billing data: invoices (some on appointments), payments of them and
// refunds of those, each at a random time around a report window.
type revenueWorld struct {
	appts    []revenueAppt
	invoices []revenueInvoice
	payments []revenueMoney // of invoices[of]
	refunds  []revenueMoney // of payments[of]
}

type revenueAppt struct{ provider, service string }

type revenueInvoice struct {
	appt  int // index into appts, or -1
	total int64
	at    time.Time
}

type revenueMoney struct {
	of     int
	amount int64
	at     time.Time
}

// newRevenueWorld draws a world with times in [from−5 days, to+5 days).
func newRevenueWorld(rnd *rand.Rand, from, to time.Time) revenueWorld {
	span := to.Sub(from) + 10*24*time.Hour
	when := func(after time.Time) time.Time {
		t := from.Add(-5*24*time.Hour + time.Duration(rnd.Int64N(int64(span/time.Second)))*time.Second)
		if t.Before(after) {
			return after.Add(time.Duration(rnd.IntN(3*24*3600)) * time.Second)
		}
		return t
	}
	var w revenueWorld
	for i := range 4 {
		w.appts = append(w.appts, revenueAppt{provider: fmt.Sprintf("prv_%d", i%3), service: []string{"botox", "filler"}[i%2]})
	}
	// parts calls each with up to n random parts of total, each at a time after after.
	parts := func(total int64, n int, after time.Time, each func(amount int64, at time.Time)) {
		for left := total; n > 0 && left > 0; n-- {
			amount := 1 + rnd.Int64N(left)
			left -= amount
			each(amount, when(after))
		}
	}
	for range 6 + rnd.IntN(12) {
		inv := revenueInvoice{appt: rnd.IntN(len(w.appts)+1) - 1, total: 1000 + rnd.Int64N(50_000), at: when(time.Time{})}
		w.invoices = append(w.invoices, inv)
		parts(inv.total, rnd.IntN(4), inv.at, func(amount int64, at time.Time) {
			w.payments = append(w.payments, revenueMoney{of: len(w.invoices) - 1, amount: amount, at: at})
			parts(amount, rnd.IntN(3), at, func(amount int64, at time.Time) {
				w.refunds = append(w.refunds, revenueMoney{of: len(w.payments) - 1, amount: amount, at: at})
			})
		})
	}
	return w
}

// fixtures is the world as fixtures (times as createdAt): one patient per appointment.
func (w revenueWorld) fixtures() mockserver.Fixtures {
	var fx mockserver.Fixtures
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	for i, a := range w.appts {
		fx.Patients = append(fx.Patients, map[string]any{"firstName": "P", "lastName": strconv.Itoa(i), "email": "p@example.com"})
		s := start.Add(time.Duration(i) * 2 * time.Hour)
		fx.Appointments = append(fx.Appointments, map[string]any{"patientId": fmt.Sprintf("@patients.%d", i), "providerId": a.provider,
			"service": a.service, "startAt": s.Format(time.RFC3339), "endAt": s.Add(time.Hour).Format(time.RFC3339)})
	}
	for _, inv := range w.invoices {
		item := map[string]any{"patientId": "@patients.0", "createdAt": inv.at.Format(time.RFC3339),
			"lineItems": []any{map[string]any{"description": "treatment", "quantity": 1, "unitAmount": inv.total}}}
		if inv.appt >= 0 {
			item["patientId"], item["appointmentId"] = fmt.Sprintf("@patients.%d", inv.appt), fmt.Sprintf("@appointments.%d", inv.appt)
		}
		fx.Invoices = append(fx.Invoices, item)
	}
	for _, p := range w.payments {
		fx.Payments = append(fx.Payments, map[string]any{"invoiceId": fmt.Sprintf("@invoices.%d", p.of), "amount": p.amount,
			"method": "cash", "createdAt": p.at.Format(time.RFC3339)})
	}
	for _, r := range w.refunds {
		fx.Refunds = append(fx.Refunds, map[string]any{"paymentId": fmt.Sprintf("@payments.%d", r.of), "amount": r.amount,
			"createdAt": r.at.Format(time.RFC3339)})
	}
	return fx
}

// expect computes the revenue report of the world from its own data: every bucket's metrics
// and the totals, in the window [from, to), buckets in loc.
func (w revenueWorld) expect(groupBy string, from, to time.Time, loc *time.Location) (map[string]*reports.RevenueTotals, reports.RevenueTotals) {
	rows := map[string]*reports.RevenueTotals{}
	var tot reports.RevenueTotals
	key := func(at time.Time, invoice int) string {
		lt := at.In(loc)
		switch groupBy {
		case "day":
			return lt.Format(time.DateOnly)
		case "week":
			y, wk := lt.ISOWeek()
			return fmt.Sprintf("%04d-W%02d", y, wk)
		case "month":
			return lt.Format("2006-01")
		}
		a := w.invoices[invoice].appt
		switch {
		case a < 0:
			return "unassigned"
		case groupBy == "provider":
			return w.appts[a].provider
		}
		return w.appts[a].service
	}
	in := func(at time.Time) bool { return !at.Before(from) && at.Before(to) }
	row := func(k string) *reports.RevenueTotals {
		if rows[k] == nil {
			rows[k] = &reports.RevenueTotals{}
		}
		return rows[k]
	}
	for i, inv := range w.invoices {
		if in(inv.at) {
			r := row(key(inv.at, i))
			r.Invoiced, r.Invoices = r.Invoiced+inv.total, r.Invoices+1
			tot.Invoiced, tot.Invoices = tot.Invoiced+inv.total, tot.Invoices+1
		}
	}
	for _, p := range w.payments {
		if in(p.at) {
			r := row(key(p.at, p.of))
			r.Collected, r.Payments = r.Collected+p.amount, r.Payments+1
			tot.Collected, tot.Payments = tot.Collected+p.amount, tot.Payments+1
		}
	}
	for _, rf := range w.refunds {
		if in(rf.at) {
			row(key(rf.at, w.payments[rf.of].of)).Refunded += rf.amount
			tot.Refunded += rf.amount
		}
	}
	for _, r := range rows {
		r.Net = r.Collected - r.Refunded
	}
	tot.Net = tot.Collected - tot.Refunded
	return rows, tot
}

// TestRevenueReconciles: for random payments and refunds in random time zones, every bucket and
// the totals satisfy net = collected − refunded, the buckets are exactly what the data says
// (refunds by their createdAt, provider and service through the invoice's appointment), they add
// up to the totals, and the CSV has the same rows.
func TestRevenueReconciles(t *testing.T) {
	t.Parallel()
	env := newWireAPI(t).env
	zones := []string{"UTC", "America/New_York", "Europe/Berlin", "Asia/Kolkata", "Pacific/Auckland", "America/St_Johns"}
	for seed := range uint64(8) {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			t.Parallel()
			rnd := rand.New(rand.NewPCG(seed, 20))
			zone := zones[rnd.IntN(len(zones))]
			loc, err := time.LoadLocation(zone)
			if err != nil {
				t.Fatal(err)
			}
			// A window across daylight-saving changes, local midnight to local midnight.
			from, to := time.Date(2026, 3, 1, 0, 0, 0, 0, loc), time.Date(2026, 4, 15, 0, 0, 0, 0, loc)
			w := newRevenueWorld(rnd, from, to)
			key := env.NewKey(t, mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
			if _, err := env.Server.LoadFixtures(key.Account, w.fixtures()); err != nil {
				t.Fatalf("fixtures: %v", err)
			}
			c := wireAPI{t: t, env: env, key: key.Key}
			query := "from=2026-03-01&to=2026-04-15&timezone=" + zone
			for _, groupBy := range []string{"day", "week", "month", "provider", "service"} {
				var r reports.RevenueReport
				c.expect(http.StatusOK, http.MethodGet, "/api/v1/reports/revenue?"+query+"&groupBy="+groupBy, "", &r)
				wantRows, wantTot := w.expect(groupBy, from, to, loc)
				var sum reports.RevenueTotals
				for _, d := range r.Data {
					if d.Net != d.Collected-d.Refunded {
						t.Errorf("%s %s: net %d ≠ collected %d − refunded %d", groupBy, d.Key, d.Net, d.Collected, d.Refunded)
					}
					sum.Collected, sum.Payments, sum.Invoiced = sum.Collected+d.Collected, sum.Payments+d.Payments, sum.Invoiced+d.Invoiced
					sum.Invoices, sum.Refunded, sum.Net = sum.Invoices+d.Invoices, sum.Refunded+d.Refunded, sum.Net+d.Net
					if want := wantRows[d.Key]; want == nil || d.RevenueTotals != *want {
						t.Errorf("%s %s: %+v, want %+v", groupBy, d.Key, d.RevenueTotals, want)
					}
				}
				if r.Totals.Net != r.Totals.Collected-r.Totals.Refunded || r.Totals != wantTot || sum != r.Totals {
					t.Errorf("%s totals %+v, want %+v (the rows add up to %+v)", groupBy, r.Totals, wantTot, sum)
				}
				if keys := slices.Sorted(maps.Keys(wantRows)); len(keys) != len(r.Data) {
					t.Errorf("%s: %d rows, want %v", groupBy, len(r.Data), keys)
				}
				// The CSV: the protocol's header, then the same rows in the same order.
				resp, body := env.Do(t, http.MethodGet, "/api/v1/reports/revenue?"+query+"&groupBy="+groupBy, "",
					"Authorization: Bearer "+key.Key, "Accept: text/csv")
				lines, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
				if resp.StatusCode != http.StatusOK || err != nil {
					t.Fatalf("CSV: %d %v %s", resp.StatusCode, err, body)
				}
				want := [][]string{{"key", "collected", "payments", "invoiced", "invoices", "refunded", "net"}}
				for _, d := range r.Data {
					want = append(want, []string{d.Key, i64s(d.Collected), i64s(d.Payments), i64s(d.Invoiced), i64s(d.Invoices),
						i64s(d.Refunded), i64s(d.Net)})
				}
				if !slices.EqualFunc(lines, want, slices.Equal) {
					t.Errorf("%s CSV:\n%q\nwant\n%q", groupBy, lines, want)
				}
			}
		})
	}
}

func i64s(n int64) string { return strconv.FormatInt(n, 10) }
