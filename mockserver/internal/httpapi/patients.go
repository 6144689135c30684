package httpapi

import (
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/patients"
)

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
	rq.created = p.ID
	return created, (*patientJSON)(&p), err
}

func (a *API) getPatient(rq *request) (int, any, error) {
	id, err := rq.pathID("pat", "patient")
	if err != nil {
		return 0, nil, err
	}
	p, err := rq.acct.GetPatient(id)
	if err != nil {
		return 0, nil, err
	}
	return ok, (*patientJSON)(&p), nil
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
	p, err := rq.acct.UpdatePatient(id, decodePatient(f))
	return ok, (*patientJSON)(&p), err
}

func (a *API) listPatients(rq *request) (int, any, error) {
	q := rq.parseQuery()
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
	page := pageSlices.Get().(*[]patients.Patient) // pools.go
	items, total, err := rq.acct.ListPatientsInto(filter, w, (*page)[:0])
	if err != nil {
		releasePage(page, items)
		return 0, nil, err
	}
	return ok, &patientList{listAnswer: list(items, total, w), page: page}, nil
}
