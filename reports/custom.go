package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Custom report sources.
const (
	SourceAppointments         = "appointments"
	SourcePayments             = "payments"
	SourceInvoices             = "invoices"
	SourcePatients             = "patients"
	SourceInventoryAdjustments = "inventory_adjustments"
)

// CustomParams are the query of a custom report.
type CustomParams struct {
	// From and To are the window on the source's time field (appointments startAt, the others
	// createdAt); zero takes the 30 days up to now.
	From time.Time `url:"from,omitempty"`
	To   time.Time `url:"to,omitempty"`
	// Timezone is the IANA zone of day/week/month dimensions (default UTC).
	Timezone string `url:"timezone,omitempty"`
	// Source is the record source (SourceAppointments, ...). Required.
	Source string `url:"source,omitempty"`
	// Metrics are count, sum:<field>, avg:<field>, min:<field> or max:<field> over numeric
	// fields (default count).
	Metrics []string `url:"metrics,omitempty"`
	// GroupBy are 0–3 dimensions: string fields of the source, or day, week, month.
	GroupBy []string `url:"groupBy,omitempty"`
	// Filters are "<field>:<v1>,<v2>" (see Filter): values OR'ed, filters AND'ed.
	Filters []string `url:"filter,repeat"`
}

// Filter builds a custom-report filter: field equal to any of values.
func Filter(field string, values ...string) string {
	return field + ":" + strings.Join(values, ",")
}

// CustomReport is a custom report: one row per group, the dimension values (strings) then the
// metrics (int64, or float64 for avg; nil for avg/min/max of an empty window) in Columns order.
type CustomReport struct {
	Report   string    `json:"report"`
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
