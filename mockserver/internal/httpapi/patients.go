package httpapi

import (
	"net/http"

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
	patientFields = []string{"firstName", "lastName", "email", "phone", "dateOfBirth", "gender", "address", "allergies", "notes", "tags"}
	addressFields = []string{"line1", "line2", "city", "state", "postalCode", "country"}
)

// decodePatient reads a patient body (create or merge patch).
func decodePatient(f *form) store.PatientInput {
	return store.PatientInput{
		Members:   f.members(patientFields...),
		FirstName: f.str("firstName"), LastName: f.str("lastName"), Email: f.str("email"), Phone: f.str("phone"),
		DateOfBirth: f.date("dateOfBirth"), Gender: f.str("gender"),
		Address: object(f, "address", func(af *form) store.AddressInput {
			return store.AddressInput{
				Members: af.members(addressFields...),
				Line1:   af.str("line1"), Line2: af.str("line2"), City: af.str("city"), State: af.str("state"),
				PostalCode: af.str("postalCode"), Country: af.str("country"),
			}
		}),
		Allergies: f.strs("allergies"), Notes: f.str("notes"), Tags: f.strs("tags"),
	}
}

func (a *API) createPatient(rq *request) (int, any, error) {
	p, err := fromRequest(rq, decodePatient, rq.acct.CreatePatient)
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
	if err != nil {
		return 0, nil, err
	}
	answer := patientAnswers.Get().(*pooledPatient)
	answer.patientJSON = patientJSON(p)
	return ok, answer, nil
}

func (a *API) updatePatient(rq *request) (int, any, error) {
	id, err := rq.pathID("pat", "patient")
	if err != nil {
		return 0, nil, err
	}
	f, err := rq.form()
	if err != nil {
		return 0, nil, err
	}
	rq.audit = auditInfo{"update", "patient", id}
	p, err := rq.acct.UpdatePatient(id, decodePatient(f))
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
	page := patientPages.Get().(*[]patients.Patient)
	items, total, err := rq.acct.ListPatientsInto(filter, w, (*page)[:0])
	l := newPatientList(items, total, w)
	l.pooled = page
	return ok, l, err
}
