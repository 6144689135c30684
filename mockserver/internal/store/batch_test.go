package store

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/medspa/medspa-go/patients"
)

// A batch is one transaction: a failure undoes only what the batch did — writes made by others
// meanwhile (they wait for it) stay — and commits nothing, not even events; a success commits
// once.
func TestBatchUndoesOnlyItself(t *testing.T) {
	t.Parallel()
	st := New(Options{})
	var log commitLog
	st.OnCommit(log.hook, true)
	a := st.Account("acct_batch")
	before, err := a.CreatePatient(PatientInputOf(patients.Patient{FirstName: "Before", LastName: "B", Email: "b@example.com"}), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	log.take()

	inBatch := make(chan struct{})
	var wg sync.WaitGroup
	var concurrent patients.Patient
	boom := errors.New("the third item is bad")
	err = a.Batch(func(b *Account) error {
		for _, n := range []string{"One", "Two"} {
			if _, err := b.CreatePatient(PatientInputOf(patients.Patient{FirstName: n, LastName: "B", Email: n + "@example.com"}), time.Time{}); err != nil {
				return err
			}
		}
		if _, err := b.UpdatePatient(before.ID, PatientInput{Notes: Given("changed by the batch")}); err != nil {
			return err
		}
		wg.Add(1)
		go func() { // a request of another client, while the batch runs
			defer wg.Done()
			close(inBatch)
			p, err := a.CreatePatient(PatientInputOf(patients.Patient{FirstName: "Concurrent", LastName: "C", Email: "c@example.com"}), time.Time{})
			if err != nil {
				t.Error(err)
			}
			concurrent = p
		}()
		<-inBatch
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Batch: %v", err)
	}
	wg.Wait()
	got, n, err := a.ListPatients(PatientFilter{}, Window{Page: 1, PerPage: 10})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got {
		names = append(names, p.FirstName)
	}
	if n != 2 || !slices.Equal(names, []string{"Before", "Concurrent"}) || got[0].Notes != "" || got[1].ID != concurrent.ID {
		t.Fatalf("after a failed batch: %q %+v", names, got)
	}
	if c := log.take(); !slices.Equal(c, []string{"put patient", "event patient.created"}) {
		t.Fatalf("commits: %q (the failed batch must commit nothing)", c)
	}
	if ev := a.Events(); len(ev) != 2 { // Before's and Concurrent's creations
		t.Fatalf("events: %d", len(ev))
	}

	// A batch that succeeds commits once, with every write and event.
	if err := a.Batch(func(b *Account) error {
		for _, n := range []string{"Three", "Four"} {
			if _, err := b.CreatePatient(PatientInputOf(patients.Patient{FirstName: n, LastName: "B", Email: n + "@example.com"}), time.Time{}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if c := log.take(); !slices.Equal(c, []string{"put patient", "put patient", "event patient.created", "event patient.created"}) {
		t.Fatalf("commits of a batch: %q", c)
	}
	if _, n, _ := a.ListPatients(PatientFilter{}, Window{Page: 1, PerPage: 10}); n != 4 {
		t.Fatalf("after a batch: %d patients", n)
	}
}
