package store

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/patients"
)

// TestListedPatientsAreTheGotOnes: a listed page holds each patient as GetPatient returns it,
// for every shape of PHI (every field, none, an address, allergies, tags, the 0.1.0 JSON form),
// and a page with a record that does not open fails as that record does.
func TestListedPatientsAreTheGotOnes(t *testing.T) {
	t.Parallel()
	a := New(Options{}).Account("acct_page")
	at := time.Date(2026, 11, 25, 21, 0, 0, 0, time.UTC)
	shapes := []patients.Patient{
		{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"},
		{FirstName: "Zoë", LastName: "O'Brien", Email: "z@example.com", Phone: "+15550001234", DateOfBirth: client.NewDate(1971, time.March, 4),
			Gender: patients.GenderFemale, Address: &patients.Address{Line1: "742 Evergreen Terrace", City: "Springfield", Country: "US"},
			Allergies: []string{"penicillin", "latex"}, Notes: "emoji 🙂, quotes \" and \\", Tags: []string{"vip", "new"}},
		{FirstName: "G", LastName: "H", Email: "g@example.com", Allergies: []string{"dust"}},
	}
	var ids []string
	for i, s := range shapes {
		p, err := a.CreatePatient(PatientInputOf(s), at.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, p.ID)
	}
	// A record sealed as release 0.1.0 sealed PHI: JSON.
	legacy, err := a.CreatePatient(PatientInputOf(patients.Patient{FirstName: "Old", LastName: "Form", Email: "old@example.com"}), at.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := a.data.Patients.get(legacy.ID)
	plain, _ := json.Marshal(struct {
		FirstName string `json:"firstName"`
		LastName  string `json:"lastName"`
		Email     string `json:"email"`
		Notes     string `json:"notes"`
	}{"Old", "Form", "old@example.com", "sealed as JSON"})
	r.Sealed = a.seal("patient", r.ID, "phi", plain)
	ids = append(ids, legacy.ID)

	var want []patients.Patient
	for _, id := range ids {
		p, err := a.GetPatient(id)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, p)
	}
	if want[3].Notes != "sealed as JSON" {
		t.Fatalf("the legacy record opened as %+v", want[3])
	}
	kept := []patients.Patient{{ID: "pat_before"}}
	got, total, err := a.ListPatientsInto(PatientFilter{}, Window{Page: 1, PerPage: 10}, kept)
	if err != nil || total != len(ids) {
		t.Fatalf("list: %d patients, %v", total, err)
	}
	if diff := cmp.Diff(append([]patients.Patient{{ID: "pat_before"}}, want...), got); diff != "" {
		t.Errorf("the listed page differs from the patients got one by one (-got +listed):\n%s", diff)
	}
	if got, total, err := a.ListPatients(PatientFilter{}, Window{Page: 2, PerPage: 10}); err != nil || len(got) != 0 || total != len(ids) {
		t.Errorf("an empty page: %v, %d, %v", got, total, err)
	}

	broken, _ := a.data.Patients.get(ids[1])
	broken.Sealed[len(broken.Sealed)-1] ^= 1
	_, wantErr := a.GetPatient(ids[1])
	if wantErr == nil {
		t.Fatal("a tampered record opened")
	}
	if _, _, err := a.ListPatients(PatientFilter{}, Window{Page: 1, PerPage: 10}); err == nil || !errors.Is(err, wantErr) && err.Error() != wantErr.Error() {
		t.Errorf("a page with a tampered record: %v, want %v", err, wantErr)
	}
}
