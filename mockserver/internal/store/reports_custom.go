package store

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/medspa/medspa-go/reports"
)

// fieldKind is what a custom-report field can be used for.
type fieldKind int

const (
	kindString fieldKind = iota // dimension or filter
	kindNumber                  // sum, avg, min, max
	kindTime                    // the window (through day/week/month)
	kindPHI                     // nothing: protected health information
)

// customField is one field of a source's schema with its accessor (string or number kind).
type customField[R any] struct {
	name string
	kind fieldKind
	str  func(*R) string
	num  func(*R) int64
}

// customSource is a source's schema: its fields, its rows and its time field.
type customSource[R any] struct {
	fields []customField[R]
	rows   func(*reportSources) rowIter[R]
	when   func(*R) time.Time
}

// customSchema is the part of a source the parser needs, and its runner.
type customSchema interface {
	kind(field string) (fieldKind, bool)
	names(k fieldKind) []string
	run(src *reportSources, r *ReportRequest) [][]any
}

func (s *customSource[R]) field(name string) *customField[R] {
	for i := range s.fields {
		if s.fields[i].name == name {
			return &s.fields[i]
		}
	}
	return nil
}

func (s *customSource[R]) kind(name string) (fieldKind, bool) {
	if f := s.field(name); f != nil {
		return f.kind, true
	}
	return 0, false
}

func (s *customSource[R]) names(k fieldKind) []string {
	var out []string
	for _, f := range s.fields {
		if f.kind == k {
			out = append(out, f.name)
		}
	}
	return out
}

func str[R any](name string, get func(*R) string) customField[R] {
	return customField[R]{name: name, kind: kindString, str: get}
}

func num[R any](name string, get func(*R) int64) customField[R] {
	return customField[R]{name: name, kind: kindNumber, num: get}
}

func fieldsOf[R any](k fieldKind, names ...string) []customField[R] {
	out := make([]customField[R], len(names))
	for i, n := range names {
		out[i] = customField[R]{name: n, kind: k}
	}
	return out
}

// customSources are the custom report's sources and their schemas.
var customSources = map[string]customSchema{
	string(reports.SourceAppointments): &customSource[apptRow]{
		fields: slices.Concat(
			[]customField[apptRow]{
				str("id", func(r *apptRow) string { return r.ID }),
				str("patientId", func(r *apptRow) string { return r.PatientID }),
				str("providerId", func(r *apptRow) string { return r.ProviderID }),
				str("service", func(r *apptRow) string { return r.Service }),
				str("roomId", func(r *apptRow) string { return r.RoomID }),
				str("status", func(r *apptRow) string { return r.Status }),
				num("durationMinutes", func(r *apptRow) int64 { return int64(r.EndAt.Sub(r.StartAt) / time.Minute) }),
			},
			fieldsOf[apptRow](kindTime, "startAt", "endAt", "createdAt"),
			fieldsOf[apptRow](kindPHI, "notes", "cancellationReason"),
		),
		rows: func(s *reportSources) rowIter[apptRow] { return s.appointments },
		when: func(r *apptRow) time.Time { return r.StartAt },
	},
	string(reports.SourcePayments): &customSource[paymentRow]{
		fields: slices.Concat(
			[]customField[paymentRow]{
				str("id", func(r *paymentRow) string { return r.ID }),
				str("invoiceId", func(r *paymentRow) string { return r.InvoiceID }),
				str("status", func(r *paymentRow) string { return r.Status }),
				str("method", func(r *paymentRow) string { return r.Method }),
				str("currency", func(r *paymentRow) string { return r.Currency }),
				str("cardBrand", func(r *paymentRow) string { return r.CardBrand }),
				str("declineCode", func(r *paymentRow) string { return r.DeclineCode }),
				num("amount", func(r *paymentRow) int64 { return r.Amount }),
			},
			fieldsOf[paymentRow](kindTime, "createdAt"),
		),
		rows: func(s *reportSources) rowIter[paymentRow] { return s.payments },
		when: func(r *paymentRow) time.Time { return r.CreatedAt },
	},
	string(reports.SourceInvoices): &customSource[invoiceRow]{
		fields: slices.Concat(
			[]customField[invoiceRow]{
				str("id", func(r *invoiceRow) string { return r.ID }),
				str("patientId", func(r *invoiceRow) string { return r.PatientID }),
				str("appointmentId", func(r *invoiceRow) string { return r.AppointmentID }),
				str("status", func(r *invoiceRow) string { return r.Status }),
				str("currency", func(r *invoiceRow) string { return r.Currency }),
				num("subtotal", func(r *invoiceRow) int64 { return r.Subtotal }),
				num("discountAmount", func(r *invoiceRow) int64 { return r.DiscountAmount }),
				num("tax", func(r *invoiceRow) int64 { return r.Tax }),
				num("total", func(r *invoiceRow) int64 { return r.Total }),
				num("amountPaid", func(r *invoiceRow) int64 { return r.AmountPaid }),
				num("amountDue", func(r *invoiceRow) int64 { return r.AmountDue }),
				num("taxRateBps", func(r *invoiceRow) int64 { return r.TaxRateBps }),
			},
			fieldsOf[invoiceRow](kindTime, "createdAt", "dueAt", "paidAt"),
			fieldsOf[invoiceRow](kindPHI, "notes"),
		),
		rows: func(s *reportSources) rowIter[invoiceRow] { return s.invoices },
		when: func(r *invoiceRow) time.Time { return r.CreatedAt },
	},
	string(reports.SourcePatients): &customSource[patientRow]{
		fields: slices.Concat(
			[]customField[patientRow]{str("id", func(r *patientRow) string { return r.ID })},
			fieldsOf[patientRow](kindTime, "createdAt", "updatedAt"),
			fieldsOf[patientRow](kindPHI, "firstName", "lastName", "email", "phone", "dateOfBirth", "gender", "address",
				"allergies", "notes"),
		),
		rows: func(s *reportSources) rowIter[patientRow] { return s.patients },
		when: func(r *patientRow) time.Time { return r.CreatedAt },
	},
	string(reports.SourceInventoryAdjustments): &customSource[adjustmentRow]{
		fields: slices.Concat(
			[]customField[adjustmentRow]{
				str("id", func(r *adjustmentRow) string { return r.ID }),
				str("productId", func(r *adjustmentRow) string { return r.ProductID }),
				str("location", func(r *adjustmentRow) string { return r.Location }),
				str("reason", func(r *adjustmentRow) string { return r.Reason }),
				str("lotNumber", func(r *adjustmentRow) string { return r.LotNumber }),
				str("reference", func(r *adjustmentRow) string { return r.Reference }),
				num("delta", func(r *adjustmentRow) int64 { return r.Delta }),
				num("onHandAfter", func(r *adjustmentRow) int64 { return r.OnHandAfter }),
			},
			fieldsOf[adjustmentRow](kindTime, "createdAt"),
			fieldsOf[adjustmentRow](kindPHI, "note"),
		),
		rows: func(s *reportSources) rowIter[adjustmentRow] { return s.adjustments },
		when: func(r *adjustmentRow) time.Time { return r.CreatedAt },
	},
}

// customSourceNames are the sources in the protocol's order.
var customSourceNames = []string{
	string(reports.SourceAppointments), string(reports.SourcePayments), string(reports.SourceInvoices), string(reports.SourcePatients),
	string(reports.SourceInventoryAdjustments),
}

// maxDimensions is the most groupBy dimensions a custom report takes.
const maxDimensions = 3

// customSpec is a validated custom report: source, dimensions, metrics and filters.
type customSpec struct {
	source  string
	schema  customSchema
	dims    []string
	metrics []metricSpec
	filters []filterSpec
}

// metricSpec is one metric: op (count, sum, avg, min, max), its field, and as written.
type metricSpec struct{ op, field, written string }

// filterSpec keeps records whose field is one of values.
type filterSpec struct {
	field  string
	values []string
}

var metricOps = []string{"count", "sum", "avg", "min", "max"}

const metricsAllowed = "count, sum:<field>, avg:<field>, min:<field>, max:<field>"

// allowedList describes allowed names for an error detail.
func allowedList(names []string) string {
	if len(names) == 0 {
		return "none for this source"
	}
	return strings.Join(names, ", ")
}

// parseCustom validates the custom report's source, metrics, groupBy and filters. Details list
// the allowed names and never echo the submitted ones.
func parseCustom(q ReportQuery, fail func(name, code, detail string)) *customSpec {
	if q.Source == "" {
		fail("source", "required", "is required: one of "+strings.Join(customSourceNames, ", "))
		return nil
	}
	schema, ok := customSources[q.Source]
	if !ok {
		fail("source", "invalid_value", "must be one of "+strings.Join(customSourceNames, ", "))
		return nil
	}
	spec := &customSpec{source: q.Source, schema: schema, dims: []string{}}
	numbers := schema.names(kindNumber)
	strs := schema.names(kindString)

	metrics := q.Metrics
	if metrics == "" {
		metrics = "count"
	}
	for _, m := range strings.Split(metrics, ",") {
		op, field, hasField := strings.Cut(m, ":")
		switch {
		case !slices.Contains(metricOps, op) || (op == "count") == hasField:
			fail("metrics", "invalid_value", "unknown metric; allowed: "+metricsAllowed)
			continue
		case op != "count":
			switch k, ok := schema.kind(field); {
			case !ok:
				fail("metrics", "invalid_value", "unknown field; numeric fields of this source: "+allowedList(numbers))
				continue
			case k == kindPHI:
				fail("metrics", "invalid_value", "a PHI field can't be a metric; numeric fields of this source: "+allowedList(numbers))
				continue
			case k != kindNumber:
				fail("metrics", "invalid_value", "not a numeric field; numeric fields of this source: "+allowedList(numbers))
				continue
			}
		}
		if slices.ContainsFunc(spec.metrics, func(s metricSpec) bool { return s.written == m }) {
			fail("metrics", "invalid_value", "metrics must be distinct")
			continue
		}
		spec.metrics = append(spec.metrics, metricSpec{op: op, field: field, written: m})
	}

	dimsAllowed := "day, week, month, " + allowedList(strs)
	if q.GroupBy != "" {
		dims := strings.Split(q.GroupBy, ",")
		if len(dims) > maxDimensions {
			fail("groupBy", "out_of_range", "at most 3 dimensions")
		}
		for _, d := range dims {
			k, ok := schema.kind(d)
			switch {
			case isTimeUnit(d):
			case !ok:
				fail("groupBy", "invalid_value", "unknown dimension; allowed: "+dimsAllowed)
				continue
			case k == kindPHI:
				fail("groupBy", "invalid_value", "a PHI field can't be a dimension; allowed: "+dimsAllowed)
				continue
			case k != kindString:
				fail("groupBy", "invalid_value", "not a dimension (only string fields, or day, week, month); allowed: "+dimsAllowed)
				continue
			}
			if slices.Contains(spec.dims, d) {
				fail("groupBy", "invalid_value", "dimensions must be distinct")
				continue
			}
			spec.dims = append(spec.dims, d)
		}
	}

	for _, f := range q.Filters {
		field, vals, ok := strings.Cut(f, ":")
		if !ok || field == "" || vals == "" {
			fail("filter", "invalid_format", "must be <field>:<value>[,<value>...]")
			continue
		}
		switch k, ok := schema.kind(field); {
		case !ok:
			fail("filter", "invalid_value", "unknown field; string fields of this source: "+allowedList(strs))
			continue
		case k == kindPHI:
			fail("filter", "invalid_value", "a PHI field can't be filtered on; string fields of this source: "+allowedList(strs))
			continue
		case k != kindString:
			fail("filter", "invalid_value", "only string fields can be filtered; string fields of this source: "+allowedList(strs))
			continue
		}
		spec.filters = append(spec.filters, filterSpec{field: field, values: strings.Split(vals, ",")})
	}
	return spec
}

// CustomReport runs a custom report.
func (a *Account) CustomReport(r *ReportRequest) *reports.CustomReport {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return customReport(a.sources(), r)
}

func customReport(src *reportSources, r *ReportRequest) *reports.CustomReport {
	c := r.custom
	out := &reports.CustomReport{
		Report: reports.NameCustom, Source: c.source, From: r.from, To: r.to, Timezone: r.tz,
		GroupBy: c.dims, Metrics: []string{}, Columns: slices.Clone(c.dims),
	}
	for _, m := range c.metrics {
		out.Metrics = append(out.Metrics, m.written)
		out.Columns = append(out.Columns, m.written)
	}
	out.Rows = c.schema.run(src, r)
	return out
}

// customGroup accumulates one row of a custom report.
type customGroup struct {
	dims             []string
	count            int64
	sums, mins, maxs []int64
}

func (s *customSource[R]) run(src *reportSources, r *ReportRequest) [][]any {
	c := r.custom
	// Compile dimensions, filters and metrics to accessors.
	dims := make([]func(*R) string, len(c.dims))
	for i, d := range c.dims {
		if isTimeUnit(d) {
			b := newBucketer(d, r.loc)
			dims[i] = func(row *R) string { k, _ := b.key(s.when(row)); return k }
		} else {
			dims[i] = s.field(d).str
		}
	}
	type filter struct {
		get    func(*R) string
		values []string
	}
	filters := make([]filter, len(c.filters))
	for i, f := range c.filters {
		filters[i] = filter{s.field(f.field).str, f.values}
	}
	nums := make([]func(*R) int64, len(c.metrics))
	for i, m := range c.metrics {
		if m.op != "count" {
			nums[i] = s.field(m.field).num
		}
	}

	groups := map[string]*customGroup{}
	var key []byte
	vals := make([]string, len(dims))
	if it := s.rows(src); it != nil {
		it(r.from, r.to, func(row *R) bool {
			for _, f := range filters {
				if !slices.Contains(f.values, f.get(row)) {
					return true
				}
			}
			key = key[:0]
			for i, d := range dims {
				vals[i] = d(row)
				key = append(append(key, vals[i]...), 0)
			}
			g, ok := groups[string(key)]
			if !ok {
				n := len(nums)
				g = &customGroup{dims: slices.Clone(vals), sums: make([]int64, n), mins: make([]int64, n), maxs: make([]int64, n)}
				for i := range n {
					g.mins[i], g.maxs[i] = math.MaxInt64, math.MinInt64
				}
				groups[string(key)] = g
			}
			g.count++
			for i, get := range nums {
				if get == nil {
					continue
				}
				v := get(row)
				g.sums[i] += v
				g.mins[i] = min(g.mins[i], v)
				g.maxs[i] = max(g.maxs[i], v)
			}
			return true
		})
	}
	if len(dims) == 0 && len(groups) == 0 {
		// Without dimensions the one row is the whole window, even when it is empty.
		groups[""] = &customGroup{dims: []string{}, sums: make([]int64, len(nums))}
	}
	list := make([]*customGroup, 0, len(groups))
	for _, g := range groups {
		list = append(list, g)
	}
	slices.SortFunc(list, func(a, b *customGroup) int { return slices.Compare(a.dims, b.dims) })
	rows := make([][]any, 0, len(list))
	for _, g := range list {
		row := make([]any, 0, len(g.dims)+len(c.metrics))
		for _, d := range g.dims {
			row = append(row, d)
		}
		for i, m := range c.metrics {
			switch {
			case m.op == "count":
				row = append(row, g.count)
			case m.op == "sum":
				row = append(row, g.sums[i])
			case g.count == 0:
				row = append(row, nil)
			case m.op == "avg":
				row = append(row, rate(g.sums[i], g.count))
			case m.op == "min":
				row = append(row, g.mins[i])
			default:
				row = append(row, g.maxs[i])
			}
		}
		rows = append(rows, row)
	}
	return rows
}
