package store

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/medspa/medspa-go/patients"
)

// A creation window finds its patients by binary search; what it answers is what filtering
// every patient answers: the same patients, order, pages and total, with or without the email
// filter, in either direction, whatever the bounds (inclusive from, exclusive to, sub-second,
// reversed, open).
func TestListPatientsCreatedWindowMatchesAScan(t *testing.T) {
	t.Parallel()
	a := New(Options{}).Account("acct_window")
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 60 {
		email := []string{"a@example.com", "b@example.com"}[i%2]
		if _, err := a.createPatient(patients.Patient{FirstName: "P", LastName: fmt.Sprint(i), Email: email},
			base.Add(time.Duration(i*7%20)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	all, n, err := a.ListPatients(PatientFilter{}, Window{Page: 1, PerPage: 100})
	if err != nil || n != 60 {
		t.Fatalf("all: %d %v", n, err)
	}
	at := func(h float64) time.Time { return base.Add(time.Duration(h * float64(time.Hour))) }
	for _, win := range [][2]time.Time{
		{}, {at(0), time.Time{}}, {time.Time{}, at(5)}, {at(3), at(9)}, {at(2.5), at(9.0001)}, {at(9), at(3)},
		{at(-5), at(100)}, {at(19), at(20)}, {at(20), time.Time{}}, {at(7), at(7)},
	} {
		for _, email := range []string{"", "B@example.com"} {
			var want []string
			for _, p := range all {
				if (win[0].IsZero() || !p.CreatedAt.Before(win[0])) && (win[1].IsZero() || p.CreatedAt.Before(win[1])) &&
					(email == "" || p.Email == "b@example.com") {
					want = append(want, p.ID)
				}
			}
			for _, desc := range []bool{false, true} {
				ordered := slices.Clone(want)
				if desc {
					slices.Reverse(ordered)
				}
				var got []string
				for page := 1; page <= 10; page++ {
					ps, total, err := a.ListPatients(PatientFilter{Email: email, CreatedFrom: win[0], CreatedTo: win[1]}, Window{Page: page, PerPage: 7, Desc: desc})
					if err != nil || total != len(want) {
						t.Fatalf("%v %q desc=%v page %d: total %d, want %d (%v)", win, email, desc, page, total, len(want), err)
					}
					for _, p := range ps {
						got = append(got, p.ID)
					}
				}
				if !slices.Equal(got, ordered) {
					t.Errorf("%v %q desc=%v:\n got %v\nwant %v", win, email, desc, got, ordered)
				}
			}
		}
	}
}
