package store

import (
	"strconv"
	"testing"
	"time"

	"github.com/medspa/medspa-go/patients"
)

// The event log keeps between EventLogSize and twice as many of the newest events.
func TestEventLogBounded(t *testing.T) {
	t.Parallel()
	a := New(Options{}).Account("bound")
	var last string
	for i := range 2*EventLogSize + 5 {
		p, err := a.createPatient(patients.Patient{FirstName: "E", LastName: strconv.Itoa(i), Email: "e@example.com"}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		last = p.ID
	}
	ev := a.Events()
	if len(ev) < EventLogSize || len(ev) > 2*EventLogSize {
		t.Fatalf("%d events kept", len(ev))
	}
	if d, _ := ev[len(ev)-1].Patient(); d.ID != last {
		t.Fatalf("newest event is for %s, want %s", d.ID, last)
	}
}
