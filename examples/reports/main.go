// Reports seeds a month of activity in the embedded mock server through the SDK, prints the
// revenue, appointments, patients and a custom report as aligned tables, and downloads one as
// CSV into a file it names.
//
//	go run ./examples/reports
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/reports"
)

func main() {
	if _, err := run(context.Background(), os.Stdout, os.TempDir()); err != nil {
		log.Fatal(err)
	}
}

// month is the seeded month; the reports run as of its end.
var (
	monthStart = time.Date(2026, time.October, 1, 0, 0, 0, 0, time.UTC)
	monthEnd   = monthStart.AddDate(0, 1, 0)
)

// run seeds, reports, and returns the path of the CSV file it wrote in dir.
func run(ctx context.Context, out io.Writer, dir string) (string, error) {
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	c, key, err := srv.NewClient()
	if err != nil {
		return "", err
	}
	if err := seed(ctx, srv, key.Account, c); err != nil {
		return "", err
	}
	srv.SetTime(key.Account, monthEnd) // "now" is the end of the month: the default window covers it

	window := reports.Params{From: monthStart, To: monthEnd, Timezone: "America/New_York"}

	rev, _, err := c.Reports.Revenue(ctx, &reports.RevenueParams{From: window.From, To: window.To, Timezone: window.Timezone, GroupBy: reports.GroupByWeek})
	if err != nil {
		return "", err
	}
	rows := [][]any{{"week", "collected", "payments", "invoiced", "invoices"}}
	for _, d := range rev.Data {
		rows = append(rows, []any{d.Key, money(d.Collected), d.Payments, money(d.Invoiced), d.Invoices})
	}
	rows = append(rows, []any{"total", money(rev.Totals.Collected), rev.Totals.Payments, money(rev.Totals.Invoiced), rev.Totals.Invoices})
	if err := table(out, "Revenue by week", rows); err != nil {
		return "", err
	}

	apts, _, err := c.Reports.Appointments(ctx, &reports.AppointmentsParams{From: window.From, To: window.To, Timezone: window.Timezone})
	if err != nil {
		return "", err
	}
	rows = [][]any{{"status", "total", "no-show rate", "cancellation rate"}}
	for _, d := range apts.Data {
		rows = append(rows, []any{d.Key, d.Total, d.NoShowRate, d.CancellationRate})
	}
	rows = append(rows, []any{"total", apts.Totals.Total, apts.Totals.NoShowRate, apts.Totals.CancellationRate})
	if err := table(out, "Appointments by status", rows); err != nil {
		return "", err
	}

	pats, _, err := c.Reports.Patients(ctx, &reports.PatientsParams{From: window.From, To: window.To, Timezone: window.Timezone, GroupBy: reports.GroupByWeek})
	if err != nil {
		return "", err
	}
	rows = [][]any{{"week", "new", "active", "returning"}}
	for _, d := range pats.Data {
		rows = append(rows, []any{d.Key, d.NewPatients, d.ActivePatients, d.ReturningPatients})
	}
	rows = append(rows, []any{"total", pats.Totals.NewPatients, pats.Totals.ActivePatients, pats.Totals.ReturningPatients})
	if err := table(out, "Patients by week", rows); err != nil {
		return "", err
	}

	custom := &reports.CustomParams{
		From: window.From, To: window.To, Timezone: window.Timezone,
		Source: reports.SourcePayments, GroupBy: []reports.Dimension{"method", "status"}, Metrics: []reports.Metric{"count", "sum:amount", "avg:amount"},
	}
	cr, _, err := c.Reports.Custom(ctx, custom)
	if err != nil {
		return "", err
	}
	type byMethod struct {
		Method, Status string
		Count          int64
		Sum            int64   `report:"sum:amount"`
		Avg            float64 `report:"avg:amount"`
	}
	methods, err := reports.Decode[byMethod](cr)
	if err != nil {
		return "", err
	}
	rows = [][]any{{"method", "status", "payments", "amount", "average"}}
	for _, m := range methods {
		rows = append(rows, []any{m.Method, m.Status, m.Count, money(m.Sum), money(int64(m.Avg))})
	}
	if err := table(out, "Custom: payments by method", rows); err != nil {
		return "", err
	}

	// The revenue report as CSV, streamed to a file.
	body, _, err := c.Reports.CSV(ctx, reports.NameRevenue, &reports.RevenueParams{From: window.From, To: window.To, Timezone: window.Timezone, GroupBy: reports.GroupByDay})
	if err != nil {
		return "", err
	}
	defer body.Close()
	f, err := os.CreateTemp(dir, "medspa-revenue-*.csv")
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, body); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	path := filepath.Clean(f.Name())
	fmt.Fprintf(out, "\nrevenue by day written to %s\n", path)
	return path, nil
}

// seed creates the month's activity: 1–3 new patients a day, three visits a day with three
// providers (most completed, some no-shows and cancellations, the last few still scheduled),
// an invoice for every completed visit and its payments.
// The account's clock moves to each record's time so that records carry realistic timestamps.
func seed(ctx context.Context, srv *mockserver.Server, account string, c *medspa.Client) error {
	var pats []string
	for day := range 30 {
		for i := range day%3 + 1 {
			srv.SetTime(account, monthStart.AddDate(0, 0, day).Add(time.Duration(14+i)*time.Hour))
			p, _, err := c.Patients.Create(ctx, &patients.CreateParams{
				FirstName: "Client", LastName: fmt.Sprintf("D%02dN%d", day+1, i), Email: fmt.Sprintf("client.%d.%d@example.com", day, i),
			})
			if err != nil {
				return err
			}
			pats = append(pats, p.ID)
		}
	}
	type visit struct {
		id, patientID, service string
		endAt                  time.Time
		status                 appointments.Status
		n                      int
	}
	var visits []visit
	srv.SetTime(account, monthStart.Add(-24*time.Hour)) // booked ahead
	services := []string{"Botox", "Filler", "HydraFacial"}
	for day := range 30 {
		for k := range 3 {
			i := day*3 + k
			start := monthStart.AddDate(0, 0, day).Add(time.Duration(15+k) * time.Hour)
			ap, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{
				PatientID: pats[i%20], ProviderID: fmt.Sprintf("prv_%d", k+1), Service: services[(day+k)%3],
				StartAt: start, EndAt: start.Add(45 * time.Minute),
			})
			if err != nil {
				return err
			}
			st := appointments.StatusCompleted
			switch {
			case i%6 == 3:
				st = appointments.StatusNoShow
			case i%6 == 4:
				st = appointments.StatusCancelled
			case i%6 == 5 && day >= 25:
				st = appointments.StatusScheduled
			}
			visits = append(visits, visit{ap.ID, ap.PatientID, ap.Service, ap.EndAt, st, i})
		}
	}
	prices := map[string]int64{"Botox": 45000, "Filler": 70000, "HydraFacial": 20000}
	for _, v := range visits {
		var steps []appointments.Status
		switch v.status {
		case appointments.StatusCompleted:
			steps = []appointments.Status{appointments.StatusCheckedIn, appointments.StatusCompleted}
		case appointments.StatusNoShow, appointments.StatusCancelled:
			steps = []appointments.Status{v.status}
		}
		srv.SetTime(account, v.endAt) // the visit is over: no-shows may be recorded, invoices issued
		for _, st := range steps {
			if _, _, err := c.Appointments.Update(ctx, v.id, &appointments.UpdateParams{Status: medspa.Set(st)}); err != nil {
				return err
			}
		}
		if v.status != appointments.StatusCompleted {
			continue
		}
		// Completed visits are invoiced at checkout (8.25% tax) and paid by card, in full or in
		// part (the rest in cash a week later).
		inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
			PatientID: v.patientID, AppointmentID: v.id, TaxRateBps: 825,
			LineItems: []billing.LineItemParams{{Description: v.service, Quantity: 1, UnitAmount: medspa.Ptr[int64](prices[v.service])}},
		})
		if err != nil {
			return err
		}
		card := inv.Total
		if v.n%4 == 0 {
			card = inv.Total / 2
		}
		if _, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: card, Method: billing.MethodCard, CardToken: billing.TokenVisa}); err != nil {
			return err
		}
		if rest := inv.Total - card; rest > 0 {
			srv.SetTime(account, v.endAt.AddDate(0, 0, 7))
			if _, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: rest, Method: billing.MethodCash}); err != nil {
				return err
			}
		}
	}
	return nil
}

// table prints rows aligned, the first as the header.
func table(out io.Writer, title string, rows [][]any) error {
	fmt.Fprintf(out, "\n%s\n", title)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = fmt.Sprint(v)
			if v == nil {
				cells[i] = "-"
			}
		}
		fmt.Fprintln(w, strings.Join(cells, "\t")+"\t")
	}
	return w.Flush()
}

func money(cents int64) string { return fmt.Sprintf("$%d.%02d", cents/100, cents%100) }
