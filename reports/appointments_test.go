package reports_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/reports"
)

// visit is one fixture appointment: who, what, when (UTC) and the status it ends in.
type visit struct {
	patient  int
	provider string
	service  string
	start    string
	status   appointments.Status
	id       string // set by book
}

// book creates the patients and the 30-minute appointments through the API on 2026-02-01, then
// walks each appointment to its status with the clock after every start.
func book(t *testing.T, env *testenv.Env, nPatients int, visits []visit) []string {
	t.Helper()
	var created []string
	for range nPatients {
		created = append(created, "2026-02-01T12:00:00Z")
	}
	pats := newPatientsAt(t, env, created...)
	for i := range visits {
		v := &visits[i]
		env.Server.SetTime(env.Key.Account, at("2026-02-01T12:00:00Z"))
		start := at(v.start)
		p := &appointments.CreateParams{
			PatientID: pats[v.patient], ProviderID: v.provider, Service: v.service,
			StartAt: start, EndAt: start.Add(30 * time.Minute),
		}
		if v.status == appointments.StatusConfirmed {
			p.Status = appointments.StatusConfirmed
		}
		ap, _, err := env.Client.Appointments.Create(ctx, p)
		if err != nil {
			t.Fatalf("visit %d: %v", i, err)
		}
		v.id = ap.ID
	}
	env.Server.SetTime(env.Key.Account, at("2026-06-01T00:00:00Z"))
	for _, v := range visits {
		var path []appointments.Status
		switch v.status {
		case appointments.StatusCheckedIn:
			path = []appointments.Status{appointments.StatusCheckedIn}
		case appointments.StatusInProgress:
			path = []appointments.Status{appointments.StatusCheckedIn, appointments.StatusInProgress}
		case appointments.StatusCompleted:
			path = []appointments.Status{appointments.StatusCheckedIn, appointments.StatusCompleted}
		case appointments.StatusNoShow, appointments.StatusCancelled:
			path = []appointments.Status{v.status}
		}
		for _, st := range path {
			if _, _, err := env.Client.Appointments.Update(ctx, v.id, &appointments.UpdateParams{Status: client.Set(st)}); err != nil {
				t.Fatalf("%s → %s: %v", v.id, st, err)
			}
		}
	}
	return pats
}

// appointmentsFixture: nine appointments in New York around the 2026-03-08 DST change, in
// every status, plus one exactly at the window's end. Window [2026-03-07, 2026-03-14) local.
func appointmentsFixture() []visit {
	return []visit{
		{patient: 0, provider: "prv_a", service: "botox", start: "2026-03-08T04:30:00Z", status: appointments.StatusCompleted},  // 03-07 23:30 EST, W10
		{patient: 1, provider: "prv_a", service: "botox", start: "2026-03-08T05:30:00Z", status: appointments.StatusNoShow},     // 03-08 00:30 EST, W10
		{patient: 2, provider: "prv_b", service: "filler", start: "2026-03-09T03:30:00Z", status: appointments.StatusCancelled}, // 03-08 23:30 EDT (Sunday), W10
		{patient: 0, provider: "prv_b", service: "filler", start: "2026-03-09T04:30:00Z", status: appointments.StatusCompleted}, // 03-09 00:30 EDT, W11
		{patient: 1, provider: "prv_a", service: "peel", start: "2026-03-09T15:00:00Z", status: appointments.StatusScheduled},   // 03-09
		{patient: 2, provider: "prv_b", service: "botox", start: "2026-03-10T15:00:00Z", status: appointments.StatusConfirmed},  // 03-10
		{patient: 0, provider: "prv_a", service: "botox", start: "2026-03-11T15:00:00Z", status: appointments.StatusCheckedIn},  // 03-11
		{patient: 1, provider: "prv_b", service: "peel", start: "2026-03-12T15:00:00Z", status: appointments.StatusInProgress},  // 03-12
		{patient: 2, provider: "prv_a", service: "filler", start: "2026-03-13T15:00:00Z", status: appointments.StatusNoShow},    // 03-13
		{patient: 0, provider: "prv_a", service: "botox", start: "2026-03-14T04:00:00Z", status: appointments.StatusCompleted},  // 03-14 00:00 EDT: at `to`, outside
		{patient: 1, provider: "prv_b", service: "botox", start: "2026-03-07T04:59:00Z", status: appointments.StatusCompleted},  // 03-06 23:59 EST: before `from`
	}
}

func TestAppointmentsReportOverAPI(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	book(t, env, 3, appointmentsFixture())
	type row = reports.AppointmentsRow
	type m = reports.AppointmentsTotals
	ny, _ := time.LoadLocation("America/New_York")
	window := reports.AppointmentsParams{From: time.Date(2026, 3, 7, 0, 0, 0, 0, ny), To: time.Date(2026, 3, 14, 0, 0, 0, 0, ny), Timezone: "America/New_York"}
	// Hand-computed: 9 in the window; noShow 2/(2+2) = 0.5; cancelled 1/9 = 0.1111.
	totals := m{Total: 9, Scheduled: 1, Confirmed: 1, CheckedIn: 1, InProgress: 1, Completed: 2, Cancelled: 1, NoShow: 2,
		NoShowRate: 0.5, CancellationRate: 0.1111}
	for _, c := range []struct {
		groupBy reports.GroupBy
		want    []row
	}{
		{"", []row{ // default: status
			{Key: "cancelled", AppointmentsTotals: m{Total: 1, Cancelled: 1, CancellationRate: 1}},
			{Key: "checked_in", AppointmentsTotals: m{Total: 1, CheckedIn: 1}},
			{Key: "completed", AppointmentsTotals: m{Total: 2, Completed: 2}},
			{Key: "confirmed", AppointmentsTotals: m{Total: 1, Confirmed: 1}},
			{Key: "in_progress", AppointmentsTotals: m{Total: 1, InProgress: 1}},
			{Key: "no_show", AppointmentsTotals: m{Total: 2, NoShow: 2, NoShowRate: 1}},
			{Key: "scheduled", AppointmentsTotals: m{Total: 1, Scheduled: 1}},
		}},
		{"day", []row{
			{Key: "2026-03-07", AppointmentsTotals: m{Total: 1, Completed: 1}},
			{Key: "2026-03-08", AppointmentsTotals: m{Total: 2, Cancelled: 1, NoShow: 1, NoShowRate: 1, CancellationRate: 0.5}},
			{Key: "2026-03-09", AppointmentsTotals: m{Total: 2, Scheduled: 1, Completed: 1}},
			{Key: "2026-03-10", AppointmentsTotals: m{Total: 1, Confirmed: 1}}, // 0/0 no-show rate is 0
			{Key: "2026-03-11", AppointmentsTotals: m{Total: 1, CheckedIn: 1}},
			{Key: "2026-03-12", AppointmentsTotals: m{Total: 1, InProgress: 1}},
			{Key: "2026-03-13", AppointmentsTotals: m{Total: 1, NoShow: 1, NoShowRate: 1}},
		}},
		{"week", []row{
			// W10: completed, no_show, cancelled → 1/2 and 1/3.
			{Key: "2026-W10", AppointmentsTotals: m{Total: 3, Completed: 1, Cancelled: 1, NoShow: 1, NoShowRate: 0.5, CancellationRate: 0.3333}},
			{Key: "2026-W11", AppointmentsTotals: m{Total: 6, Scheduled: 1, Confirmed: 1, CheckedIn: 1, InProgress: 1, Completed: 1, NoShow: 1, NoShowRate: 0.5}},
		}},
		{"month", []row{{Key: "2026-03", AppointmentsTotals: totals}}},
		{"provider", []row{
			// prv_a: completed 1, no_show 2 → 2/3.
			{Key: "prv_a", AppointmentsTotals: m{Total: 5, Scheduled: 1, CheckedIn: 1, Completed: 1, NoShow: 2, NoShowRate: 0.6667}},
			{Key: "prv_b", AppointmentsTotals: m{Total: 4, Confirmed: 1, InProgress: 1, Completed: 1, Cancelled: 1, CancellationRate: 0.25}},
		}},
		{"service", []row{
			{Key: "botox", AppointmentsTotals: m{Total: 4, Confirmed: 1, CheckedIn: 1, Completed: 1, NoShow: 1, NoShowRate: 0.5}},
			{Key: "filler", AppointmentsTotals: m{Total: 3, Completed: 1, Cancelled: 1, NoShow: 1, NoShowRate: 0.5, CancellationRate: 0.3333}},
			{Key: "peel", AppointmentsTotals: m{Total: 2, Scheduled: 1, InProgress: 1}},
		}},
	} {
		p := window
		p.GroupBy = c.groupBy
		r, _, err := env.Client.Reports.Appointments(ctx, &p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, r.Data); diff != "" {
			t.Errorf("groupBy %q (-want +got):\n%s", c.groupBy, diff)
		}
		if r.Totals != totals {
			t.Errorf("groupBy %q totals %+v, want %+v", c.groupBy, r.Totals, totals)
		}
		if c.groupBy == "" && r.GroupBy != "status" {
			t.Errorf("default groupBy %q", r.GroupBy)
		}
	}
	// In UTC the Sunday-evening cancellation is on Monday, in W11.
	r, _, err := env.Client.Reports.Appointments(ctx, &reports.AppointmentsParams{From: at("2026-03-02T00:00:00Z"), To: at("2026-03-16T00:00:00Z"), GroupBy: "week"})
	if err != nil {
		t.Fatal(err)
	}
	if got := []int64{r.Data[0].Total, r.Data[1].Total}; len(r.Data) != 2 || got[0] != 3 || got[1] != 8 || r.Data[1].Cancelled != 1 {
		t.Errorf("UTC weeks %+v", r.Data)
	}
	// An empty window: zero denominators give 0.
	r, _, err = env.Client.Reports.Appointments(ctx, &reports.AppointmentsParams{From: at("2026-01-01T00:00:00Z"), To: at("2026-01-02T00:00:00Z")})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Data) != 0 || r.Totals != (m{}) {
		t.Errorf("empty window %+v", r)
	}
	// The custom report over the same records.
	cr, _, err := env.Client.Reports.Custom(ctx, &reports.CustomParams{
		From: window.From, To: window.To, Timezone: window.Timezone, Source: reports.SourceAppointments,
		GroupBy: []reports.Dimension{"providerId", "status"}, Metrics: []reports.Metric{"count", "sum:durationMinutes"},
		Filters: []reports.Filter{reports.Where("status", "completed", "no_show"), reports.Where("service", "botox", "filler")},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{"prv_a", "completed", int64(1), int64(30)}, {"prv_a", "no_show", int64(2), int64(60)},
		{"prv_b", "completed", int64(1), int64(30)},
	}
	if diff := cmp.Diff(want, cr.Rows); diff != "" {
		t.Errorf("custom (-want +got):\n%s", diff)
	}
}

func TestPatientsReportActiveAndReturning(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	book(t, env, 3, []visit{
		{patient: 0, provider: "prv_a", service: "botox", start: "2026-02-20T15:00:00Z", status: appointments.StatusCompleted}, // before the window
		{patient: 0, provider: "prv_a", service: "botox", start: "2026-03-08T05:30:00Z", status: appointments.StatusCompleted}, // 03-08 00:30 EST, W10
		{patient: 1, provider: "prv_a", service: "botox", start: "2026-03-09T04:30:00Z", status: appointments.StatusCompleted}, // 03-09 00:30 EDT, W11: first
		{patient: 1, provider: "prv_b", service: "peel", start: "2026-03-12T18:00:00Z", status: appointments.StatusCompleted},  // W11 again: distinct
		{patient: 2, provider: "prv_b", service: "peel", start: "2026-03-10T15:00:00Z", status: appointments.StatusNoShow},     // not active
		{patient: 2, provider: "prv_b", service: "peel", start: "2026-03-14T04:00:00Z", status: appointments.StatusCompleted},  // at `to`: outside
		{patient: 0, provider: "prv_a", service: "botox", start: "2026-03-13T15:00:00Z", status: appointments.StatusCompleted}, // W11
		{patient: 2, provider: "prv_c", service: "peel", start: "2026-03-11T15:00:00Z", status: appointments.StatusCheckedIn},  // not completed
	})
	type row = reports.PatientsRow
	type m = reports.PatientsTotals
	ny, _ := time.LoadLocation("America/New_York")
	for _, c := range []struct {
		name   string
		params reports.PatientsParams
		want   []row
		totals m
	}{
		{"weeks", reports.PatientsParams{From: time.Date(2026, 3, 7, 0, 0, 0, 0, ny), To: time.Date(2026, 3, 14, 0, 0, 0, 0, ny), GroupBy: "week"},
			[]row{
				{Key: "2026-W10", PatientsTotals: m{ActivePatients: 1, ReturningPatients: 1}},
				{Key: "2026-W11", PatientsTotals: m{ActivePatients: 2, ReturningPatients: 1}},
			},
			m{ActivePatients: 2, ReturningPatients: 1}},
		{"days", reports.PatientsParams{From: time.Date(2026, 3, 7, 0, 0, 0, 0, ny), To: time.Date(2026, 3, 14, 0, 0, 0, 0, ny), GroupBy: "day"},
			[]row{
				{Key: "2026-03-08", PatientsTotals: m{ActivePatients: 1, ReturningPatients: 1}},
				{Key: "2026-03-09", PatientsTotals: m{ActivePatients: 1}},
				{Key: "2026-03-12", PatientsTotals: m{ActivePatients: 1, ReturningPatients: 1}}, // returning within the window
				{Key: "2026-03-13", PatientsTotals: m{ActivePatients: 1, ReturningPatients: 1}},
			},
			m{ActivePatients: 2, ReturningPatients: 1}},
		{"months", reports.PatientsParams{From: time.Date(2026, 2, 1, 0, 0, 0, 0, ny), To: time.Date(2026, 3, 14, 0, 0, 0, 0, ny)},
			[]row{
				{Key: "2026-02", PatientsTotals: m{NewPatients: 3, ActivePatients: 1}},
				{Key: "2026-03", PatientsTotals: m{ActivePatients: 2, ReturningPatients: 1}},
			},
			m{NewPatients: 3, ActivePatients: 2}}, // both first completed inside the window
	} {
		p := c.params
		p.Timezone = "America/New_York"
		r, _, err := env.Client.Reports.Patients(ctx, &p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, r.Data); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
		if r.Totals != c.totals {
			t.Errorf("%s totals %+v, want %+v", c.name, r.Totals, c.totals)
		}
	}
}

func TestCSVNeutralizesFormulas(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	book(t, env, 2, []visit{
		{patient: 0, provider: "=HYPERLINK(\"http://x\",\"y\")", service: "+peel", start: "2026-03-10T15:00:00Z", status: appointments.StatusCompleted},
		{patient: 1, provider: "@prv", service: "-botox, deluxe", start: "2026-03-10T15:00:00Z", status: appointments.StatusNoShow},
	})
	p := &reports.AppointmentsParams{From: at("2026-03-01T00:00:00Z"), To: at("2026-04-01T00:00:00Z"), GroupBy: "service"}
	js, _, err := env.Client.Reports.Appointments(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(js.Data) != 2 || js.Data[0].Key != "+peel" || js.Data[1].Key != "-botox, deluxe" {
		t.Fatalf("JSON keys are the raw values: %+v", js.Data)
	}
	got := readCSV(t, env, reports.NameAppointments, p)
	want := [][]string{
		{"key", "total", "scheduled", "confirmed", "checkedIn", "inProgress", "completed", "cancelled", "noShow", "noShowRate", "cancellationRate"},
		{"'+peel", "1", "0", "0", "0", "0", "1", "0", "0", "0", "0"},
		{"'-botox, deluxe", "1", "0", "0", "0", "0", "0", "0", "1", "1", "0"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CSV (-want +got):\n%s", diff)
	}
	cp := &reports.CustomParams{From: p.From, To: p.To, Source: reports.SourceAppointments, GroupBy: []reports.Dimension{"providerId"}}
	got = readCSV(t, env, reports.NameCustom, cp)
	want = [][]string{{"providerId", "count"}, {"'=HYPERLINK(\"http://x\",\"y\")", "1"}, {"'@prv", "1"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("custom CSV (-want +got):\n%s", diff)
	}
	_, body := env.Do(t, http.MethodGet, "/api/v1/reports/custom?source=appointments&groupBy=service&from=2026-03-01&to=2026-04-01", "", "Accept: text/csv")
	if want := "service,count\n'+peel,1\n\"'-botox, deluxe\",1\n"; string(body) != want {
		t.Errorf("raw CSV %q, want %q", body, want)
	}
}
