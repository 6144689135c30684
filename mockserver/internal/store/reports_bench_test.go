package store

import (
	"fmt"
	"testing"
	"time"

	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/patients"
)

// benchStart is the first seeded instant; seeded records span ~347 days from it.
var benchStart = time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)

// benchAccount returns an account whose clock is frozen after the seeded year, with n
// patients.
func benchAccount(b *testing.B, patientsN int) *Account {
	b.Helper()
	clk := clock.New()
	clk.Set(benchStart.AddDate(1, 0, 0))
	a := New(Options{Clock: clk}).Account("bench")
	for i := range patientsN {
		if _, err := a.createPatient(patients.Patient{FirstName: "B", LastName: fmt.Sprint(i), Email: "b@example.com"}, benchStart); err != nil {
			b.Fatal(err)
		}
	}
	return a
}

// seedAppointments books n appointments through the store, one every 5 minutes (30 minutes
// long, 100 providers, patients round-robin), and cancels every fifth.
func seedAppointments(b *testing.B, a *Account, n int) []string {
	b.Helper()
	pats := a.data.Patients.all()
	ids := make([]string, n)
	for i := range n {
		start := benchStart.Add(time.Duration(i) * 5 * time.Minute)
		st := appointments.StatusScheduled
		if i%2 == 1 {
			st = appointments.StatusConfirmed
		}
		ap, err := a.createAppointment(appointments.Appointment{
			PatientID: pats[i%len(pats)].ID, ProviderID: fmt.Sprintf("prv_%02d", i%100), Service: fmt.Sprintf("service %d", i%7),
			StartAt: start, EndAt: start.Add(30 * time.Minute), Status: st,
		}, start.Add(-24*time.Hour))
		if err != nil {
			b.Fatal(err)
		}
		if i%5 == 0 {
			if err := a.CancelAppointment(ap.ID); err != nil {
				b.Fatal(err)
			}
		}
		ids[i] = ap.ID
	}
	return ids
}

func BenchmarkAppointmentsReport100k(b *testing.B) {
	a := benchAccount(b, 1000)
	seedAppointments(b, a, 100_000)
	for _, groupBy := range []string{"status", "day", "week", "provider"} {
		b.Run(groupBy, func(b *testing.B) {
			r, errs := ParseReport("appointments", ReportQuery{
				From: "2025-12-01T00:00:00Z", To: "2026-12-01T00:00:00Z", Timezone: "America/New_York", GroupBy: groupBy,
			}, a.Now())
			if errs != nil {
				b.Fatal(errs)
			}
			b.ReportAllocs()
			for b.Loop() {
				a.AppointmentsReport(r)
			}
			if got := a.AppointmentsReport(r).Totals.Total; got != 100_000 {
				b.Fatalf("total %d, want 100000", got)
			}
		})
	}
}

// seedPayments creates n/2 invoices through the store (one every 10 minutes, 20000 each, most
// on one of the appointments) and pays each in two payments, one by card and one in cash.
func seedPayments(b *testing.B, a *Account, n int, appts []string) {
	b.Helper()
	pats := a.data.Patients.all()
	amount := int64(10000)
	for i := range n / 2 {
		at := benchStart.Add(time.Duration(i) * 10 * time.Minute)
		p := billing.InvoiceCreateParams{
			PatientID: pats[i%len(pats)].ID,
			LineItems: []billing.LineItemParams{{Description: "visit", Quantity: 2, UnitAmount: &amount}},
		}
		if i%10 != 0 {
			p.AppointmentID = appts[i%len(appts)]
		}
		inv, err := a.createInvoice(p, at)
		if err != nil {
			b.Fatal(err)
		}
		for k, m := range []billing.PaymentMethod{billing.MethodCard, billing.MethodCash} {
			pay := billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: amount, Method: m}
			if m == billing.MethodCard {
				pay.CardToken = billing.TokenVisa
			}
			if _, err := a.createPayment(pay, at.Add(time.Duration(k+1)*time.Minute)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkRevenueReport100k(b *testing.B) {
	a := benchAccount(b, 1000)
	appts := seedAppointments(b, a, 1000)
	seedPayments(b, a, 100_000, appts)
	for _, groupBy := range []string{"day", "week", "month", "provider", "service"} {
		b.Run(groupBy, func(b *testing.B) {
			r, errs := ParseReport("revenue", ReportQuery{
				From: "2025-12-01T00:00:00Z", To: "2026-12-01T00:00:00Z", Timezone: "America/New_York", GroupBy: groupBy,
			}, a.Now())
			if errs != nil {
				b.Fatal(errs)
			}
			b.ReportAllocs()
			for b.Loop() {
				a.RevenueReport(r)
			}
			if got := a.RevenueReport(r).Totals; got.Payments != 100_000 || got.Collected != 1_000_000_000 || got.Invoices != 50_000 {
				b.Fatalf("totals %+v", got)
			}
		})
	}
}
