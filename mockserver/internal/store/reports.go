package store

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/medspa/medspa-go/reports"
)

// Report limits and defaults (docs/protocol.md §9 "Reports").
const (
	reportDefaultDays = 30
	reportMaxDays     = 366
)

// ReportQuery is a report request as received: raw query values, empty when absent. Source,
// Metrics and Filters are for the custom report only, where GroupBy is a comma list.
type ReportQuery struct {
	From, To, Timezone, GroupBy string
	Source, Metrics             string
	Filters                     []string
}

// ReportRequest is a validated report request.
type ReportRequest struct {
	report   string
	from, to time.Time
	loc      *time.Location
	tz       string
	groupBy  string
	custom   *customSpec
}

// standardGroupBy lists each standard report's groupBy values, the default first.
var standardGroupBy = map[string][]string{
	string(reports.NameRevenue):      {"day", "week", "month", "provider", "service"},
	string(reports.NameAppointments): {"status", "day", "week", "month", "provider", "service"},
	string(reports.NamePatients):     {"month", "day", "week"},
}

// ParseReport validates q for report (revenue, appointments, patients or custom) at the
// clock's time now. A defaulted to is the end of now's second (docs/protocol.md §9 "Reports"),
// so what was written at now, even under a frozen clock, is inside the window. It returns every
// invalid parameter (pointers are parameter names); the request is nil when there is any.
func ParseReport(report string, q ReportQuery, now time.Time) (*ReportRequest, FieldErrors) {
	var errs FieldErrors
	fail := func(name, code, detail string) {
		errs.Add(name, code, detail)
	}
	r := &ReportRequest{report: report, tz: "UTC", loc: time.UTC}
	if q.Timezone != "" {
		if loc, ok := loadLocation(q.Timezone); ok {
			r.loc, r.tz = loc, q.Timezone
		} else {
			fail("timezone", "invalid_value", "must be an IANA time zone name such as America/New_York")
		}
	}
	from, fromOK := parseReportTime(q.From, r.loc)
	if !fromOK {
		fail("from", "invalid_format", "must be an RFC 3339 timestamp or a YYYY-MM-DD date")
	}
	to, toOK := parseReportTime(q.To, r.loc)
	if !toOK {
		fail("to", "invalid_format", "must be an RFC 3339 timestamp or a YYYY-MM-DD date")
	}
	if to.IsZero() {
		to = now.Truncate(time.Second).Add(time.Second) // exclusive: the current second is inside
	}
	if from.IsZero() {
		from = to.AddDate(0, 0, -reportDefaultDays)
	}
	r.from, r.to = from.UTC(), to.UTC()
	if fromOK && toOK {
		switch {
		case !from.Before(to):
			fail("from", "invalid_value", "must be before to")
		case to.After(from.In(r.loc).AddDate(0, 0, reportMaxDays)):
			fail("to", "out_of_range", fmt.Sprintf("the window must be at most %d days", reportMaxDays))
		}
	}
	if report == string(reports.NameCustom) {
		r.custom = parseCustom(q, fail)
	} else {
		allowed := standardGroupBy[report]
		r.groupBy = allowed[0]
		if q.GroupBy != "" {
			if slices.Contains(allowed, q.GroupBy) {
				r.groupBy = q.GroupBy
			} else {
				fail("groupBy", "invalid_value", "must be one of "+strings.Join(allowed, ", "))
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return r, nil
}

// parseReportTime reads an RFC 3339 timestamp (second precision is kept; finer is truncated)
// or a date (local midnight in loc). "" is the zero time.
func parseReportTime(s string, loc *time.Location) (time.Time, bool) {
	if s == "" {
		return time.Time{}, true
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.Truncate(time.Second), true
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, loc); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// locations caches loaded time zones: LoadLocation reads the zone database every time.
var locations sync.Map // name → *time.Location

// loadLocation loads an IANA zone; "Local" (the server's own zone) is not a zone name.
func loadLocation(name string) (*time.Location, bool) {
	if l, ok := locations.Load(name); ok {
		return l.(*time.Location), true
	}
	if name == "Local" || strings.HasPrefix(name, "/") {
		return nil, false
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, false
	}
	locations.Store(name, loc)
	return loc, true
}

// bucketer maps instants to the key of their local day, ISO week or month. It remembers the
// last bucket's bounds, so records in time order cost one comparison each.
type bucketer struct {
	unit   string
	loc    *time.Location
	lo, hi int64 // unix seconds of the cached bucket [lo, hi)
	k      string
	valid  bool
}

func newBucketer(unit string, loc *time.Location) *bucketer { return &bucketer{unit: unit, loc: loc} }

// isTimeUnit reports whether groupBy is a time bucket.
func isTimeUnit(groupBy string) bool {
	return groupBy == "day" || groupBy == "week" || groupBy == "month"
}

// key returns t's bucket key and the bucket's start (unix seconds).
func (b *bucketer) key(t time.Time) (string, int64) {
	s := t.Unix()
	if b.valid && s >= b.lo && s < b.hi {
		return b.k, b.lo
	}
	lt := t.In(b.loc)
	y, m, d := lt.Date()
	var start, end time.Time
	switch b.unit {
	case "day":
		start, end = time.Date(y, m, d, 0, 0, 0, 0, b.loc), time.Date(y, m, d+1, 0, 0, 0, 0, b.loc)
		b.k = fmt.Sprintf("%04d-%02d-%02d", y, m, d)
	case "week":
		wy, w := lt.ISOWeek()
		back := (int(lt.Weekday()) + 6) % 7 // days since Monday
		start, end = time.Date(y, m, d-back, 0, 0, 0, 0, b.loc), time.Date(y, m, d-back+7, 0, 0, 0, 0, b.loc)
		b.k = fmt.Sprintf("%04d-W%02d", wy, w)
	default: // month
		start, end = time.Date(y, m, 1, 0, 0, 0, 0, b.loc), time.Date(y, m+1, 1, 0, 0, 0, 0, b.loc)
		b.k = fmt.Sprintf("%04d-%02d", y, m)
	}
	b.lo, b.hi, b.valid = start.Unix(), end.Unix(), true
	return b.k, b.lo
}

// groups accumulates one T per key, remembering the last key used (runs of equal keys are the
// common case).
type groups[T any] struct {
	m     map[string]*T
	lastK string
	last  *T
}

func newGroups[T any]() *groups[T] { return &groups[T]{m: map[string]*T{}} }

func (g *groups[T]) at(k string) *T {
	if g.last != nil && k == g.lastK {
		return g.last
	}
	v, ok := g.m[k]
	if !ok {
		v = new(T)
		g.m[k] = v
	}
	g.lastK, g.last = k, v
	return v
}

// sorted returns the keys in ascending order.
func (g *groups[T]) sorted() []string {
	keys := make([]string, 0, len(g.m))
	for k := range g.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// rate is num/den rounded half away from zero to 4 decimals, exactly (integer arithmetic,
// so 1/3 is 0.3333 and 2/3 is 0.6667 with no binary drift); 0 when den is 0.
func rate(num, den int64) float64 {
	switch {
	case den == 0:
		return 0
	case den < 0:
		return rate(-num, -den)
	case num < 0:
		return -rate(-num, den)
	case num > math.MaxInt64/20000-den:
		return math.Round(float64(num)/float64(den)*1e4) / 1e4 // beyond integer range: nearest float
	}
	return float64((num*20000+den)/(2*den)) / 10000
}

// unassigned is the key of records without a provider or service.
const unassigned = "unassigned"

// RevenueReport runs the revenue report.
func (a *Account) RevenueReport(r *ReportRequest) *reports.RevenueReport {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return revenueReport(a.sources(), r)
}

func revenueReport(src *reportSources, r *ReportRequest) *reports.RevenueReport {
	g := newGroups[reports.RevenueTotals]()
	var tot reports.RevenueTotals
	b := newBucketer(r.groupBy, r.loc)
	byTime := isTimeUnit(r.groupBy)
	var inv invoiceRow
	var apt apptRow
	// The last invoice's provider or service: an invoice's payments often come in a row.
	var lastInvoice, lastDim string
	// key is the bucket of a payment or refund: its time's, or its invoice's appointment's
	// provider or service.
	key := func(at time.Time, invoiceID string) string {
		switch {
		case byTime:
			k, _ := b.key(at)
			return k
		case invoiceID == lastInvoice:
			return lastDim
		}
		k := unassigned
		if src.invoice != nil && src.invoice(invoiceID, &inv) {
			k = apptDim(src, r.groupBy, inv.AppointmentID, &apt)
		}
		lastInvoice, lastDim = invoiceID, k
		return k
	}
	if src.invoices != nil {
		src.invoices(r.from, r.to, func(in *invoiceRow) bool {
			var k string
			if byTime {
				k, _ = b.key(in.CreatedAt)
			} else {
				k = apptDim(src, r.groupBy, in.AppointmentID, &apt)
			}
			m := g.at(k)
			m.Invoiced += in.Total
			m.Invoices++
			tot.Invoiced += in.Total
			tot.Invoices++
			return true
		})
	}
	if src.payments != nil {
		src.payments(r.from, r.to, func(p *paymentRow) bool {
			if p.Status != "succeeded" {
				return true
			}
			m := g.at(key(p.CreatedAt, p.InvoiceID))
			m.Collected += p.Amount
			m.Payments++
			tot.Collected += p.Amount
			tot.Payments++
			return true
		})
	}
	if src.refunds != nil {
		src.refunds(r.from, r.to, func(rf *refundRow) bool {
			g.at(key(rf.CreatedAt, rf.InvoiceID)).Refunded += rf.Amount
			tot.Refunded += rf.Amount
			return true
		})
	}
	for _, m := range g.m {
		m.Net = m.Collected - m.Refunded
	}
	tot.Net = tot.Collected - tot.Refunded
	out := &reports.RevenueReport{
		Report: reports.NameRevenue, From: r.from, To: r.to, Timezone: r.tz, GroupBy: r.groupBy, Currency: "usd",
		Data: []reports.RevenueRow{}, Totals: tot,
	}
	for _, k := range g.sorted() {
		out.Data = append(out.Data, reports.RevenueRow{Key: k, RevenueTotals: *g.m[k]})
	}
	return out
}

// apptDim is the provider or service of appointment id, or unassigned.
func apptDim(src *reportSources, groupBy, id string, into *apptRow) string {
	if id == "" || src.appointment == nil || !src.appointment(id, into) {
		return unassigned
	}
	v := into.ProviderID
	if groupBy == "service" {
		v = into.Service
	}
	if v == "" {
		return unassigned
	}
	return v
}

// apptCounts are per-status counts (in the protocol's metric order) and the total.
type apptCounts struct {
	by    [7]int64
	total int64
}

func (c *apptCounts) add(status string) {
	c.total++
	switch status {
	case "scheduled":
		c.by[0]++
	case "confirmed":
		c.by[1]++
	case "checked_in":
		c.by[2]++
	case "in_progress":
		c.by[3]++
	case "completed":
		c.by[4]++
	case "cancelled":
		c.by[5]++
	case "no_show":
		c.by[6]++
	}
}

func (c *apptCounts) totals() reports.AppointmentsTotals {
	return reports.AppointmentsTotals{
		Total: c.total, Scheduled: c.by[0], Confirmed: c.by[1], CheckedIn: c.by[2], InProgress: c.by[3],
		Completed: c.by[4], Cancelled: c.by[5], NoShow: c.by[6],
		NoShowRate:       rate(c.by[6], c.by[4]+c.by[6]),
		CancellationRate: rate(c.by[5], c.total),
	}
}

// AppointmentsReport runs the appointments report.
func (a *Account) AppointmentsReport(r *ReportRequest) *reports.AppointmentsReport {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return appointmentsReport(a.sources(), r)
}

func appointmentsReport(src *reportSources, r *ReportRequest) *reports.AppointmentsReport {
	g := newGroups[apptCounts]()
	var tot apptCounts
	b := newBucketer(r.groupBy, r.loc)
	if src.appointments != nil {
		src.appointments(r.from, r.to, func(ap *apptRow) bool {
			var k string
			switch r.groupBy {
			case "status":
				k = ap.Status
			case "provider":
				k = cmp.Or(ap.ProviderID, unassigned)
			case "service":
				k = cmp.Or(ap.Service, unassigned)
			default:
				k, _ = b.key(ap.StartAt)
			}
			g.at(k).add(ap.Status)
			tot.add(ap.Status)
			return true
		})
	}
	out := &reports.AppointmentsReport{
		Report: reports.NameAppointments, From: r.from, To: r.to, Timezone: r.tz, GroupBy: r.groupBy, Currency: "usd",
		Data: []reports.AppointmentsRow{}, Totals: tot.totals(),
	}
	for _, k := range g.sorted() {
		out.Data = append(out.Data, reports.AppointmentsRow{Key: k, AppointmentsTotals: g.m[k].totals()})
	}
	return out
}

// PatientsReport runs the patients report.
func (a *Account) PatientsReport(r *ReportRequest) *reports.PatientsReport {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return patientsReport(a.sources(), r)
}

func patientsReport(src *reportSources, r *ReportRequest) *reports.PatientsReport {
	g := newGroups[reports.PatientsTotals]()
	var tot reports.PatientsTotals
	b := newBucketer(r.groupBy, r.loc)
	if src.patients != nil {
		src.patients(r.from, r.to, func(p *patientRow) bool {
			k, _ := b.key(p.CreatedAt)
			g.at(k).NewPatients++
			tot.NewPatients++
			return true
		})
	}
	// Completed appointments since the beginning: each patient's first completed start, and
	// who was active in which bucket of the window.
	first := map[string]int64{}
	type activity struct{ bucket, patient string }
	active := map[activity]int64{} // → bucket start
	inWindow := map[string]bool{}
	from := r.from.Unix()
	if src.appointments != nil {
		src.appointments(time.Time{}, r.to, func(ap *apptRow) bool {
			if ap.Status != "completed" {
				return true
			}
			s := ap.StartAt.Unix()
			if f, ok := first[ap.PatientID]; !ok || s < f {
				first[ap.PatientID] = s
			}
			if s >= from {
				k, start := b.key(ap.StartAt)
				active[activity{k, ap.PatientID}] = start
				inWindow[ap.PatientID] = true
			}
			return true
		})
	}
	for act, start := range active {
		m := g.at(act.bucket)
		m.ActivePatients++
		if first[act.patient] < start {
			m.ReturningPatients++
		}
	}
	for p := range inWindow {
		tot.ActivePatients++
		if first[p] < from {
			tot.ReturningPatients++
		}
	}
	out := &reports.PatientsReport{
		Report: reports.NamePatients, From: r.from, To: r.to, Timezone: r.tz, GroupBy: r.groupBy, Currency: "usd",
		Data: []reports.PatientsRow{}, Totals: tot,
	}
	for _, k := range g.sorted() {
		out.Data = append(out.Data, reports.PatientsRow{Key: k, PatientsTotals: *g.m[k]})
	}
	return out
}
