package httpapi

import (
	"net/http"
	"net/mail"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/patients"
)

func (a *API) patientRoutes() []route {
	return []route{
		{http.MethodGet, "/api/v1/patients", "patients:read", a.listPatients},
		{http.MethodPost, "/api/v1/patients", "patients:write", a.createPatient},
		{http.MethodGet, "/api/v1/patients/{id}", "patients:read", a.getPatient},
		{http.MethodPatch, "/api/v1/patients/{id}", "patients:write", a.updatePatient},
	}
}

var (
	e164         = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)
	countryCode  = regexp.MustCompile(`^[A-Z]{2}$`)
	earliestDOB  = client.NewDate(1900, time.January, 1)
	patientField = []string{"firstName", "lastName", "email", "phone", "dateOfBirth", "gender", "address", "allergies", "notes", "tags"}
	addressField = []string{"line1", "line2", "city", "state", "postalCode", "country"}
	genders      = []string{"female", "male", "other", "unknown"}
)

// readPatient validates a patient body (create, or merge patch) and returns the change it makes.
func readPatient(f *form, patch bool, today client.Date) func(*patients.Patient) {
	f.allow(patientField...)
	var sets []func(*patients.Patient)
	set := func(p presence, apply func(*patients.Patient)) {
		if p == present || p == null {
			sets = append(sets, apply)
		}
	}
	if patch {
		f.nonNull("firstName", "lastName", "email")
	}
	if v, p := f.str("firstName", !patch, 1, 100); p == present {
		set(p, func(x *patients.Patient) { x.FirstName = v })
	}
	if v, p := f.str("lastName", !patch, 1, 100); p == present {
		set(p, func(x *patients.Patient) { x.LastName = v })
	}
	if v, p := f.str("email", !patch, 1, 254); p == present {
		// net/mail accepts any UTF-8 in the local part (RFC 6532), invisible and bidi-override
		// characters included: those only serve to spoof an address.
		if addr, err := mail.ParseAddress(v); err != nil || addr.Address != v || addr.Name != "" || strings.IndexFunc(v, invisible) >= 0 {
			f.fail("email", "invalid_format", "must be an email address")
		} else {
			set(p, func(x *patients.Patient) { x.Email = v })
		}
	}
	if v, p := f.str("phone", false, 0, 16); p != invalid {
		if p == present && !e164.MatchString(v) {
			f.fail("phone", "invalid_format", "must be an E.164 number such as +15551234567")
		} else {
			set(p, func(x *patients.Patient) { x.Phone = v })
		}
	}
	if s, p := field[string](f, "dateOfBirth", "a date string"); p == present {
		d, err := client.ParseDate(s)
		switch {
		case err != nil:
			f.fail("dateOfBirth", "invalid_format", "must be a date YYYY-MM-DD")
		case today.Before(d):
			f.fail("dateOfBirth", "out_of_range", "must not be in the future")
		case d.Before(earliestDOB):
			f.fail("dateOfBirth", "out_of_range", "must not be before 1900-01-01")
		default:
			set(p, func(x *patients.Patient) { x.DateOfBirth = d })
		}
	} else {
		set(p, func(x *patients.Patient) { x.DateOfBirth = client.Date{} })
	}
	if v, p := f.enum("gender", false, genders...); p != invalid {
		set(p, func(x *patients.Patient) { x.Gender = patients.Gender(v) })
	}
	if f.isNull("address") {
		set(null, func(x *patients.Patient) { x.Address = nil })
	} else if af := f.nested("address"); af != nil {
		af.allow(addressField...)
		var addr patients.Address
		addr.Line1, _ = af.str("line1", false, 0, 200)
		addr.Line2, _ = af.str("line2", false, 0, 200)
		addr.City, _ = af.str("city", false, 0, 100)
		addr.State, _ = af.str("state", false, 0, 100)
		addr.PostalCode, _ = af.str("postalCode", false, 0, 20)
		if c, p := af.str("country", false, 0, 2); p == present && !countryCode.MatchString(c) {
			af.fail("country", "invalid_format", "must be an ISO 3166-1 alpha-2 code such as US")
		} else {
			addr.Country = c
		}
		set(present, func(x *patients.Patient) { x.Address = &addr })
	}
	if v, p := f.strings("allergies", 50, 200); p != invalid {
		set(p, func(x *patients.Patient) { x.Allergies = v })
	}
	if v, p := f.str("notes", false, 0, 10000); p != invalid {
		set(p, func(x *patients.Patient) { x.Notes = v })
	}
	if v, p := f.strings("tags", 20, 50); p != invalid {
		set(p, func(x *patients.Patient) { x.Tags = v })
	}
	return func(x *patients.Patient) {
		for _, s := range sets {
			s(x)
		}
	}
}

func (a *API) createPatient(rq *request) (int, any, error) {
	f, err := rq.parseForm()
	if err != nil {
		return 0, nil, err
	}
	change := readPatient(f, false, client.DateOf(rq.acct.Now()))
	if err := f.done(); err != nil {
		return 0, nil, err
	}
	var p patients.Patient
	change(&p)
	p, err = rq.acct.CreatePatient(p, rq.backdate)
	rq.audit = auditInfo{"create", "patient", p.ID}
	return created, (*patientJSON)(&p), err
}

func (a *API) getPatient(rq *request) (int, any, error) {
	id, err := rq.pathID("pat", "patient")
	if err != nil {
		return 0, nil, err
	}
	rq.audit = auditInfo{"read", "patient", id}
	p, err := rq.acct.GetPatient(id)
	return ok, (*patientJSON)(&p), err
}

func (a *API) updatePatient(rq *request) (int, any, error) {
	id, err := rq.pathID("pat", "patient")
	if err != nil {
		return 0, nil, err
	}
	f, err := rq.parseForm()
	if err != nil {
		return 0, nil, err
	}
	change := readPatient(f, true, client.DateOf(rq.acct.Now()))
	if err := f.done(); err != nil {
		return 0, nil, err
	}
	rq.audit = auditInfo{"update", "patient", id}
	p, err := rq.acct.UpdatePatient(id, change)
	return ok, (*patientJSON)(&p), err
}

func (a *API) listPatients(rq *request) (int, any, error) {
	q := rq.parseQuery("page", "perPage", "sort", "q", "email", "createdFrom", "createdTo")
	w := q.window(true)
	filter := store.PatientFilter{
		Q:           q.str("q", 200),
		Email:       q.str("email", 254),
		CreatedFrom: q.instant("createdFrom"),
		CreatedTo:   q.instant("createdTo"),
	}
	if err := q.done(); err != nil {
		return 0, nil, err
	}
	rq.audit = auditInfo{"list", "patient", ""}
	items, total, err := rq.acct.ListPatients(filter, w)
	return ok, newPatientList(items, total, w), err
}

// invisible reports control and format characters (zero-width spaces, bidi overrides).
func invisible(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }
