package httpapi

import (
	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/jsonx"
	"github.com/medspa/medspa-go/patients"
)

// A fenced optimisation (BENCHMARKS.md "Fenced optimisations"), kept by BenchmarkFenceEncoders:
// the busiest answers (patients, one or a page) encode themselves, byte for byte as
// encoding/json would, skipping reflection. TestEncodersMatchEncodingJSON and
// FuzzPatientEncoding hold each to encoding/json's output.

// jsonAppender is a handler result that encodes itself, into a buffer of about sizeHint bytes.
type jsonAppender interface {
	appendJSON(b []byte) []byte
	sizeHint() int
}

// patientJSON is a patient answer.
type patientJSON patients.Patient

// patientSize is about the length of one patient's JSON in a list, for the answer's first
// buffer (one with every field: twice that).
const patientSize = 256

func (p *patientJSON) sizeHint() int { return 2 * patientSize }

func (p *patientJSON) appendJSON(b []byte) []byte {
	b = append(b, '{')
	b = requiredString(b, "id", p.ID)
	b = requiredString(b, "firstName", p.FirstName)
	b = requiredString(b, "lastName", p.LastName)
	b = requiredString(b, "email", p.Email)
	b = optionalString(b, "phone", p.Phone)
	if !p.DateOfBirth.IsZero() {
		b = jsonx.Field(b, "dateOfBirth")
		b = appendDate(b, p.DateOfBirth)
	}
	b = optionalString(b, "gender", string(p.Gender))
	if a := p.Address; a != nil {
		b = jsonx.Field(b, "address")
		b = append(b, '{')
		b = optionalString(b, "line1", a.Line1)
		b = optionalString(b, "line2", a.Line2)
		b = optionalString(b, "city", a.City)
		b = optionalString(b, "state", a.State)
		b = optionalString(b, "postalCode", a.PostalCode)
		b = optionalString(b, "country", a.Country)
		b = append(b, '}')
	}
	b = optionalStrings(b, "allergies", p.Allergies)
	b = optionalString(b, "notes", p.Notes)
	b = optionalStrings(b, "tags", p.Tags)
	b = jsonx.Field(b, "createdAt")
	created := len(b)
	b = jsonx.Time(b, p.CreatedAt)
	createdEnd := len(b)
	b = jsonx.Field(b, "updatedAt")
	if p.UpdatedAt == p.CreatedAt { // never updated: the same instant, location and all, writes the same bytes
		return append(append(b, b[created:createdEnd]...), '}')
	}
	b = jsonx.Time(b, p.UpdatedAt)
	return append(b, '}')
}

// requiredString appends a string member.
func requiredString(b []byte, name, v string) []byte { return jsonx.String(jsonx.Field(b, name), v) }

// optionalString appends an omitempty string member.
func optionalString(b []byte, name, v string) []byte {
	if v == "" {
		return b
	}
	return requiredString(b, name, v)
}

// optionalStrings appends an omitempty string-array member.
func optionalStrings(b []byte, name string, vs []string) []byte {
	if len(vs) == 0 {
		return b
	}
	return jsonx.Strings(jsonx.Field(b, name), vs)
}

// appendDate appends d as its MarshalText does, quoted.
func appendDate(b []byte, d wire.Date) []byte {
	b = append(b, '"')
	if d.Year < 0 || d.Year > 9999 || d.Month < 1 || d.Month > 12 || d.Day < 1 || d.Day > 99 {
		t, _ := d.MarshalText() // never fails
		b = append(b, t...)
		return append(b, '"')
	}
	y, m := d.Year, int(d.Month)
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d.Day/10), byte('0'+d.Day%10))
	return append(b, '"')
}

// patientList is a page of patients; page, when set, is the pooled slice Data lives in
// (pools.go), given back once the page is encoded (release).
type patientList struct {
	listAnswer[patients.Patient]
	page *[]patients.Patient
}

// release gives the page's slice back to its pool, zeroed.
func (l *patientList) release() {
	if l.page != nil {
		releasePage(l.page, l.Data)
		l.page, l.Data = nil, nil
	}
}

func (l *patientList) sizeHint() int { return 64 + len(l.Data)*patientSize }

func (l *patientList) appendJSON(b []byte) []byte {
	b = append(b, `{"data":[`...)
	for i := range l.Data {
		if i > 0 {
			b = append(b, ',')
		}
		b = (*patientJSON)(&l.Data[i]).appendJSON(b)
	}
	b = append(b, `],"meta":{"total":`...)
	b = jsonx.Int(b, int64(l.Meta.Total))
	b = append(b, `,"page":`...)
	b = jsonx.Int(b, int64(l.Meta.Page))
	b = append(b, `,"perPage":`...)
	b = jsonx.Int(b, int64(l.Meta.PerPage))
	return append(b, `}}`...)
}
