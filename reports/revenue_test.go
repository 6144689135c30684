package reports_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/reports"
)

// revenueFixture builds, through the API, invoices and payments around the 2026-11-01 DST
// change in New York (EDT −4 → EST −5). The window is [2026-11-01, 2026-11-08) local, that is
// [04:00Z, 05:00Z).
func revenueFixture(t *testing.T, env *testenv.Env) {
	t.Helper()
	visits := []visit{
		{patient: 0, provider: "prv_a", service: "botox", start: "2026-10-30T15:00:00Z", status: appointments.StatusCompleted},
		{patient: 1, provider: "prv_b", service: "filler", start: "2026-11-02T15:00:00Z", status: appointments.StatusCompleted},
	}
	pats := book(t, env, 2, visits)
	a1, a2 := visits[0].id, visits[1].id
	invoice := func(when string, p billing.InvoiceCreateParams) string {
		t.Helper()
		env.Server.SetTime(env.Key.Account, at(when))
		in, _, err := env.Client.Invoices.Create(ctx, &p)
		if err != nil {
			t.Fatalf("invoice at %s: %v", when, err)
		}
		return in.ID
	}
	line := func(qty, unit int64) []billing.LineItemParams {
		return []billing.LineItemParams{{Description: "treatment", Quantity: qty, UnitAmount: medspa.Ptr[int64](unit)}}
	}
	i1 := invoice("2026-11-01T03:30:00Z", billing.InvoiceCreateParams{PatientID: pats[0], AppointmentID: a1, LineItems: line(2, 15000)}) // 10-31 23:30 EDT: outside
	i2 := invoice("2026-11-01T04:30:00Z", billing.InvoiceCreateParams{PatientID: pats[1], AppointmentID: a2, LineItems: line(1, 50000), TaxRateBps: 825})
	i3 := invoice("2026-11-02T04:30:00Z", billing.InvoiceCreateParams{PatientID: pats[0], LineItems: line(1, 2500)}) // 11-01 23:30 EST
	invoice("2026-11-08T05:00:00Z", billing.InvoiceCreateParams{PatientID: pats[1], LineItems: line(1, 999)})        // at `to`: outside
	invoice("2026-11-07T15:00:00Z", billing.InvoiceCreateParams{PatientID: pats[0], AppointmentID: a1, LineItems: line(1, 10000)})

	pay := func(when string, p billing.PaymentCreateParams) error {
		t.Helper()
		env.Server.SetTime(env.Key.Account, at(when))
		_, _, err := env.Client.Payments.Create(ctx, &p)
		return err
	}
	for _, c := range []struct {
		when string
		p    billing.PaymentCreateParams
	}{
		{"2026-11-01T04:00:00Z", billing.PaymentCreateParams{InvoiceID: i1, Amount: 30000, Method: billing.MethodCash}}, // exactly at from
		{"2026-11-02T05:30:00Z", billing.PaymentCreateParams{InvoiceID: i2, Amount: 20000, Method: billing.MethodCard, CardToken: billing.TokenVisa}},
		{"2026-11-03T15:00:00Z", billing.PaymentCreateParams{InvoiceID: i3, Amount: 2500, Method: billing.MethodCash}},
		{"2026-11-08T05:00:00Z", billing.PaymentCreateParams{InvoiceID: i2, Amount: 100, Method: billing.MethodCheck}}, // at `to`: outside
	} {
		if err := pay(c.when, c.p); err != nil {
			t.Fatal(err)
		}
	}
	// A declined card records a failed payment: not collected.
	err := pay("2026-11-02T05:00:00Z", billing.PaymentCreateParams{InvoiceID: i2, Amount: 30000, Method: billing.MethodCard, CardToken: billing.TokenDecline})
	if !errors.Is(err, medspa.ErrCardDeclined) {
		t.Fatalf("declined payment: %v", err)
	}
	env.Server.SetTime(env.Key.Account, at("2026-12-01T00:00:00Z"))
}

func TestRevenueReportOverAPI(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	revenueFixture(t, env)
	type row = reports.RevenueRow
	type m = reports.RevenueTotals
	ny, _ := time.LoadLocation("America/New_York")
	window := reports.RevenueParams{From: time.Date(2026, 11, 1, 0, 0, 0, 0, ny), To: time.Date(2026, 11, 8, 0, 0, 0, 0, ny), Timezone: "America/New_York"}
	// Hand-computed: invoice 2 is 50000 + round_half_up(50000 × 8.25%) = 54125.
	totals := m{Collected: 52500, Payments: 3, Invoiced: 66625, Invoices: 3, Net: 52500}
	for _, c := range []struct {
		groupBy reports.GroupBy
		want    []row
	}{
		{"", []row{ // default: day
			{Key: "2026-11-01", RevenueTotals: m{Collected: 30000, Payments: 1, Invoiced: 56625, Invoices: 2, Net: 30000}},
			{Key: "2026-11-02", RevenueTotals: m{Collected: 20000, Payments: 1, Net: 20000}},
			{Key: "2026-11-03", RevenueTotals: m{Collected: 2500, Payments: 1, Net: 2500}},
			{Key: "2026-11-07", RevenueTotals: m{Invoiced: 10000, Invoices: 1}},
		}},
		{"week", []row{
			{Key: "2026-W44", RevenueTotals: m{Collected: 30000, Payments: 1, Invoiced: 56625, Invoices: 2, Net: 30000}}, // Sunday 11-01
			{Key: "2026-W45", RevenueTotals: m{Collected: 22500, Payments: 2, Invoiced: 10000, Invoices: 1, Net: 22500}},
		}},
		{"month", []row{{Key: "2026-11", RevenueTotals: totals}}},
		{"provider", []row{
			{Key: "prv_a", RevenueTotals: m{Collected: 30000, Payments: 1, Invoiced: 10000, Invoices: 1, Net: 30000}},
			{Key: "prv_b", RevenueTotals: m{Collected: 20000, Payments: 1, Invoiced: 54125, Invoices: 1, Net: 20000}},
			{Key: "unassigned", RevenueTotals: m{Collected: 2500, Payments: 1, Invoiced: 2500, Invoices: 1, Net: 2500}},
		}},
		{"service", []row{
			{Key: "botox", RevenueTotals: m{Collected: 30000, Payments: 1, Invoiced: 10000, Invoices: 1, Net: 30000}},
			{Key: "filler", RevenueTotals: m{Collected: 20000, Payments: 1, Invoiced: 54125, Invoices: 1, Net: 20000}},
			{Key: "unassigned", RevenueTotals: m{Collected: 2500, Payments: 1, Invoiced: 2500, Invoices: 1, Net: 2500}},
		}},
	} {
		p := window
		p.GroupBy = c.groupBy
		r, _, err := env.Client.Reports.Revenue(ctx, &p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, r.Data); diff != "" {
			t.Errorf("groupBy %q (-want +got):\n%s", c.groupBy, diff)
		}
		if r.Totals != totals || r.Currency != "usd" || r.Report != "revenue" {
			t.Errorf("groupBy %q: totals %+v, want %+v (%s %s)", c.groupBy, r.Totals, totals, r.Currency, r.Report)
		}
	}
	// In UTC the invoice of 10-31 23:30 EDT is on 11-01.
	r, _, err := env.Client.Reports.Revenue(ctx, &reports.RevenueParams{From: at("2026-11-01T00:00:00Z"), To: at("2026-11-02T00:00:00Z")})
	if err != nil {
		t.Fatal(err)
	}
	if want := []row{{Key: "2026-11-01", RevenueTotals: m{Collected: 30000, Payments: 1, Invoiced: 84125, Invoices: 2, Net: 30000}}}; !cmp.Equal(want, r.Data) {
		t.Errorf("UTC day: %+v, want %+v", r.Data, want)
	}

	// CSV rows equal the JSON rows.
	p := window
	p.GroupBy = "provider"
	got := readCSV(t, env, reports.NameRevenue, &p)
	want := [][]string{
		{"key", "collected", "payments", "invoiced", "invoices", "refunded", "net"},
		{"prv_a", "30000", "1", "10000", "1", "0", "30000"}, {"prv_b", "20000", "1", "54125", "1", "0", "20000"},
		{"unassigned", "2500", "1", "2500", "1", "0", "2500"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CSV (-want +got):\n%s", diff)
	}
}

// TestRevenueReportRefunds: refunds count by their own createdAt (a payment collected before
// the window may be refunded in it), net = collected − refunded per bucket and in the totals
// (negative where a bucket refunds more than it collects), a void invoice stays invoiced, and
// the CSV has the same rows.
func TestRevenueReportRefunds(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	c, acct := env.Client, env.Key.Account
	p, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	paid := func(when string, amount int64) *billing.Payment {
		t.Helper()
		env.Server.SetTime(acct, at(when))
		inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: p.ID,
			LineItems: []billing.LineItemParams{{Description: "x", Quantity: 1, UnitAmount: medspa.Ptr(amount)}}})
		if err != nil {
			t.Fatal(err)
		}
		pay, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: amount, Method: billing.MethodCash})
		if err != nil {
			t.Fatal(err)
		}
		return pay
	}
	refund := func(when string, pay *billing.Payment, amount int64) {
		t.Helper()
		env.Server.SetTime(acct, at(when))
		if _, _, err := c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID, Amount: medspa.Ptr(amount)}); err != nil {
			t.Fatal(err)
		}
	}
	before := paid("2026-10-31T12:00:00Z", 40000) // collected before the window
	first := paid("2026-11-01T09:00:00Z", 10000)
	second := paid("2026-11-02T09:00:00Z", 20000)
	refund("2026-11-01T10:00:00Z", first, 2500)
	refund("2026-11-03T10:00:00Z", before, 40000) // nothing collected that day
	refund("2026-11-03T11:00:00Z", second, 5000)
	refund("2026-11-04T00:00:00Z", second, 1) // at `to`: outside
	env.Server.SetTime(acct, at("2026-11-02T12:00:00Z"))
	open, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: p.ID,
		LineItems: []billing.LineItemParams{{Description: "raised in error", Quantity: 1, UnitAmount: medspa.Ptr[int64](777)}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Invoices.Void(ctx, open.ID, nil); err != nil {
		t.Fatal(err)
	}
	env.Server.SetTime(acct, at("2026-12-01T00:00:00Z"))

	type m = reports.RevenueTotals
	window := reports.RevenueParams{From: at("2026-11-01T00:00:00Z"), To: at("2026-11-04T00:00:00Z")}
	r, _, err := c.Reports.Revenue(ctx, &window)
	if err != nil {
		t.Fatal(err)
	}
	want := []reports.RevenueRow{
		{Key: "2026-11-01", RevenueTotals: m{Collected: 10000, Payments: 1, Invoiced: 10000, Invoices: 1, Refunded: 2500, Net: 7500}},
		{Key: "2026-11-02", RevenueTotals: m{Collected: 20000, Payments: 1, Invoiced: 20777, Invoices: 2, Net: 20000}},
		{Key: "2026-11-03", RevenueTotals: m{Refunded: 45000, Net: -45000}},
	}
	totals := m{Collected: 30000, Payments: 2, Invoiced: 30777, Invoices: 3, Refunded: 47500, Net: -17500}
	if diff := cmp.Diff(want, r.Data); diff != "" || r.Totals != totals {
		t.Errorf("rows (-want +got):\n%s\ntotals %+v, want %+v", diff, r.Totals, totals)
	}
	got := readCSV(t, env, reports.NameRevenue, &window)
	csv := [][]string{
		{"key", "collected", "payments", "invoiced", "invoices", "refunded", "net"},
		{"2026-11-01", "10000", "1", "10000", "1", "2500", "7500"},
		{"2026-11-02", "20000", "1", "20777", "2", "0", "20000"},
		{"2026-11-03", "0", "0", "0", "0", "45000", "-45000"},
	}
	if diff := cmp.Diff(csv, got); diff != "" {
		t.Errorf("CSV (-want +got):\n%s", diff)
	}
}

func TestCustomReportOverBilling(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	revenueFixture(t, env)
	ny, _ := time.LoadLocation("America/New_York")
	from, to := time.Date(2026, 11, 1, 0, 0, 0, 0, ny), time.Date(2026, 11, 8, 0, 0, 0, 0, ny)
	for _, c := range []struct {
		name   string
		params reports.CustomParams
		cols   []string
		rows   [][]any
	}{
		{"payments by status and method", reports.CustomParams{Source: "payments", GroupBy: []reports.Dimension{"status", "method"}, Metrics: []reports.Metric{"count", "sum:amount"}},
			[]string{"status", "method", "count", "sum:amount"},
			[][]any{{"failed", "card", int64(1), int64(30000)}, {"succeeded", "card", int64(1), int64(20000)}, {"succeeded", "cash", int64(2), int64(32500)}}},
		{"invoice totals", reports.CustomParams{Source: "invoices", Metrics: []reports.Metric{"count", "sum:total", "avg:total", "min:total", "max:total", "sum:tax"}},
			[]string{"count", "sum:total", "avg:total", "min:total", "max:total", "sum:tax"},
			// (54125 + 2500 + 10000) / 3 = 22208.3333…
			[][]any{{int64(3), int64(66625), 22208.3333, int64(2500), int64(54125), int64(4125)}}},
		{"invoices by status, week", reports.CustomParams{Source: "invoices", GroupBy: []reports.Dimension{"week", "status"}, Metrics: []reports.Metric{"sum:amountDue"}},
			[]string{"week", "status", "sum:amountDue"},
			// amountDue is today's: invoice 2 owes 54125 − 20000 − 100 (paid after the window).
			[][]any{{"2026-W44", "paid", int64(0)}, {"2026-W44", "partially_paid", int64(34025)}, {"2026-W45", "open", int64(10000)}}},
		{"card brands", reports.CustomParams{Source: "payments", GroupBy: []reports.Dimension{"cardBrand"}, Filters: []reports.Filter{reports.Where("status", "succeeded")}},
			[]string{"cardBrand", "count"}, [][]any{{"", int64(2)}, {"visa", int64(1)}}},
	} {
		p := c.params
		p.From, p.To, p.Timezone = from, to, "America/New_York"
		r, _, err := env.Client.Reports.Custom(ctx, &p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if diff := cmp.Diff(c.cols, r.Columns); diff != "" {
			t.Errorf("%s columns (-want +got):\n%s", c.name, diff)
		}
		if diff := cmp.Diff(c.rows, r.Rows); diff != "" {
			t.Errorf("%s rows (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestCustomReportOverInventory(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	env.Server.SetTime(env.Key.Account, at("2026-11-01T12:00:00Z"))
	prod, _, err := env.Client.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "BTX-100", Name: "Botox 100u", Category: inventory.CategoryNeurotoxin, Price: 50000})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		when string
		p    inventory.AdjustParams
	}{
		{"2026-11-02T12:00:00Z", inventory.AdjustParams{ProductID: prod.ID, Delta: 10, Reason: inventory.ReasonReceived, Note: "secret note"}},
		{"2026-11-03T12:00:00Z", inventory.AdjustParams{ProductID: prod.ID, Delta: -3, Reason: inventory.ReasonUsed}},
		{"2026-11-04T12:00:00Z", inventory.AdjustParams{ProductID: prod.ID, Location: "east", Delta: 5, Reason: inventory.ReasonReceived}},
		{"2026-11-04T12:00:01Z", inventory.AdjustParams{ProductID: prod.ID, Location: "east", Delta: -4, Reason: inventory.ReasonUsed}},
	} {
		env.Server.SetTime(env.Key.Account, at(c.when))
		if _, _, err := env.Client.Inventory.Adjust(ctx, &c.p); err != nil {
			t.Fatal(err)
		}
	}
	r, _, err := env.Client.Reports.Custom(ctx, &reports.CustomParams{
		From: at("2026-11-01T00:00:00Z"), To: at("2026-11-04T12:00:01Z"), Source: reports.SourceInventoryAdjustments,
		GroupBy: []reports.Dimension{"reason"}, Metrics: []reports.Metric{"count", "sum:delta", "avg:delta", "min:onHandAfter", "max:onHandAfter"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// received: +10 (main, 10 after), +5 (east, 5 after); used: −3 (main, 7 after). The −4 at
	// `to` is outside.
	want := [][]any{{"received", int64(2), int64(15), 7.5, int64(5), int64(10)}, {"used", int64(1), int64(-3), float64(-3), int64(7), int64(7)}}
	if diff := cmp.Diff(want, r.Rows); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	r, _, err = env.Client.Reports.Custom(ctx, &reports.CustomParams{
		From: at("2026-11-01T00:00:00Z"), To: at("2026-11-05T00:00:00Z"), Source: reports.SourceInventoryAdjustments,
		Metrics: []reports.Metric{"avg:delta"}, Filters: []reports.Filter{reports.Where("location", "east"), reports.Where("reason", "used", "received")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]any{{0.5}}, r.Rows); diff != "" { // (5 − 4) / 2
		t.Errorf("east (-want +got):\n%s", diff)
	}
}

// TestReportsCarryNoPHI runs every report, as JSON and CSV, over records full of PHI and
// free text, grouped by every dimension a source allows: none of it comes out.
func TestReportsCarryNoPHI(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	env.Server.SetTime(env.Key.Account, at("2026-11-02T12:00:00Z"))
	p, _, err := env.Client.Patients.Create(ctx, &patients.CreateParams{
		FirstName: "Zelda", LastName: "Secretname", Email: "zelda.secret@example.com", Phone: "+15557654321",
		Notes: "phi-clinical-note", Allergies: []string{"phi-allergy"},
	})
	if err != nil {
		t.Fatal(err)
	}
	ap, _, err := env.Client.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: p.ID, ProviderID: "prv_a", Service: "peel", Notes: "phi-appointment-note",
		StartAt: at("2026-11-02T15:00:00Z"), EndAt: at("2026-11-02T15:30:00Z"),
	})
	if err != nil {
		t.Fatal(err)
	}
	inv, _, err := env.Client.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: p.ID, AppointmentID: ap.ID, Notes: "phi-invoice-note",
		LineItems: []billing.LineItemParams{{Description: "peel", Quantity: 1, UnitAmount: medspa.Ptr[int64](100)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := env.Client.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 100, Method: billing.MethodCash}); err != nil {
		t.Fatal(err)
	}
	prod, _, err := env.Client.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "P-1", Name: "Peel", Category: inventory.CategorySkincare, Price: 100})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := env.Client.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: prod.ID, Delta: 1, Reason: inventory.ReasonReceived, Note: "phi-adjustment-note"}); err != nil {
		t.Fatal(err)
	}
	env.Server.SetTime(env.Key.Account, at("2026-11-03T00:00:00Z"))
	paths := []string{"revenue?groupBy=provider", "appointments?groupBy=service", "patients?groupBy=day"}
	for src, dims := range map[string]string{
		"appointments":          "id,patientId,providerId&groupBy=service,roomId,status",
		"payments":              "id,invoiceId,status&groupBy=method,currency,cardBrand",
		"invoices":              "id,patientId,appointmentId&groupBy=status,currency",
		"patients":              "id,day",
		"inventory_adjustments": "id,productId,location&groupBy=reason,lotNumber,reference",
	} {
		// Two groupBy parameters would be refused; the second part is asked separately.
		first, second, _ := strings.Cut(dims, "&groupBy=")
		paths = append(paths, "custom?source="+src+"&groupBy="+first)
		if second != "" {
			paths = append(paths, "custom?source="+src+"&groupBy="+second)
		}
	}
	for _, path := range paths {
		for _, accept := range []string{"application/json", "text/csv"} {
			resp, body := env.Do(t, http.MethodGet, "/api/v1/reports/"+path, "", "Accept: "+accept)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
			}
			for _, phi := range []string{"Zelda", "Secretname", "zelda.secret", "5557654321", "phi-"} {
				if strings.Contains(string(body), phi) {
					t.Errorf("%s (%s) carries %q: %s", path, accept, phi, body)
				}
			}
		}
	}
}
