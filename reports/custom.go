package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/medspa/medspa-go/client"
)

// Source is the record source of a custom report.
type Source string

// Custom report sources.
const (
	SourceAppointments         Source = "appointments"
	SourcePayments             Source = "payments"
	SourceInvoices             Source = "invoices"
	SourcePatients             Source = "patients"
	SourceInventoryAdjustments Source = "inventory_adjustments"
)

// Validate refuses a Source other than the five above (medspa.ErrInvalidArgument): the call
// path runs it before anything is sent.
func (s Source) Validate() error {
	return client.CheckEnum(s, SourceAppointments, SourcePayments, SourceInvoices, SourcePatients, SourceInventoryAdjustments)
}

// Metric is a column a custom report computes: MetricCount, or Sum, Avg, Min or Max of a
// numeric field of the source (written "sum:amount", and named so in the report's Columns).
type Metric string

// MetricCount counts the records of each group.
const MetricCount Metric = "count"

// Sum is the metric "sum:<field>": the sum of a numeric field.
func Sum(field string) Metric { return Metric("sum:" + field) }

// Avg is the metric "avg:<field>": the mean of a numeric field (nil over no records).
func Avg(field string) Metric { return Metric("avg:" + field) }

// Min is the metric "min:<field>": the least value of a numeric field (nil over no records).
func Min(field string) Metric { return Metric("min:" + field) }

// Max is the metric "max:<field>": the greatest value of a numeric field (nil over no records).
func Max(field string) Metric { return Metric("max:" + field) }

// Validate refuses a metric that is not count or <sum|avg|min|max>:<field>, the field a name
// of letters, digits and underscores (medspa.ErrInvalidArgument). Whether the source has the
// field is the server's to say.
func (m Metric) Validate() error {
	if m == MetricCount {
		return nil
	}
	op, field, _ := strings.Cut(string(m), ":")
	switch op {
	case "sum", "avg", "min", "max":
		if isFieldName(field) {
			return nil
		}
		return fmt.Errorf("%w: reports.Metric %s: the field is not a name of letters, digits and underscores", client.ErrInvalidArgument, op)
	}
	return fmt.Errorf("%w: reports.Metric is not count, or sum, avg, min or max of a field", client.ErrInvalidArgument)
}

// Dimension is what a custom report groups by: a string field of the source ("method",
// "providerId"), or DimensionDay, DimensionWeek, DimensionMonth of the source's time field.
type Dimension string

// Time dimensions of a custom report (local days, ISO weeks and months in its time zone).
const (
	DimensionDay   Dimension = "day"
	DimensionWeek  Dimension = "week"
	DimensionMonth Dimension = "month"
)

// Validate refuses a dimension that is not a field name of letters, digits and underscores
// (medspa.ErrInvalidArgument): anything else would be split or refused on the way.
func (d Dimension) Validate() error {
	if isFieldName(string(d)) {
		return nil
	}
	return fmt.Errorf("%w: reports.Dimension is not a field name of letters, digits and underscores", client.ErrInvalidArgument)
}

// CustomParams are the query of a custom report.
type CustomParams struct {
	// From and To are the window [From, To) on the source's time field (appointments
	// startAt, the others createdAt). A zero To is the end of the server's current second (what
	// was just written is inside); a zero From is 30 days before To.
	From time.Time `url:"from,omitempty"`
	To   time.Time `url:"to,omitempty"`
	// Timezone is the IANA zone of day/week/month dimensions (default UTC).
	Timezone string `url:"timezone,omitempty"`
	// Source is the record source (SourceAppointments, …). Required.
	Source Source `url:"source,omitempty"`
	// Metrics are MetricCount, Sum, Avg, Min or Max over numeric fields (default count).
	Metrics []Metric `url:"metrics,omitempty"`
	// GroupBy are 0–3 dimensions: string fields of the source, or DimensionDay, DimensionWeek,
	// DimensionMonth.
	GroupBy []Dimension `url:"groupBy,omitempty"`
	// Filters keep the records that match every one (see Where).
	Filters []Filter `url:"filter,repeat"`
}

// Filter keeps the records of a custom report whose Field (a string field of the source) is
// one of Values. It goes on the wire as filter=<field>:<v1>,<v2>, which has no escaping, so
// Validate refuses what that form cannot carry.
type Filter struct {
	Field  string
	Values []string
}

// Where returns the filter "field is one of values".
func Where(field string, values ...string) Filter { return Filter{Field: field, Values: values} }

// Validate refuses a filter the wire cannot carry as written (medspa.ErrInvalidArgument): a
// field that is not a name of letters, digits and underscores, no values, or a value that is
// empty or holds a comma (it would be split into two values) or a control character. The error
// says which value, by position, never by content.
func (f Filter) Validate() error {
	if !isFieldName(f.Field) {
		return fmt.Errorf("%w: reports.Filter field is not a name of letters, digits and underscores", client.ErrInvalidArgument)
	}
	if len(f.Values) == 0 {
		return fmt.Errorf("%w: reports.Filter on %s has no values", client.ErrInvalidArgument, f.Field)
	}
	for i, v := range f.Values {
		switch {
		case v == "":
			return fmt.Errorf("%w: reports.Filter on %s: value %d is empty", client.ErrInvalidArgument, f.Field, i)
		case strings.Contains(v, ","):
			return fmt.Errorf("%w: reports.Filter on %s: value %d holds a comma, which the wire form would split", client.ErrInvalidArgument, f.Field, i)
		case strings.IndexFunc(v, unicode.IsControl) >= 0 || !utf8.ValidString(v):
			return fmt.Errorf("%w: reports.Filter on %s: value %d holds a control character or invalid UTF-8", client.ErrInvalidArgument, f.Field, i)
		}
	}
	return nil
}

// MarshalText writes the wire form, field:v1,v2, or Validate's error.
func (f Filter) MarshalText() ([]byte, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return []byte(f.Field + ":" + strings.Join(f.Values, ",")), nil
}

// isFieldName reports a name of ASCII letters, digits and underscores, starting with a letter:
// the shape of every field of every source (docs/protocol.md §9, camelCase).
func isFieldName(s string) bool {
	for i, r := range s {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || r != '_' && (r < '0' || r > '9')) {
			return false
		}
	}
	return s != ""
}

// CustomReport is a custom report: one row per group, the dimension values (strings) then the
// metrics (int64, or float64 for avg; nil for avg/min/max of an empty window) in Columns order.
type CustomReport struct {
	Report   Name      `json:"report"`
	Source   string    `json:"source"`
	From     time.Time `json:"from"`
	To       time.Time `json:"to"`
	Timezone string    `json:"timezone"`
	GroupBy  []string  `json:"groupBy"`
	Metrics  []string  `json:"metrics"`
	Columns  []string  `json:"columns"`
	Rows     [][]any   `json:"rows"`
}

// UnmarshalJSON decodes avg columns as float64 and other numbers as int64 (float64 if they
// are not integers).
func (r *CustomReport) UnmarshalJSON(b []byte) error {
	type plain CustomReport
	var raw struct {
		plain
		Rows [][]json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*r = CustomReport(raw.plain)
	r.Rows = make([][]any, len(raw.Rows))
	for i, row := range raw.Rows {
		r.Rows[i] = make([]any, len(row))
		for j, cell := range row {
			d := json.NewDecoder(bytes.NewReader(cell))
			d.UseNumber()
			var v any
			if err := d.Decode(&v); err != nil {
				return err
			}
			if n, ok := v.(json.Number); ok {
				avg := j < len(r.Columns) && strings.HasPrefix(r.Columns[j], "avg:")
				if k, err := n.Int64(); err == nil && !avg {
					v = k
				} else if v, err = n.Float64(); err != nil {
					return fmt.Errorf("reports: row %d column %d: %w", i, j, err)
				}
			}
			r.Rows[i][j] = v
		}
	}
	return nil
}

// Maps returns the rows as maps from column name to value.
func (r *CustomReport) Maps() []map[string]any {
	out := make([]map[string]any, len(r.Rows))
	for i, row := range r.Rows {
		m := make(map[string]any, len(r.Columns))
		for j, c := range r.Columns {
			if j < len(row) {
				m[c] = row[j]
			}
		}
		out[i] = m
	}
	return out
}

// Decode returns the rows as structs of type T. A column fills the field tagged
// `report:"<column>"`, else the exported field whose name equals the column ignoring case;
// columns without a field are skipped. Strings go to string fields, numbers to integer or
// float fields, nil leaves the zero value (or sets a pointer field to nil).
func Decode[T any](r *CustomReport) ([]T, error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("reports: Decode needs a struct type, got %s", t)
	}
	index := make([][]int, len(r.Columns))
	for j, c := range r.Columns {
		index[j] = fieldFor(t, c)
	}
	out := make([]T, len(r.Rows))
	for i, row := range r.Rows {
		v := reflect.ValueOf(&out[i]).Elem()
		for j, cell := range row {
			if j >= len(index) || index[j] == nil || cell == nil {
				continue
			}
			if err := assign(v.FieldByIndex(index[j]), cell); err != nil {
				return nil, fmt.Errorf("reports: row %d column %q: %w", i, r.Columns[j], err)
			}
		}
	}
	return out, nil
}

// fieldFor finds the field for a column: by report tag first, then by name.
func fieldFor(t reflect.Type, column string) []int {
	var byName []int
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		if tag, ok := f.Tag.Lookup("report"); ok {
			if tag == column {
				return f.Index
			}
			continue
		}
		if byName == nil && strings.EqualFold(f.Name, column) {
			byName = f.Index
		}
	}
	return byName
}

func assign(f reflect.Value, cell any) error {
	if f.Kind() == reflect.Pointer {
		p := reflect.New(f.Type().Elem())
		if err := assign(p.Elem(), cell); err != nil {
			return err
		}
		f.Set(p)
		return nil
	}
	switch c := cell.(type) {
	case string:
		if f.Kind() == reflect.String {
			f.SetString(c)
			return nil
		}
	case int64:
		switch f.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if f.OverflowInt(c) {
				return fmt.Errorf("%d overflows %s", c, f.Type())
			}
			f.SetInt(c)
			return nil
		case reflect.Float32, reflect.Float64:
			f.SetFloat(float64(c))
			return nil
		}
	case float64:
		if f.Kind() == reflect.Float32 || f.Kind() == reflect.Float64 {
			f.SetFloat(c)
			return nil
		}
	}
	if f.Kind() == reflect.Interface && reflect.TypeOf(cell).AssignableTo(f.Type()) {
		f.Set(reflect.ValueOf(cell))
		return nil
	}
	return fmt.Errorf("cannot store %T in a %s field", cell, f.Type())
}
