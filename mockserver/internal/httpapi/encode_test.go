package httpapi

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/patients"
)

// checkPatientEncoding fails t unless the hand-written encoders write exactly what
// encoding/json writes for p, alone and in a page.
func checkPatientEncoding(t *testing.T, p patients.Patient) {
	t.Helper()
	want, err := json.Marshal(p)
	if err != nil {
		t.Skip("encoding/json refuses the value:", err)
	}
	if got := (*patientJSON)(&p).appendJSON(nil); string(got) != string(want) {
		t.Errorf("patient:\n got %s\nwant %s", got, want)
	}
	w := store.Window{Page: 3, PerPage: 25}
	for _, items := range [][]patients.Patient{nil, {p}, {p, {ID: "pat_2"}}} {
		want, _ := json.Marshal(list(items, 1234, w))
		if got := (&patientList{listAnswer: list(items, 1234, w)}).appendJSON(nil); string(got) != string(want) {
			t.Errorf("page of %d:\n got %s\nwant %s", len(items), got, want)
		}
	}
}

func TestEncodersMatchEncodingJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 24, 6, 40, 1, 0, time.UTC)
	full := patients.Patient{ID: "pat_0123", FirstName: "Zoë", LastName: "O'Brien <&>", Email: "z@example.com",
		Phone: "+15550001234", DateOfBirth: client.NewDate(1971, time.March, 4), Gender: patients.GenderFemale,
		Address:   &patients.Address{Line1: "742 \"Evergreen\"\tTerrace", City: "Springfield\u2028", Country: "US"},
		Allergies: []string{"penicillin", "", "\x00\x7f"}, Notes: "bad utf-8 \xff\xfe; emoji 🙂", Tags: []string{"vip"},
		CreatedAt: at, UpdatedAt: at.Add(1500 * time.Millisecond)}
	for name, p := range map[string]patients.Patient{
		"zero":                 {},
		"required only":        {ID: "pat_1", FirstName: "A", LastName: "B", Email: "a@b.example", CreatedAt: at, UpdatedAt: at},
		"every field":          full,
		"empty address":        {Address: &patients.Address{}},
		"empty lists":          {Allergies: []string{}, Tags: []string{}},
		"year 5":               {DateOfBirth: client.NewDate(5, time.January, 9)},
		"year 12000":           {DateOfBirth: client.NewDate(12000, time.December, 31)},
		"negative year":        {DateOfBirth: client.Date{Year: -3, Month: 2, Day: 1}},
		"odd month":            {DateOfBirth: client.Date{Year: 2000, Month: 13, Day: 40}},
		"offset time":          {CreatedAt: at.In(time.FixedZone("x", -5*3600+1800)), UpdatedAt: at.Add(time.Nanosecond)},
		"never updated":        {CreatedAt: at, UpdatedAt: at},
		"same instant, zones":  {CreatedAt: at, UpdatedAt: at.In(time.FixedZone("y", 3600))},
		"same offset time":     {CreatedAt: at.Add(7).In(time.FixedZone("x", -1800)), UpdatedAt: at.Add(7).In(time.FixedZone("x", -1800))},
		"control in every key": {FirstName: "\n", LastName: "\r", Email: "\b", Phone: "\f", Notes: "\u2029", Gender: "\"", Tags: []string{"\\"}},
	} {
		t.Run(name, func(t *testing.T) { checkPatientEncoding(t, p) })
	}
}

func FuzzPatientEncoding(f *testing.F) {
	f.Add("Zoë", "<b>", "\xff", "+1555", 1971, 3, 4, int64(0), "vip")
	f.Add("", "", "", "", 0, 0, 0, int64(1), "")
	f.Fuzz(func(t *testing.T, first, last, notes, phone string, y, m, d int, ns int64, tag string) {
		checkPatientEncoding(t, patients.Patient{ID: "pat_x", FirstName: first, LastName: last, Notes: notes, Phone: phone,
			DateOfBirth: client.Date{Year: y, Month: time.Month(m), Day: d}, Address: &patients.Address{City: notes, Country: first},
			Allergies: []string{last, tag}, Tags: []string{tag}, CreatedAt: time.Unix(0, ns).UTC(), UpdatedAt: time.Unix(ns, ns%1e9)})
	})
}

// Journal paths keep route words and well-formed ids, and redact any other segment.
func TestLoggedPath(t *testing.T) {
	t.Parallel()
	id := "pat_0123456789abcdef0123456789abcdef"
	for in, want := range map[string]string{
		"/api/v1/patients/" + id:                                  "/api/v1/patients/" + id,
		"/api/v1/patients":                                        "/api/v1/patients",
		"/api/v1/patients/":                                       "/api/v1/patients/",
		"/api/v1/patients/zelda@example.com":                      "/api/v1/patients/{redacted}",
		"/api/v1/patients/PAT_0123456789ABCDEF0123456789ABCDEF":   "/api/v1/patients/{redacted}",
		"/api/v1/patients/pa_0123456789abcdef0123456789abcdef":    "/api/v1/patients/{redacted}",
		"/api/v1/patients/patie_0123456789abcdef0123456789abcdef": "/api/v1/patients/{redacted}",
		"/api/v1/patients/" + id + "0":                            "/api/v1/patients/{redacted}",
		"/api/v1/Zelda/" + id + "/x y":                            "/api/v1/{redacted}/" + id + "/{redacted}",
		"":                                                        "",
	} {
		if got := loggedPath(in); got != want {
			t.Errorf("loggedPath(%q) = %q, want %q", in, got, want)
		}
	}
}
