package httpapi

import (
	"bytes"
	"encoding/csv"
	"mime"
	"strconv"
	"strings"

	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/reports"
)

// runReport is the handler of one report: it reads the query, lets the store validate and run
// it, and answers JSON or (Accept: text/csv) CSV. Reports hold no PHI, so nothing is audited.
func runReport(name reports.Name) func(rq *request) (int, any, error) {
	return func(rq *request) (int, any, error) {
		q := rq.parseQuery()
		in := store.ReportQuery{
			From: q.nonEmpty("from"), To: q.nonEmpty("to"), Timezone: q.nonEmpty("timezone"),
		}
		if name == reports.NameCustom {
			in.GroupBy = q.str("groupBy", 1000) // empty: no dimensions
			in.Source, in.Metrics = q.nonEmpty("source"), q.nonEmpty("metrics")
			in.Filters = q.v["filter"]
		} else {
			in.GroupBy = q.nonEmpty("groupBy")
		}
		req, errs := store.ParseReport(string(name), in, rq.acct.Now())
		q.errs = append(q.errs, errs...)
		if err := q.done(); err != nil {
			return 0, nil, err
		}
		var v any
		var table [][]string
		switch name {
		case reports.NameRevenue:
			r := rq.acct.RevenueReport(req)
			v, table = r, revenueTable(r)
		case reports.NameAppointments:
			r := rq.acct.AppointmentsReport(req)
			v, table = r, appointmentsTable(r)
		case reports.NamePatients:
			r := rq.acct.PatientsReport(req)
			v, table = r, patientsTable(r)
		default:
			r := rq.acct.CustomReport(req)
			v, table = r, customTable(r)
		}
		if !wantsCSV(rq.Header.Get("Accept")) {
			return ok, v, nil
		}
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		_ = w.WriteAll(table) // a bytes.Buffer does not fail
		return ok, rawBody{contentType: "text/csv; charset=utf-8", body: buf.Bytes()}, nil
	}
}

// nonEmpty reads an optional parameter that, when given, must not be empty.
func (q *query) nonEmpty(name string) string {
	s, present := q.one(name)
	if present && s == "" {
		q.fail(name, "invalid_value", "must not be empty")
	}
	if len(s) > 1000 {
		q.fail(name, "too_long", "must be at most 1000 characters")
		return ""
	}
	return s
}

// wantsCSV reports whether the Accept header prefers text/csv to application/json.
func wantsCSV(accept string) bool {
	var csvQ, jsonQ float64 = -1, -1
	for part := range strings.SplitSeq(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		qv := 1.0
		if s, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				qv = f
			}
		}
		switch mt {
		case "text/csv":
			csvQ = max(csvQ, qv)
		case "application/json":
			jsonQ = max(jsonQ, qv)
		}
	}
	return csvQ > 0 && csvQ >= jsonQ
}

// cell is a CSV text cell. A value a spreadsheet would run as a formula (leading =, +, -, @,
// tab or carriage return) is prefixed with a single quote (OWASP "CSV injection").
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func i64(n int64) string                           { return strconv.FormatInt(n, 10) }
func f64(f float64) string                         { return strconv.FormatFloat(f, 'f', -1, 64) }
func withKey(k string, metrics ...string) []string { return append([]string{cell(k)}, metrics...) }

func revenueTable(r *reports.RevenueReport) [][]string {
	t := [][]string{{"key", "collected", "payments", "invoiced", "invoices", "refunded", "net"}}
	for _, d := range r.Data {
		t = append(t, withKey(d.Key, i64(d.Collected), i64(d.Payments), i64(d.Invoiced), i64(d.Invoices),
			i64(d.Refunded), i64(d.Net)))
	}
	return t
}

func appointmentsTable(r *reports.AppointmentsReport) [][]string {
	t := [][]string{{"key", "total", "scheduled", "confirmed", "checkedIn", "inProgress", "completed", "cancelled",
		"noShow", "noShowRate", "cancellationRate"}}
	for _, d := range r.Data {
		t = append(t, withKey(d.Key, i64(d.Total), i64(d.Scheduled), i64(d.Confirmed), i64(d.CheckedIn),
			i64(d.InProgress), i64(d.Completed), i64(d.Cancelled), i64(d.NoShow), f64(d.NoShowRate), f64(d.CancellationRate)))
	}
	return t
}

func patientsTable(r *reports.PatientsReport) [][]string {
	t := [][]string{{"key", "newPatients", "activePatients", "returningPatients"}}
	for _, d := range r.Data {
		t = append(t, withKey(d.Key, i64(d.NewPatients), i64(d.ActivePatients), i64(d.ReturningPatients)))
	}
	return t
}

func customTable(r *reports.CustomReport) [][]string {
	t := [][]string{r.Columns}
	for _, row := range r.Rows {
		line := make([]string, len(row))
		for i, v := range row {
			switch v := v.(type) {
			case string:
				line[i] = cell(v)
			case int64:
				line[i] = i64(v)
			case float64:
				line[i] = f64(v)
			}
		}
		t = append(t, line)
	}
	return t
}
