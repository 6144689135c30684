package store

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/medspa/medspa-go/reports"
)

// memSources serves hand-made rows (any order) as report sources.
type memSources struct {
	appts    []apptRow
	payments []paymentRow
	invoices []invoiceRow
	patients []patientRow
	adjs     []adjustmentRow
	refunds  []refundRow
}

func memIter[R any](rows []R, when func(*R) time.Time) rowIter[R] {
	return func(from, to time.Time, yield func(*R) bool) {
		for i := range rows {
			r := rows[i]
			t := when(&r)
			if (from.IsZero() || !t.Before(from)) && t.Before(to) && !yield(&r) {
				return
			}
		}
	}
}

func (m *memSources) sources() *reportSources {
	return &reportSources{
		appointments: memIter(m.appts, func(r *apptRow) time.Time { return r.StartAt }),
		payments:     memIter(m.payments, func(r *paymentRow) time.Time { return r.CreatedAt }),
		invoices:     memIter(m.invoices, func(r *invoiceRow) time.Time { return r.CreatedAt }),
		patients:     memIter(m.patients, func(r *patientRow) time.Time { return r.CreatedAt }),
		adjustments:  memIter(m.adjs, func(r *adjustmentRow) time.Time { return r.CreatedAt }),
		refunds:      memIter(m.refunds, func(r *refundRow) time.Time { return r.CreatedAt }),
		appointment: func(id string, into *apptRow) bool {
			i := slices.IndexFunc(m.appts, func(a apptRow) bool { return a.ID == id })
			if i >= 0 {
				*into = m.appts[i]
			}
			return i >= 0
		},
		invoice: func(id string, into *invoiceRow) bool {
			i := slices.IndexFunc(m.invoices, func(a invoiceRow) bool { return a.ID == id })
			if i >= 0 {
				*into = m.invoices[i]
			}
			return i >= 0
		},
	}
}

func mustParse(t *testing.T, report reports.Name, q ReportQuery) *ReportRequest {
	t.Helper()
	r, errs := ParseReport(string(report), q, time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	if errs != nil {
		t.Fatalf("ParseReport(%s, %+v): %+v", report, q, errs)
	}
	return r
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestRate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		num, den int64
		want     float64
	}{
		{0, 0, 0}, {5, 0, 0}, {1, 3, 0.3333}, {2, 3, 0.6667}, {1, 8, 0.125}, {1, 1, 1},
		{1, 20000, 0.0001}, {1, 20001, 0}, {3, 20000, 0.0002}, // 0.00015 → 0.0002 (half away from zero)
		{-1, 3, -0.3333}, {-2, 3, -0.6667}, {-1, 20000, -0.0001}, {7, -2, -3.5},
		{1 << 60, 3, 384307168202282325.3333}, // beyond integer arithmetic: nearest float
	} {
		if got := rate(c.num, c.den); got != c.want {
			t.Errorf("rate(%d, %d) = %v, want %v", c.num, c.den, got, c.want)
		}
	}
}

func TestBucketKeys(t *testing.T) {
	t.Parallel()
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		unit string
		loc  *time.Location
		at   string
		want string
	}{
		// DST starts 2026-03-08 (EST −5 → EDT −4): 23:30 and 00:30 local around each midnight.
		{"day", ny, "2026-03-08T04:30:00Z", "2026-03-07"}, // 03-07 23:30 EST
		{"day", ny, "2026-03-08T05:30:00Z", "2026-03-08"}, // 03-08 00:30 EST
		{"day", ny, "2026-03-09T03:30:00Z", "2026-03-08"}, // 03-08 23:30 EDT
		{"day", ny, "2026-03-09T04:30:00Z", "2026-03-09"}, // 03-09 00:30 EDT
		// DST ends 2026-11-01 (EDT −4 → EST −5).
		{"day", ny, "2026-11-01T03:30:00Z", "2026-10-31"}, // 10-31 23:30 EDT
		{"day", ny, "2026-11-01T04:30:00Z", "2026-11-01"}, // 11-01 00:30 EDT
		{"day", ny, "2026-11-02T04:30:00Z", "2026-11-01"}, // 11-01 23:30 EST
		{"day", ny, "2026-11-02T05:30:00Z", "2026-11-02"}, // 11-02 00:30 EST
		{"month", ny, "2026-11-01T03:59:59Z", "2026-10"},
		{"month", ny, "2026-11-01T04:00:00Z", "2026-11"},
		{"day", time.UTC, "2026-11-01T03:30:00Z", "2026-11-01"},
		// ISO weeks: the ISO year differs from the calendar year around new year.
		{"week", time.UTC, "2026-12-31T12:00:00Z", "2026-W53"}, // Thursday
		{"week", time.UTC, "2027-01-03T23:59:59Z", "2026-W53"}, // Sunday
		{"week", time.UTC, "2027-01-04T00:00:00Z", "2027-W01"}, // Monday
		{"week", time.UTC, "2020-12-31T00:00:00Z", "2020-W53"},
		{"week", time.UTC, "2021-01-03T10:00:00Z", "2020-W53"},
		{"week", time.UTC, "2021-01-04T10:00:00Z", "2021-W01"},
		{"week", time.UTC, "2025-12-29T00:00:00Z", "2026-W01"}, // Monday of 2026-W01
		{"week", time.UTC, "2025-12-28T23:59:59Z", "2025-W52"},
		{"week", ny, "2027-01-04T04:59:59Z", "2026-W53"}, // Sunday 23:59:59 EST
		{"week", ny, "2027-01-04T05:00:00Z", "2027-W01"},
		{"week", time.UTC, "2026-11-22T00:00:00Z", "2026-W47"},
	} {
		// A fresh bucketer, and one warmed on a neighbouring bucket, must agree.
		for _, b := range []*bucketer{newBucketer(c.unit, c.loc), newBucketer(c.unit, c.loc)} {
			if got, _ := b.key(utc(c.at)); got != c.want {
				t.Errorf("%s %s in %s = %s, want %s", c.unit, c.at, c.loc, got, c.want)
			}
			b.key(utc(c.at).Add(-time.Second))
			if got, _ := b.key(utc(c.at)); got != c.want {
				t.Errorf("warm %s %s in %s = %s, want %s", c.unit, c.at, c.loc, got, c.want)
			}
		}
	}
}

func TestParseReportWindow(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name     string
		q        ReportQuery
		from, to string
		tz       string
	}{
		{"default 30 days up to the end of now's second", ReportQuery{}, "2026-10-23T12:00:01Z", "2026-11-22T12:00:01Z", "UTC"},
		{"dates at local midnight", ReportQuery{From: "2026-03-01", To: "2026-04-01", Timezone: "America/New_York"},
			"2026-03-01T05:00:00Z", "2026-04-01T04:00:00Z", "America/New_York"},
		{"timestamps with offsets", ReportQuery{From: "2026-01-01T00:00:00+01:00", To: "2026-01-02T00:00:00Z"},
			"2025-12-31T23:00:00Z", "2026-01-02T00:00:00Z", "UTC"},
		{"only to", ReportQuery{To: "2026-02-01"}, "2026-01-02T00:00:00Z", "2026-02-01T00:00:00Z", "UTC"},
		{"366 days", ReportQuery{From: "2024-01-01", To: "2025-01-01"}, "2024-01-01T00:00:00Z", "2025-01-01T00:00:00Z", "UTC"},
	} {
		r, errs := ParseReport(string(reports.NameRevenue), c.q, now)
		if errs != nil {
			t.Errorf("%s: %+v", c.name, errs)
			continue
		}
		if got := r.from.Format(time.RFC3339); got != c.from {
			t.Errorf("%s: from %s, want %s", c.name, got, c.from)
		}
		if got := r.to.Format(time.RFC3339); got != c.to {
			t.Errorf("%s: to %s, want %s", c.name, got, c.to)
		}
		if r.tz != c.tz || r.groupBy != "day" {
			t.Errorf("%s: tz %s groupBy %s", c.name, r.tz, r.groupBy)
		}
	}
}

func TestParseReportErrors(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name   string
		report reports.Name
		q      ReportQuery
		want   FieldErrors
	}{
		{"367 days", reports.NameRevenue, ReportQuery{From: "2024-01-01", To: "2025-01-02"},
			FieldErrors{{Pointer: "to", Code: "out_of_range"}}},
		{"from after to", reports.NameRevenue, ReportQuery{From: "2026-02-01", To: "2026-01-01"},
			FieldErrors{{Pointer: "from", Code: "invalid_value"}}},
		{"from equals to", reports.NameRevenue, ReportQuery{From: "2026-02-01", To: "2026-02-01"},
			FieldErrors{{Pointer: "from", Code: "invalid_value"}}},
		{"everything bad", reports.NameAppointments, ReportQuery{From: "yesterday", To: "2026-13-01", Timezone: "Mars/Olympus", GroupBy: "year"},
			FieldErrors{{Pointer: "timezone", Code: "invalid_value"}, {Pointer: "from", Code: "invalid_format"},
				{Pointer: "to", Code: "invalid_format"}, {Pointer: "groupBy", Code: "invalid_value"}}},
		{"Local is not a zone", reports.NamePatients, ReportQuery{Timezone: "Local"}, FieldErrors{{Pointer: "timezone", Code: "invalid_value"}}},
		{"patients has no status", reports.NamePatients, ReportQuery{GroupBy: "status"}, FieldErrors{{Pointer: "groupBy", Code: "invalid_value"}}},
		{"revenue has no status", reports.NameRevenue, ReportQuery{GroupBy: "status"}, FieldErrors{{Pointer: "groupBy", Code: "invalid_value"}}},
		{"no source", reports.NameCustom, ReportQuery{}, FieldErrors{{Pointer: "source", Code: "required"}}},
		{"unknown source", reports.NameCustom, ReportQuery{Source: "refunds"}, FieldErrors{{Pointer: "source", Code: "invalid_value"}}},
		{"custom errors", reports.NameCustom, ReportQuery{Source: "payments", Metrics: "count,median:amount,sum:nope,count:amount,avg:status,count",
			GroupBy: "method,createdAt,amount,zzz", Filters: []string{"method", ":card", "method:", "zzz:a", "amount:5", "status:succeeded"}},
			FieldErrors{
				{Pointer: "metrics", Code: "invalid_value"}, {Pointer: "metrics", Code: "invalid_value"},
				{Pointer: "metrics", Code: "invalid_value"}, {Pointer: "metrics", Code: "invalid_value"},
				{Pointer: "metrics", Code: "invalid_value"},
				{Pointer: "groupBy", Code: "out_of_range"}, {Pointer: "groupBy", Code: "invalid_value"},
				{Pointer: "groupBy", Code: "invalid_value"}, {Pointer: "groupBy", Code: "invalid_value"},
				{Pointer: "filter", Code: "invalid_format"}, {Pointer: "filter", Code: "invalid_format"},
				{Pointer: "filter", Code: "invalid_format"}, {Pointer: "filter", Code: "invalid_value"},
				{Pointer: "filter", Code: "invalid_value"},
			}},
		{"PHI", reports.NameCustom, ReportQuery{Source: "patients", Metrics: "sum:dateOfBirth", GroupBy: "lastName", Filters: []string{"email:a@b.c"}},
			FieldErrors{{Pointer: "metrics", Code: "invalid_value"}, {Pointer: "groupBy", Code: "invalid_value"}, {Pointer: "filter", Code: "invalid_value"}}},
		{"duplicate dimension", reports.NameCustom, ReportQuery{Source: "appointments", GroupBy: "status,status"},
			FieldErrors{{Pointer: "groupBy", Code: "invalid_value"}}},
	} {
		r, errs := ParseReport(string(c.report), c.q, now)
		if r != nil {
			t.Errorf("%s: got a request", c.name)
		}
		for i := range errs {
			errs[i].Detail = ""
		}
		if diff := cmp.Diff(c.want, errs); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestCustomErrorDetails(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	_, errs := ParseReport(string(reports.NameCustom), ReportQuery{Source: "patients", GroupBy: "email", Filters: []string{"notes:x"}, Metrics: "avg:phone"}, now)
	for _, e := range errs {
		if !strings.Contains(e.Detail, "PHI") {
			t.Errorf("%s: detail %q does not say PHI", e.Pointer, e.Detail)
		}
		if strings.Contains(e.Detail, "email") || strings.Contains(e.Detail, "phone") || strings.Contains(e.Detail, "notes") {
			t.Errorf("%s: detail %q names a PHI field", e.Pointer, e.Detail)
		}
	}
	_, errs = ParseReport(string(reports.NameCustom), ReportQuery{Source: "inventory_adjustments", GroupBy: "sku", Metrics: "sum:qty"}, now)
	want := map[string]string{
		"groupBy": "day, week, month, id, productId, location, reason, lotNumber, reference",
		"metrics": "delta, onHandAfter",
	}
	for _, e := range errs {
		if !strings.Contains(e.Detail, want[e.Pointer]) {
			t.Errorf("%s: detail %q does not list %s", e.Pointer, e.Detail, want[e.Pointer])
		}
	}
	if len(errs) != 2 {
		t.Errorf("errors %+v, want 2", errs)
	}
}

// reportFixture is a small hand-made account: two providers, an invoice without appointment, a
// failed payment, refunds in and out of the window (one of a payment made before it), and
// records exactly at the window's end.
func reportFixture() *memSources {
	return &memSources{
		appts: []apptRow{
			{ID: "apt_1", PatientID: "pat_a", ProviderID: "prv_x", Service: "botox", Status: "completed", StartAt: utc("2026-10-20T15:00:00Z"), EndAt: utc("2026-10-20T15:30:00Z")},
			{ID: "apt_2", PatientID: "pat_a", ProviderID: "prv_x", Service: "botox", Status: "completed", StartAt: utc("2026-11-02T15:00:00Z"), EndAt: utc("2026-11-02T16:00:00Z")},
			{ID: "apt_3", PatientID: "pat_b", ProviderID: "prv_y", Service: "filler", Status: "no_show", StartAt: utc("2026-11-02T17:00:00Z"), EndAt: utc("2026-11-02T17:45:00Z")},
			{ID: "apt_4", PatientID: "pat_b", ProviderID: "prv_y", Service: "filler", Status: "completed", StartAt: utc("2026-11-10T17:00:00Z"), EndAt: utc("2026-11-10T17:20:00Z")},
			{ID: "apt_5", PatientID: "pat_c", ProviderID: "prv_x", Service: "peel", Status: "cancelled", StartAt: utc("2026-11-10T18:00:00Z"), EndAt: utc("2026-11-10T18:30:00Z")},
			{ID: "apt_6", PatientID: "pat_c", ProviderID: "prv_x", Service: "peel", Status: "scheduled", StartAt: utc("2026-11-20T18:00:00Z"), EndAt: utc("2026-11-20T18:30:00Z")},
			{ID: "apt_7", PatientID: "pat_a", ProviderID: "prv_x", Service: "botox", Status: "completed", StartAt: utc("2026-11-15T09:00:00Z"), EndAt: utc("2026-11-15T10:00:00Z")},
			{ID: "apt_8", PatientID: "pat_c", ProviderID: "prv_y", Service: "peel", Status: "completed", StartAt: utc("2026-12-01T00:00:00Z"), EndAt: utc("2026-12-01T00:30:00Z")}, // at `to`
		},
		invoices: []invoiceRow{
			{ID: "inv_1", AppointmentID: "apt_2", Status: "paid", Total: 30000, CreatedAt: utc("2026-11-02T16:00:00Z")},
			{ID: "inv_2", AppointmentID: "apt_4", Status: "partially_paid", Total: 50000, CreatedAt: utc("2026-11-10T17:30:00Z")},
			{ID: "inv_3", Status: "open", Total: 2500, CreatedAt: utc("2026-11-11T09:00:00Z")},
			{ID: "inv_4", AppointmentID: "apt_1", Status: "paid", Total: 10000, CreatedAt: utc("2026-10-20T16:00:00Z")},
			{ID: "inv_5", Status: "open", Total: 999, CreatedAt: utc("2026-12-01T00:00:00Z")}, // at `to`
		},
		payments: []paymentRow{
			{ID: "pay_1", InvoiceID: "inv_1", Status: "succeeded", Method: "card", Amount: 30000, CreatedAt: utc("2026-11-02T16:05:00Z")},
			{ID: "pay_2", InvoiceID: "inv_2", Status: "failed", Method: "card", Amount: 50000, CreatedAt: utc("2026-11-10T17:35:00Z")},
			{ID: "pay_3", InvoiceID: "inv_2", Status: "succeeded", Method: "cash", Amount: 20000, CreatedAt: utc("2026-11-10T17:40:00Z")},
			{ID: "pay_4", InvoiceID: "inv_3", Status: "succeeded", Method: "=cmd", Amount: 1000, CreatedAt: utc("2026-11-12T09:00:00Z")},
			{ID: "pay_5", InvoiceID: "inv_4", Status: "succeeded", Method: "card", Amount: 10000, CreatedAt: utc("2026-10-20T16:00:00Z")},
			{ID: "pay_6", InvoiceID: "inv_2", Status: "succeeded", Method: "card", Amount: 7, CreatedAt: utc("2026-12-01T00:00:00Z")}, // at `to`
		},
		patients: []patientRow{
			{ID: "pat_a", CreatedAt: utc("2026-10-01T10:00:00Z")},
			{ID: "pat_b", CreatedAt: utc("2026-11-02T10:00:00Z")},
			{ID: "pat_c", CreatedAt: utc("2026-11-09T23:59:59Z")},
			{ID: "pat_d", CreatedAt: utc("2026-12-01T00:00:00Z")},
		},
		adjs: []adjustmentRow{
			{ID: "adj_1", ProductID: "prd_1", Location: "main", Reason: "received", Delta: 10, OnHandAfter: 10, CreatedAt: utc("2026-11-01T00:00:00Z")},
			{ID: "adj_2", ProductID: "prd_1", Location: "main", Reason: "sale", Delta: -3, OnHandAfter: 7, CreatedAt: utc("2026-11-02T00:00:00Z")},
			{ID: "adj_3", ProductID: "prd_2", Location: "main", Reason: "received", Delta: 5, OnHandAfter: 5, CreatedAt: utc("2026-11-03T00:00:00Z")},
			{ID: "adj_4", ProductID: "prd_1", Location: "east", Reason: "received", Delta: 4, OnHandAfter: 4, CreatedAt: utc("2026-11-04T00:00:00Z")},
		},
		refunds: []refundRow{
			{ID: "ref_1", PaymentID: "pay_1", InvoiceID: "inv_1", Amount: 5000, CreatedAt: utc("2026-11-03T10:00:00Z")},
			{ID: "ref_2", PaymentID: "pay_5", InvoiceID: "inv_4", Amount: 10000, CreatedAt: utc("2026-11-12T12:00:00Z")}, // of an October payment
			{ID: "ref_3", PaymentID: "pay_3", InvoiceID: "inv_2", Amount: 3, CreatedAt: utc("2026-12-01T00:00:00Z")},     // at `to`
			{ID: "ref_4", PaymentID: "pay_4", InvoiceID: "inv_3", Amount: 500, CreatedAt: utc("2026-10-31T23:00:00Z")},   // before `from`
		},
	}
}

var november = ReportQuery{From: "2026-11-01", To: "2026-12-01"}

func withGroupBy(q ReportQuery, g string) ReportQuery { q.GroupBy = g; return q }

func TestRevenueReportEngine(t *testing.T) {
	t.Parallel()
	src := reportFixture().sources()
	type row = reports.RevenueRow
	type m = reports.RevenueTotals
	total := m{Collected: 51000, Payments: 3, Invoiced: 82500, Invoices: 3, Refunded: 15000, Net: 36000}
	for _, c := range []struct {
		groupBy string
		want    []row
	}{
		{"day", []row{
			{Key: "2026-11-02", RevenueTotals: m{Collected: 30000, Payments: 1, Invoiced: 30000, Invoices: 1, Net: 30000}},
			{Key: "2026-11-03", RevenueTotals: m{Refunded: 5000, Net: -5000}},
			{Key: "2026-11-10", RevenueTotals: m{Collected: 20000, Payments: 1, Invoiced: 50000, Invoices: 1, Net: 20000}},
			{Key: "2026-11-11", RevenueTotals: m{Invoiced: 2500, Invoices: 1}},
			{Key: "2026-11-12", RevenueTotals: m{Collected: 1000, Payments: 1, Refunded: 10000, Net: -9000}},
		}},
		{"week", []row{
			{Key: "2026-W45", RevenueTotals: m{Collected: 30000, Payments: 1, Invoiced: 30000, Invoices: 1, Refunded: 5000, Net: 25000}},
			{Key: "2026-W46", RevenueTotals: m{Collected: 21000, Payments: 2, Invoiced: 52500, Invoices: 2, Refunded: 10000, Net: 11000}},
		}},
		{"month", []row{{Key: "2026-11", RevenueTotals: total}}},
		{"provider", []row{
			{Key: "prv_x", RevenueTotals: m{Collected: 30000, Payments: 1, Invoiced: 30000, Invoices: 1, Refunded: 15000, Net: 15000}},
			{Key: "prv_y", RevenueTotals: m{Collected: 20000, Payments: 1, Invoiced: 50000, Invoices: 1, Net: 20000}},
			{Key: "unassigned", RevenueTotals: m{Collected: 1000, Payments: 1, Invoiced: 2500, Invoices: 1, Net: 1000}},
		}},
		{"service", []row{
			{Key: "botox", RevenueTotals: m{Collected: 30000, Payments: 1, Invoiced: 30000, Invoices: 1, Refunded: 15000, Net: 15000}},
			{Key: "filler", RevenueTotals: m{Collected: 20000, Payments: 1, Invoiced: 50000, Invoices: 1, Net: 20000}},
			{Key: "unassigned", RevenueTotals: m{Collected: 1000, Payments: 1, Invoiced: 2500, Invoices: 1, Net: 1000}},
		}},
	} {
		got := revenueReport(src, mustParse(t, reports.NameRevenue, withGroupBy(november, c.groupBy)))
		if diff := cmp.Diff(c.want, got.Data); diff != "" {
			t.Errorf("groupBy %s (-want +got):\n%s", c.groupBy, diff)
		}
		if got.Totals != total {
			t.Errorf("groupBy %s totals %+v, want %+v", c.groupBy, got.Totals, total)
		}
	}
}

func TestAppointmentsReportEngine(t *testing.T) {
	t.Parallel()
	src := reportFixture().sources()
	type row = reports.AppointmentsRow
	type m = reports.AppointmentsTotals
	got := appointmentsReport(src, mustParse(t, reports.NameAppointments, november))
	want := []row{
		{Key: "cancelled", AppointmentsTotals: m{Total: 1, Cancelled: 1, CancellationRate: 1}},
		{Key: "completed", AppointmentsTotals: m{Total: 3, Completed: 3}},
		{Key: "no_show", AppointmentsTotals: m{Total: 1, NoShow: 1, NoShowRate: 1}},
		{Key: "scheduled", AppointmentsTotals: m{Total: 1, Scheduled: 1}},
	}
	if diff := cmp.Diff(want, got.Data); diff != "" {
		t.Errorf("by status (-want +got):\n%s", diff)
	}
	// 6 in November: noShow 1/(3+1) = 0.25, cancelled 1/6 = 0.1667.
	wantTot := m{Total: 6, Scheduled: 1, Completed: 3, Cancelled: 1, NoShow: 1, NoShowRate: 0.25, CancellationRate: 0.1667}
	if got.Totals != wantTot || got.GroupBy != "status" {
		t.Errorf("totals %+v groupBy %s, want %+v", got.Totals, got.GroupBy, wantTot)
	}
	got = appointmentsReport(src, mustParse(t, reports.NameAppointments, withGroupBy(november, "provider")))
	want = []row{
		// prv_x: completed 2, cancelled 1, scheduled 1 → noShow 0/2 = 0, cancelled 1/4.
		{Key: "prv_x", AppointmentsTotals: m{Total: 4, Scheduled: 1, Completed: 2, Cancelled: 1, CancellationRate: 0.25}},
		// prv_y: no_show 1, completed 1 → 1/2.
		{Key: "prv_y", AppointmentsTotals: m{Total: 2, Completed: 1, NoShow: 1, NoShowRate: 0.5}},
	}
	if diff := cmp.Diff(want, got.Data); diff != "" {
		t.Errorf("by provider (-want +got):\n%s", diff)
	}
	got = appointmentsReport(src, mustParse(t, reports.NameAppointments, ReportQuery{From: "2026-12-01", To: "2026-12-02"}))
	if len(got.Data) != 1 || got.Totals.Completed != 1 {
		t.Errorf("from is inclusive: %+v", got)
	}
	got = appointmentsReport(src, mustParse(t, reports.NameAppointments, ReportQuery{From: "2026-01-01", To: "2026-02-01"}))
	if len(got.Data) != 0 || got.Totals != (m{}) {
		t.Errorf("empty window: %+v", got)
	}
}

func TestPatientsReportEngine(t *testing.T) {
	t.Parallel()
	src := reportFixture().sources()
	type row = reports.PatientsRow
	type m = reports.PatientsTotals
	got := patientsReport(src, mustParse(t, reports.NamePatients, withGroupBy(november, "week")))
	want := []row{
		// W45 (Nov 2–8): pat_b new; pat_a completed (returning: completed 10-20).
		{Key: "2026-W45", PatientsTotals: m{NewPatients: 1, ActivePatients: 1, ReturningPatients: 1}},
		// W46 (Nov 9–15): pat_c new (Monday 23:59:59); pat_b first completed (new), pat_a again (returning).
		{Key: "2026-W46", PatientsTotals: m{NewPatients: 1, ActivePatients: 2, ReturningPatients: 1}},
	}
	if diff := cmp.Diff(want, got.Data); diff != "" {
		t.Errorf("by week (-want +got):\n%s", diff)
	}
	// Whole November: active a, b; returning a only (b's first completed is in the window).
	if wantTot := (m{NewPatients: 2, ActivePatients: 2, ReturningPatients: 1}); got.Totals != wantTot {
		t.Errorf("totals %+v, want %+v", got.Totals, wantTot)
	}
	got = patientsReport(src, mustParse(t, reports.NamePatients, ReportQuery{From: "2026-10-01", To: "2026-12-01"}))
	want = []row{
		{Key: "2026-10", PatientsTotals: m{NewPatients: 1, ActivePatients: 1}},
		{Key: "2026-11", PatientsTotals: m{NewPatients: 2, ActivePatients: 2, ReturningPatients: 1}},
	}
	if diff := cmp.Diff(want, got.Data); diff != "" {
		t.Errorf("by month (-want +got):\n%s", diff)
	}
	if wantTot := (m{NewPatients: 3, ActivePatients: 2}); got.Totals != wantTot {
		t.Errorf("totals %+v, want %+v", got.Totals, wantTot)
	}
}

func TestCustomReportEngine(t *testing.T) {
	t.Parallel()
	src := reportFixture().sources()
	for _, c := range []struct {
		name string
		q    ReportQuery
		cols []string
		rows [][]any
	}{
		{"payments by method", ReportQuery{Source: "payments", Metrics: "count,sum:amount,avg:amount,min:amount,max:amount", GroupBy: "method"},
			[]string{"method", "count", "sum:amount", "avg:amount", "min:amount", "max:amount"},
			[][]any{
				{"=cmd", int64(1), int64(1000), float64(1000), int64(1000), int64(1000)},
				{"card", int64(2), int64(80000), float64(40000), int64(30000), int64(50000)},
				{"cash", int64(1), int64(20000), float64(20000), int64(20000), int64(20000)},
			}},
		{"filters AND across, OR within", ReportQuery{Source: "payments", Metrics: "count", GroupBy: "status,method",
			Filters: []string{"status:succeeded,failed", "method:card,cash", "status:succeeded"}},
			[]string{"status", "method", "count"},
			[][]any{{"succeeded", "card", int64(1)}, {"succeeded", "cash", int64(1)}}},
		{"no dimensions, empty", ReportQuery{Source: "payments", Metrics: "count,sum:amount,avg:amount,min:amount", Filters: []string{"method:check"}},
			[]string{"count", "sum:amount", "avg:amount", "min:amount"},
			[][]any{{int64(0), int64(0), nil, nil}}},
		{"adjustments avg rounds", ReportQuery{Source: "inventory_adjustments", Metrics: "avg:delta,sum:delta", GroupBy: "location,productId"},
			[]string{"location", "productId", "avg:delta", "sum:delta"},
			[][]any{{"east", "prd_1", float64(4), int64(4)}, {"main", "prd_1", 3.5, int64(7)}, {"main", "prd_2", float64(5), int64(5)}}},
		{"adjustments avg of three", ReportQuery{Source: "inventory_adjustments", Metrics: "avg:delta", Filters: []string{"productId:prd_1"}},
			[]string{"avg:delta"}, [][]any{{3.6667}}}, // (10 − 3 + 4) / 3
		{"appointments by week and status", ReportQuery{Source: "appointments", Metrics: "count,sum:durationMinutes", GroupBy: "week,status"},
			[]string{"week", "status", "count", "sum:durationMinutes"},
			[][]any{
				{"2026-W45", "completed", int64(1), int64(60)}, {"2026-W45", "no_show", int64(1), int64(45)},
				{"2026-W46", "cancelled", int64(1), int64(30)}, {"2026-W46", "completed", int64(2), int64(80)},
				{"2026-W47", "scheduled", int64(1), int64(30)},
			}},
		{"patients by day", ReportQuery{Source: "patients", GroupBy: "day"},
			[]string{"day", "count"}, [][]any{{"2026-11-02", int64(1)}, {"2026-11-09", int64(1)}}},
		{"invoices by month", ReportQuery{Source: "invoices", Metrics: "sum:total", GroupBy: "month,appointmentId"},
			[]string{"month", "appointmentId", "sum:total"},
			[][]any{{"2026-11", "", int64(2500)}, {"2026-11", "apt_2", int64(30000)}, {"2026-11", "apt_4", int64(50000)}}},
	} {
		q := c.q
		q.From, q.To = november.From, november.To
		got := customReport(src, mustParse(t, reports.NameCustom, q))
		if diff := cmp.Diff(c.cols, got.Columns); diff != "" {
			t.Errorf("%s columns (-want +got):\n%s", c.name, diff)
		}
		if diff := cmp.Diff(c.rows, got.Rows); diff != "" {
			t.Errorf("%s rows (-want +got):\n%s", c.name, diff)
		}
	}
}
