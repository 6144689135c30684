package reports_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/internal/testing/oapitest"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/reports"
)

var ctx = context.Background()

// badCtx marks calls that break the OpenAPI document on purpose, so only responses are validated.
var badCtx = oapitest.WithoutRequestValidation(ctx)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// newPatientsAt creates one patient per instant, with the account clock set to it.
func newPatientsAt(t *testing.T, env *testenv.Env, instants ...string) []string {
	t.Helper()
	var ids []string
	for i, s := range instants {
		env.Server.SetTime(env.Key.Account, at(s))
		p, _, err := env.Client.Patients.Create(ctx, &patients.CreateParams{
			FirstName: "Pat", LastName: fmt.Sprint("Number", i), Email: fmt.Sprintf("p%d@example.com", i),
		})
		if err != nil {
			t.Fatal(err)
		}
		if !p.CreatedAt.Equal(at(s)) {
			t.Fatalf("created at %v, want %s", p.CreatedAt, s)
		}
		ids = append(ids, p.ID)
	}
	return ids
}

// newPatients lists only the newPatients metric of each bucket.
func newPatients(r *reports.PatientsReport) map[string]int64 {
	m := map[string]int64{}
	for _, d := range r.Data {
		m[d.Key] = d.NewPatients
	}
	return m
}

func TestPatientsReportDSTDays(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	newPatientsAt(t, env,
		// DST starts 2026-03-08 in New York (EST −5 → EDT −4).
		"2026-03-08T04:30:00Z", // 03-07 23:30 EST
		"2026-03-08T05:30:00Z", // 03-08 00:30 EST
		"2026-03-09T03:30:00Z", // 03-08 23:30 EDT
		"2026-03-09T04:30:00Z", // 03-09 00:30 EDT
		// DST ends 2026-11-01 (EDT −4 → EST −5).
		"2026-11-01T03:30:00Z", // 10-31 23:30 EDT
		"2026-11-01T04:30:00Z", // 11-01 00:30 EDT
		"2026-11-02T04:30:00Z", // 11-01 23:30 EST
		"2026-11-02T05:30:00Z", // 11-02 00:30 EST
	)
	env.Server.SetTime(env.Key.Account, at("2026-11-22T12:00:00Z"))
	ny, _ := time.LoadLocation("America/New_York")
	for _, c := range []struct {
		from, to time.Time
		want     map[string]int64
	}{
		{time.Date(2026, 3, 7, 0, 0, 0, 0, ny), time.Date(2026, 3, 10, 0, 0, 0, 0, ny),
			map[string]int64{"2026-03-07": 1, "2026-03-08": 2, "2026-03-09": 1}},
		{time.Date(2026, 10, 31, 0, 0, 0, 0, ny), time.Date(2026, 11, 3, 0, 0, 0, 0, ny),
			map[string]int64{"2026-10-31": 1, "2026-11-01": 2, "2026-11-02": 1}},
	} {
		r, _, err := env.Client.Reports.Patients(ctx, &reports.PatientsParams{From: c.from, To: c.to, Timezone: "America/New_York", GroupBy: reports.GroupByDay})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, newPatients(r)); diff != "" {
			t.Errorf("days from %v (-want +got):\n%s", c.from, diff)
		}
		if !r.From.Equal(c.from) || !r.To.Equal(c.to) || r.Timezone != "America/New_York" || r.GroupBy != "day" || r.Report != "patients" {
			t.Errorf("header %+v", r)
		}
		if r.Totals.NewPatients != 4 {
			t.Errorf("totals %+v, want 4 new", r.Totals)
		}
	}
	// The same instants in UTC fall on other days.
	r, _, err := env.Client.Reports.Patients(ctx, &reports.PatientsParams{From: at("2026-03-08T00:00:00Z"), To: at("2026-03-10T00:00:00Z"), GroupBy: "day"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int64{"2026-03-08": 2, "2026-03-09": 2}, newPatients(r)); diff != "" {
		t.Errorf("UTC days (-want +got):\n%s", diff)
	}
	// Dates as from/to are local midnights: the JSON echoes them in UTC.
	_, body := env.Do(t, http.MethodGet, "/api/v1/reports/patients?from=2026-03-07&to=2026-03-10&timezone=America/New_York&groupBy=day", "")
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatal(err)
	}
	if raw["from"] != "2026-03-07T05:00:00Z" || raw["to"] != "2026-03-10T04:00:00Z" {
		t.Errorf("from %v to %v, want local midnights in UTC", raw["from"], raw["to"])
	}
}

func TestPatientsReportISOWeeks(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	newPatientsAt(t, env,
		"2020-12-28T00:00:00Z", // Monday of 2020-W53
		"2020-12-31T12:00:00Z",
		"2021-01-03T23:59:59Z", // Sunday: still 2020-W53
		"2021-01-04T00:00:00Z", // 2021-W01
		"2026-12-31T12:00:00Z", // Thursday: 2026-W53
		"2027-01-01T08:00:00Z",
		"2027-01-04T00:00:00Z", // Monday: 2027-W01
		"2027-01-10T23:59:59Z",
	)
	env.Server.SetTime(env.Key.Account, at("2027-02-01T00:00:00Z"))
	for _, c := range []struct {
		from, to string
		want     map[string]int64
	}{
		{"2020-12-20T00:00:00Z", "2021-01-20T00:00:00Z", map[string]int64{"2020-W53": 3, "2021-W01": 1}},
		{"2026-12-20T00:00:00Z", "2027-01-20T00:00:00Z", map[string]int64{"2026-W53": 2, "2027-W01": 2}},
	} {
		r, _, err := env.Client.Reports.Patients(ctx, &reports.PatientsParams{From: at(c.from), To: at(c.to), GroupBy: reports.GroupByWeek})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, newPatients(r)); diff != "" {
			t.Errorf("weeks %s (-want +got):\n%s", c.from, diff)
		}
		if !slices.IsSortedFunc(r.Data, func(a, b reports.PatientsRow) int { return strings.Compare(a.Key, b.Key) }) {
			t.Errorf("data not sorted: %+v", r.Data)
		}
	}
}

func TestReportWindowDefaultAndEdges(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	now := at("2026-11-22T12:00:00Z")
	newPatientsAt(t, env,
		"2026-10-23T12:00:00Z", // one second before the default window
		"2026-10-23T12:00:01Z", // exactly at from: inside
		"2026-11-22T11:59:59Z",
		"2026-11-22T12:00:00Z", // at the clock's instant (now): inside, the default to is the end of its second
	)
	newPatientsAt(t, env, "2026-11-22T12:00:01Z") // exactly at the default to: outside
	env.Server.SetTime(env.Key.Account, now)

	r, _, err := env.Client.Reports.Patients(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.From.Equal(at("2026-10-23T12:00:01Z")) || !r.To.Equal(now.Add(time.Second)) || r.Timezone != "UTC" || r.GroupBy != "month" || r.Currency != "usd" {
		t.Errorf("defaults: %+v", r)
	}
	if diff := cmp.Diff(map[string]int64{"2026-10": 1, "2026-11": 2}, newPatients(r)); diff != "" {
		t.Errorf("default window (-want +got):\n%s", diff)
	}
	if r.Totals.NewPatients != 3 {
		t.Errorf("totals %+v, want 3", r.Totals)
	}
	// An explicit to: a record stamped exactly at to is outside.
	r, _, err = env.Client.Reports.Patients(ctx, &reports.PatientsParams{From: at("2026-10-23T12:00:00Z"), To: at("2026-11-22T12:00:00Z"), GroupBy: "day"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int64{"2026-10-23": 2, "2026-11-22": 1}, newPatients(r)); diff != "" {
		t.Errorf("explicit window (-want +got):\n%s", diff)
	}
	// Exactly 366 days is allowed.
	if _, _, err := env.Client.Reports.Revenue(ctx, &reports.RevenueParams{From: at("2024-01-01T00:00:00Z"), To: at("2025-01-01T00:00:00Z")}); err != nil {
		t.Errorf("366 days: %v", err)
	}
}

// fieldCodes returns "pointer:code" of every invalid field of a 422.
func fieldCodes(t *testing.T, err error) []string {
	t.Helper()
	var e *medspa.Error
	if !errors.As(err, &e) || e.Status != http.StatusUnprocessableEntity || !errors.Is(err, medspa.ErrValidation) {
		t.Fatalf("error %v: want a 422 validation_error", err)
	}
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Pointer+":"+f.Code)
	}
	return out
}

func TestReportParamErrors(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	_, _, err := env.Client.Reports.Revenue(ctx, &reports.RevenueParams{From: at("2024-01-01T00:00:00Z"), To: at("2025-01-01T00:00:01Z")})
	if diff := cmp.Diff([]string{"to:out_of_range"}, fieldCodes(t, err)); diff != "" {
		t.Errorf("> 366 days (-want +got):\n%s", diff)
	}
	_, _, err = env.Client.Reports.Appointments(ctx, &reports.AppointmentsParams{Timezone: "Mars/Olympus_Mons"})
	if diff := cmp.Diff([]string{"timezone:invalid_value"}, fieldCodes(t, err)); diff != "" {
		t.Errorf("bad timezone (-want +got):\n%s", diff)
	}
	_, _, err = env.Client.Reports.Patients(ctx, &reports.PatientsParams{From: at("2026-02-01T00:00:00Z"), To: at("2026-01-01T00:00:00Z")})
	if diff := cmp.Diff([]string{"from:invalid_value"}, fieldCodes(t, err)); diff != "" {
		t.Errorf("from after to (-want +got):\n%s", diff)
	}
	// Every invalid parameter at once, unknown ones too.
	q := url.Values{"from": {"last week"}, "to": {"2026-02-30"}, "timezone": {""}, "groupBy": {"year"}, "page": {"2"}, "sort": {"x"}}
	_, err = env.Client.Do(badCtx, http.MethodGet, medspa.Path("reports", "revenue"), q, nil)
	want := []string{"page:unknown_parameter", "sort:unknown_parameter", "timezone:invalid_value", "from:invalid_format",
		"to:invalid_format", "groupBy:invalid_value"}
	if diff := cmp.Diff(want, fieldCodes(t, err)); diff != "" {
		t.Errorf("all at once (-want +got):\n%s", diff)
	}
	_, err = env.Client.Do(badCtx, http.MethodGet, medspa.Path("reports", "patients"), url.Values{"groupBy": {"status"}, "source": {"patients"}}, nil)
	if diff := cmp.Diff([]string{"source:unknown_parameter", "groupBy:invalid_value"}, fieldCodes(t, err)); diff != "" {
		t.Errorf("patients (-want +got):\n%s", diff)
	}
	_, err = env.Client.Do(badCtx, http.MethodGet, medspa.Path("reports", "appointments"), url.Values{"groupBy": {"day", "week"}}, nil)
	if diff := cmp.Diff([]string{"groupBy:invalid_value"}, fieldCodes(t, err)); diff != "" {
		t.Errorf("repeated groupBy (-want +got):\n%s", diff)
	}
}

func TestCustomReportErrors(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	// The server's answers to every kind of bad custom report, sent raw (the SDK refuses some of
	// them itself, below).
	for _, c := range []struct {
		name   string
		query  url.Values
		want   []string
		detail string // in every field's detail
	}{
		{"no source", url.Values{}, []string{"source:required"}, "appointments, payments, invoices, patients, inventory_adjustments"},
		{"unknown source", url.Values{"source": {"refunds"}}, []string{"source:invalid_value"}, "appointments, payments, invoices, patients, inventory_adjustments"},
		{"unknown metric", url.Values{"source": {"payments"}, "metrics": {"median:amount"}}, []string{"metrics:invalid_value"}, "count, sum:<field>, avg:<field>, min:<field>, max:<field>"},
		{"unknown metric field", url.Values{"source": {"payments"}, "metrics": {"sum:tip"}}, []string{"metrics:invalid_value"}, "amount"},
		{"non-numeric metric field", url.Values{"source": {"invoices"}, "metrics": {"avg:status"}}, []string{"metrics:invalid_value"}, "subtotal, discountAmount, tax, total, amountPaid, amountDue, taxRateBps"},
		{"unknown dimension", url.Values{"source": {"appointments"}, "groupBy": {"year"}}, []string{"groupBy:invalid_value"}, "day, week, month, id, patientId, providerId, service, roomId, status"},
		{"PHI dimension", url.Values{"source": {"patients"}, "groupBy": {"lastName"}}, []string{"groupBy:invalid_value"}, "PHI"},
		{"PHI filter", url.Values{"source": {"patients"}, "filter": {"email:a@example.com"}}, []string{"filter:invalid_value"}, "PHI"},
		{"PHI metric", url.Values{"source": {"appointments"}, "metrics": {"max:notes"}}, []string{"metrics:invalid_value"}, "PHI"},
		{"PHI invoice notes", url.Values{"source": {"invoices"}, "groupBy": {"notes"}}, []string{"groupBy:invalid_value"}, "PHI"},
		{"PHI adjustment note", url.Values{"source": {"inventory_adjustments"}, "filter": {"note:x"}}, []string{"filter:invalid_value"}, "PHI"},
		{"unknown filter field", url.Values{"source": {"payments"}, "filter": {"brand:visa"}}, []string{"filter:invalid_value"}, "id, invoiceId, status, method, currency, cardBrand, declineCode"},
		{"four dimensions", url.Values{"source": {"appointments"}, "groupBy": {"day,status,service,providerId"}}, []string{"groupBy:out_of_range"}, "3"},
		{"malformed filter", url.Values{"source": {"payments"}, "filter": {"status", "method:"}}, []string{"filter:invalid_format", "filter:invalid_format"}, "<field>:<value>"},
	} {
		_, err := env.Client.Do(badCtx, http.MethodGet, medspa.Path("reports", "custom"), c.query, nil)
		if diff := cmp.Diff(c.want, fieldCodes(t, err)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
			continue
		}
		var e *medspa.Error
		errors.As(err, &e)
		for _, f := range e.Fields {
			if !strings.Contains(f.Detail, c.detail) {
				t.Errorf("%s: detail %q lacks %q", c.name, f.Detail, c.detail)
			}
		}
	}
	// What the SDK can tell is wrong never reaches the server: a closed set's unknown value, a
	// metric or filter that is malformed.
	before := len(env.Server.Requests(env.Key.Account))
	for name, p := range map[string]reports.CustomParams{
		"unknown source":    {Source: "refunds"},
		"unknown metric":    {Source: reports.SourcePayments, Metrics: []reports.Metric{"median:amount"}},
		"filter no values":  {Source: reports.SourcePayments, Filters: []reports.Filter{reports.Where("status")}},
		"filter empty":      {Source: reports.SourcePayments, Filters: []reports.Filter{reports.Where("method", "")}},
		"filter comma":      {Source: reports.SourcePayments, Filters: []reports.Filter{reports.Where("method", "card,cash")}},
		"dimension garbage": {Source: reports.SourcePayments, GroupBy: []reports.Dimension{"method,status"}},
	} {
		if _, _, err := env.Client.Reports.Custom(ctx, &p); !errors.Is(err, medspa.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
	if n := len(env.Server.Requests(env.Key.Account)); n != before {
		t.Errorf("%d refused calls reached the server", n-before)
	}
	// Errors never echo the submitted (possibly PHI) value.
	_, _, err := env.Client.Reports.Custom(badCtx, &reports.CustomParams{Source: "patients", Filters: []reports.Filter{reports.Where("email", "secret-person@example.com")}})
	if !errors.Is(err, medspa.ErrValidation) || strings.Contains(err.Error(), "secret-person") {
		t.Errorf("error %v", err)
	}
}

func TestCustomReportOnPatients(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	ids := newPatientsAt(t, env, "2026-11-02T10:00:00Z", "2026-11-02T11:00:00Z", "2026-11-05T10:00:00Z")
	env.Server.SetTime(env.Key.Account, at("2026-11-22T12:00:00Z"))
	r, _, err := env.Client.Reports.Custom(ctx, &reports.CustomParams{
		Source: reports.SourcePatients, GroupBy: []reports.Dimension{"day"}, Metrics: []reports.Metric{"count"},
		From: at("2026-11-01T00:00:00Z"), To: at("2026-12-01T00:00:00Z"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"day", "count"}, r.Columns); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	want := [][]any{{"2026-11-02", int64(2)}, {"2026-11-05", int64(1)}}
	if diff := cmp.Diff(want, r.Rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]map[string]any{{"day": "2026-11-02", "count": int64(2)}, {"day": "2026-11-05", "count": int64(1)}}, r.Maps()); diff != "" {
		t.Errorf("Maps (-want +got):\n%s", diff)
	}
	type perDay struct {
		Day string
		N   int `report:"count"`
	}
	rows, err := reports.Decode[perDay](r)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]perDay{{"2026-11-02", 2}, {"2026-11-05", 1}}, rows); diff != "" {
		t.Errorf("Decode (-want +got):\n%s", diff)
	}
	// Filter on id; no dimensions.
	r, _, err = env.Client.Reports.Custom(ctx, &reports.CustomParams{
		Source: reports.SourcePatients, Filters: []reports.Filter{reports.Where("id", ids[0], ids[2])},
		From: at("2026-11-01T00:00:00Z"), To: at("2026-12-01T00:00:00Z"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]any{{int64(2)}}, r.Rows); diff != "" || len(r.GroupBy) != 0 || !slices.Equal(r.Metrics, []string{"count"}) {
		t.Errorf("filtered (-want +got):\n%s %+v", diff, r)
	}
}

// readCSV downloads a report as CSV and checks the media type.
func readCSV(t *testing.T, env *testenv.Env, name reports.Name, params any) [][]string {
	t.Helper()
	rc, _, err := env.Client.Reports.CSV(ctx, name, params)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil {
		t.Fatalf("CSV %q: %v", b, err)
	}
	return recs
}

func TestCSVEqualsJSON(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	newPatientsAt(t, env, "2026-11-02T10:00:00Z", "2026-11-02T11:00:00Z", "2026-11-10T10:00:00Z", "2026-11-20T10:00:00Z")
	env.Server.SetTime(env.Key.Account, at("2026-11-22T12:00:00Z"))
	p := &reports.PatientsParams{GroupBy: "week"}
	js, _, err := env.Client.Reports.Patients(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"key", "newPatients", "activePatients", "returningPatients"}}
	for _, d := range js.Data {
		want = append(want, []string{d.Key, fmt.Sprint(d.NewPatients), fmt.Sprint(d.ActivePatients), fmt.Sprint(d.ReturningPatients)})
	}
	if len(want) != 4 {
		t.Fatalf("JSON rows %+v, want 3 weeks", js.Data)
	}
	if diff := cmp.Diff(want, readCSV(t, env, reports.NamePatients, p)); diff != "" {
		t.Errorf("patients CSV (-json +csv):\n%s", diff)
	}
	// Headers of the other reports, in the protocol's order.
	if diff := cmp.Diff([][]string{{"key", "collected", "payments", "invoiced", "invoices", "refunded", "net"}}, readCSV(t, env, reports.NameRevenue, nil)); diff != "" {
		t.Errorf("revenue CSV header (-want +got):\n%s", diff)
	}
	wantHeader := []string{"key", "total", "scheduled", "confirmed", "checkedIn", "inProgress", "completed", "cancelled", "noShow", "noShowRate", "cancellationRate"}
	if diff := cmp.Diff([][]string{wantHeader}, readCSV(t, env, reports.NameAppointments, nil)); diff != "" {
		t.Errorf("appointments CSV header (-want +got):\n%s", diff)
	}

	cp := &reports.CustomParams{Source: reports.SourcePatients, GroupBy: []reports.Dimension{"day", "id"}}
	cr, _, err := env.Client.Reports.Custom(ctx, cp)
	if err != nil {
		t.Fatal(err)
	}
	cwant := [][]string{cr.Columns}
	for _, row := range cr.Rows {
		cwant = append(cwant, []string{row[0].(string), row[1].(string), fmt.Sprint(row[2])})
	}
	if len(cwant) != 5 {
		t.Fatalf("custom rows %+v", cr.Rows)
	}
	if diff := cmp.Diff(cwant, readCSV(t, env, reports.NameCustom, cp)); diff != "" {
		t.Errorf("custom CSV (-json +csv):\n%s", diff)
	}

	resp, body := env.Do(t, http.MethodGet, "/api/v1/reports/custom?source=patients&metrics=count", "", "Accept: text/csv")
	if ct := resp.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if string(body) != "count\n4\n" {
		t.Errorf("body %q", body)
	}
	// JSON wins when preferred; an error stays problem+json even when CSV is asked for.
	resp, _ = env.Do(t, http.MethodGet, "/api/v1/reports/patients", "", "Accept: text/csv;q=0.5, application/json")
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("preferring JSON: Content-Type %q", ct)
	}
	resp, _ = env.Do(t, http.MethodGet, "/api/v1/reports/patients?timezone=Nowhere", "", "Accept: text/csv")
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 422 || ct != "application/problem+json" {
		t.Errorf("CSV error: %d %q", resp.StatusCode, ct)
	}
}

func TestReportsScope(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	k := env.NewKey(t, mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"patients:read"}, Account: env.Key.Account})
	c := env.ClientFor(t, k.Key)
	for name, call := range map[string]func() error{
		"revenue":      func() error { _, _, err := c.Reports.Revenue(ctx, nil); return err },
		"appointments": func() error { _, _, err := c.Reports.Appointments(ctx, nil); return err },
		"patients":     func() error { _, _, err := c.Reports.Patients(ctx, nil); return err },
		"custom": func() error {
			_, _, err := c.Reports.Custom(ctx, &reports.CustomParams{Source: "patients"})
			return err
		},
		"csv": func() error { _, _, err := c.Reports.CSV(ctx, reports.NameRevenue, nil); return err },
	} {
		if err := call(); !errors.Is(err, medspa.ErrInsufficientScope) {
			t.Errorf("%s without reports:read: %v", name, err)
		}
	}
	k = env.NewKey(t, mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"reports:read"}, Account: env.Key.Account})
	if _, _, err := env.ClientFor(t, k.Key).Reports.Revenue(ctx, nil); err != nil {
		t.Errorf("with reports:read: %v", err)
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	r := &reports.CustomReport{
		Columns: []string{"status", "count", "avg:amount", "max:amount", "extra"},
		Rows:    [][]any{{"paid", int64(3), 12.5, int64(40)}, {"open", int64(0), nil, nil, "x"}},
	}
	type row struct {
		Status string
		Count  int32
		Avg    *float64 `report:"avg:amount"`
		Max    float64  `report:"max:amount"`
	}
	got, err := reports.Decode[row](r)
	if err != nil {
		t.Fatal(err)
	}
	avg := 12.5
	want := []row{{Status: "paid", Count: 3, Avg: &avg, Max: 40}, {Status: "open"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	type bad struct{ Status int }
	if _, err := reports.Decode[bad](r); err == nil {
		t.Error("a string in an int field: want an error")
	}
	if _, err := reports.Decode[int](r); err == nil {
		t.Error("a non-struct type: want an error")
	}
	var decoded reports.CustomReport
	if err := json.Unmarshal([]byte(`{"columns":["a","n","f","avg:x"],"rows":[["x",9007199254740993,0.3333,2],[null,1,2.0,-3]]}`), &decoded); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]any{{"x", int64(9007199254740993), 0.3333, 2.0}, {nil, int64(1), 2.0, -3.0}}, decoded.Rows); diff != "" {
		t.Errorf("UnmarshalJSON (-want +got):\n%s", diff)
	}
}
