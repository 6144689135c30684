package reports_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/reports"
)

var day = time.Date(2026, time.November, 20, 0, 0, 0, 0, time.UTC)

// exampleClient returns a client of an in-process mock server whose clock is frozen at 3 pm on
// day, with one invoice of $100 paid by card and one of $50 paid in cash.
func exampleClient() *medspa.Client {
	ctx := context.Background()
	srv, err := mockserver.New()
	if err != nil {
		log.Fatal(err)
	}
	c, key, err := srv.NewClient()
	if err != nil {
		log.Fatal(err)
	}
	srv.SetTime(key.Account, day.Add(15*time.Hour))
	p, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	for _, sale := range []struct {
		amount int64
		method billing.PaymentMethod
	}{{10000, billing.MethodCard}, {5000, billing.MethodCash}} {
		inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: p.ID,
			LineItems: []billing.LineItemParams{{Description: "Facial", Quantity: 1, UnitAmount: medspa.Ptr[int64](sale.amount)}}})
		if err != nil {
			log.Fatal(err)
		}
		pay := &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: sale.amount, Method: sale.method}
		if sale.method == billing.MethodCard {
			pay.CardToken = billing.TokenVisa
		}
		if _, _, err := c.Payments.Create(ctx, pay); err != nil {
			log.Fatal(err)
		}
	}
	return c
}

// The revenue report: amounts collected and invoiced per bucket, in minor units.
func ExampleService_Revenue() {
	c := exampleClient()
	rev, _, err := c.Reports.Revenue(context.Background(), &reports.RevenueParams{
		From: day, To: day.AddDate(0, 0, 1), Timezone: "UTC", GroupBy: reports.GroupByDay,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rev.Data {
		fmt.Println(r.Key, r.Collected, r.Payments, r.Invoiced, r.Invoices)
	}
	// Output: 2026-11-20 15000 2 15000 2
}

// A custom report groups a source's records by fields and computes metrics; Decode reads the
// rows into structs.
func ExampleService_Custom() {
	c := exampleClient()
	r, _, err := c.Reports.Custom(context.Background(), &reports.CustomParams{
		From: day, To: day.AddDate(0, 0, 1),
		Source:  reports.SourcePayments,
		GroupBy: []reports.Dimension{"method"},
		Metrics: []reports.Metric{reports.MetricCount, reports.Sum("amount")},
		Filters: []reports.Filter{reports.Where("status", "succeeded")},
	})
	if err != nil {
		log.Fatal(err)
	}
	type row struct {
		Method string
		Count  int64
		Sum    int64 `report:"sum:amount"`
	}
	rows, err := reports.Decode[row](r)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Columns)
	for _, x := range rows {
		fmt.Println(x.Method, x.Count, x.Sum)
	}
	// Output:
	// [method count sum:amount]
	// card 1 10000
	// cash 1 5000
}

// Any report downloads as CSV; the caller reads and closes the body.
func ExampleService_CSV() {
	c := exampleClient()
	body, _, err := c.Reports.CSV(context.Background(), reports.NameRevenue, &reports.RevenueParams{
		From: day, To: day.AddDate(0, 0, 1), GroupBy: reports.GroupByDay,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer body.Close()
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		fmt.Println(sc.Text())
	}
	// Output:
	// key,collected,payments,invoiced,invoices,refunded,net
	// 2026-11-20,15000,2,15000,2,0,15000
}

// The appointments report counts appointments by status (or day, week, month, provider,
// service) with no-show and cancellation rates.
func ExampleService_Appointments() {
	c := exampleClient()
	ctx := context.Background()
	p, _, _ := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Grace", LastName: "Hopper", Email: "grace@example.com"})
	for i, to := range []appointments.Status{appointments.StatusCheckedIn, appointments.StatusNoShow, appointments.StatusCancelled} {
		start := day.Add(time.Duration(9+i) * time.Hour)
		ap, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{
			PatientID: p.ID, ProviderID: "prv_9", Service: "Facial", StartAt: start, EndAt: start.Add(30 * time.Minute),
		})
		if err != nil {
			log.Fatal(err)
		}
		if _, _, err := c.Appointments.Update(ctx, ap.ID, &appointments.UpdateParams{Status: medspa.Set(to)}); err != nil {
			log.Fatal(err)
		}
	}
	r, _, err := c.Reports.Appointments(ctx, &reports.AppointmentsParams{
		From: day, To: day.AddDate(0, 0, 1), GroupBy: reports.GroupByStatus,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, row := range r.Data {
		fmt.Println(row.Key, row.Total)
	}
	fmt.Println("no-show rate", r.Totals.NoShowRate, "cancellation rate", r.Totals.CancellationRate)
	// Output:
	// cancelled 1
	// checked_in 1
	// no_show 1
	// no-show rate 1 cancellation rate 0.3333
}

// The patients report counts new, active and returning patients per bucket.
func ExampleService_Patients() {
	c := exampleClient()
	r, _, err := c.Reports.Patients(context.Background(), &reports.PatientsParams{
		From: day.AddDate(0, 0, -19), To: day.AddDate(0, 0, 11), GroupBy: reports.GroupByMonth,
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, row := range r.Data {
		fmt.Println(row.Key, row.NewPatients, row.ActivePatients)
	}
	// Output: 2026-11 1 0
}

// A filter value holding a comma would be split into two values on the wire, so the SDK
// refuses it before sending anything; so does a report name that does not exist.
func ExampleWhere() {
	c := exampleClient()
	ctx := context.Background()
	_, _, err := c.Reports.Custom(ctx, &reports.CustomParams{
		Source:  reports.SourcePayments,
		Filters: []reports.Filter{reports.Where("method", "card,cash")},
	})
	fmt.Println(errors.Is(err, medspa.ErrInvalidArgument))
	fmt.Println(err)

	_, _, err = c.Reports.CSV(ctx, "revnue", nil)
	fmt.Println(errors.Is(err, medspa.ErrInvalidArgument))
	// Output:
	// true
	// medspa: invalid argument: reports.CustomParams.Filters[0]: reports.Filter on method: value 0 holds a comma, which the wire form would split
	// true
}
