package store

import (
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/inventory"
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

// A failed batch puts back every record it reached, however it changed it (in place, through
// an iteration, or by moving it in the list order), removes what it created and rebuilds the
// derived indexes: the account's state is byte for byte what it was.
func TestBatchUndoesEveryKindOfChange(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	a := fx.acct
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	prod, err := a.createProduct(inventory.Product{SKU: "SKU-1", Name: "Serum", Category: inventory.CategorySkincare, Unit: inventory.UnitItem,
		Price: 2500, Currency: "usd", ReorderPoint: 2, Active: true}, time.Time{})
	must(prod, err)
	must(a.adjust(inventory.AdjustParams{ProductID: prod.ID, Delta: 10, Reason: inventory.ReasonReceived}, time.Time{}))
	inv, pay := paidInvoice(t, a, 1000, 500)
	ap := fx.mustBook(fx.p1, "prov_1", "", 60, 30)
	state := func() string {
		a.mu.RLock()
		defer a.mu.RUnlock()
		b, err := json.Marshal(a.data)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	before := state()

	boom := errors.New("the last item is bad")
	err = a.Batch(func(b *Account) error {
		must(b.createPatient(patients.Patient{FirstName: "New", LastName: "P", Email: "n@example.com"}, time.Time{}))
		must(b.updatePatient(fx.p1, func(p *patients.Patient) { p.Notes, p.Tags = "changed", []string{"t"} }))
		must(b.createProduct(inventory.Product{SKU: "SKU-2", Name: "Cream", Category: inventory.CategorySkincare, Unit: inventory.UnitItem,
			Price: 100, Currency: "usd", Active: true}, time.Time{}))
		must(b.updateProduct(prod.ID, func(p *inventory.Product) { p.SKU, p.ReorderPoint = "SKU-9", 7 })) // its stock records, by iteration
		must(b.adjust(inventory.AdjustParams{ProductID: prod.ID, Delta: -3, Reason: inventory.ReasonSale}, time.Time{}))
		must(b.adjust(inventory.AdjustParams{ProductID: prod.ID, Location: "annex", Delta: 4, Reason: inventory.ReasonReceived}, time.Time{}))
		must(b.createPayment(billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 100, Method: billing.MethodCash}, time.Time{}))
		must(b.CreateRefund(RefundInput{PaymentID: Given(pay.ID), Amount: number("50")}, time.Time{}))
		later, end, confirmed := ap.StartAt.Add(24*time.Hour), ap.EndAt.Add(24*time.Hour), appointments.StatusConfirmed
		must(b.updateAppointment(ap.ID, AppointmentChange{StartAt: &later, EndAt: &end, Status: &confirmed})) // moves in the order
		must(b.createAppointment(appointments.Appointment{PatientID: fx.p2, ProviderID: "prov_2", Service: "Peel",
			StartAt: t0, EndAt: t0.Add(time.Hour)}, time.Time{}))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Batch: %v", err)
	}
	if after := state(); after != before {
		t.Fatalf("state after a failed batch:\n%s\nwant\n%s", after, before)
	}
	// The derived indexes are back too: the old SKU is taken again, the new ones free.
	if _, err := a.createProduct(inventory.Product{SKU: "SKU-1", Name: "Dup", Category: inventory.CategorySkincare, Unit: inventory.UnitItem,
		Price: 1, Currency: "usd"}, time.Time{}); code(err) != "duplicate_sku" {
		t.Fatalf("SKU-1 after the undo: %v", err)
	}
	must(a.createProduct(inventory.Product{SKU: "SKU-9", Name: "Free", Category: inventory.CategorySkincare, Unit: inventory.UnitItem,
		Price: 1, Currency: "usd"}, time.Time{}))
	// And the undo has ended: later changes are not kept for it.
	for _, tb := range a.data.tables() {
		if tb.(interface{ undoing() bool }).undoing() {
			t.Fatalf("%s still keeps an undo", tb.kindName())
		}
	}
}
