package httpapi

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/mockserver/internal/store"
	"github.com/medspa/medspa-go/patients"
)

// The benchmarks that keep the fenced optimisations of this package (BENCHMARKS.md "Fenced
// optimisations"): each runs the optimisation ("fast") and the plain code it replaces
// ("plain") in one run, so the ratio between them is what justifies it.

func benchPatient(i int) patients.Patient {
	at := time.Date(2026, 11, 24, 6, 40, 1, 0, time.UTC)
	return patients.Patient{ID: "pat_0193a1b2c3d4e5f60718293a4b5c6d7e", FirstName: "Bench", LastName: "Patient" + strconv.Itoa(i),
		Email: "bench" + strconv.Itoa(i) + "@example.com", Phone: "+15555550100", DateOfBirth: client.NewDate(1980, 2, 29),
		Tags: []string{"vip"}, CreatedAt: at, UpdatedAt: at}
}

// BenchmarkFenceEncoders keeps encode.go: a patient, and a page of 25, encoded by hand versus by
// encoding/json.
func BenchmarkFenceEncoders(b *testing.B) {
	p := benchPatient(0)
	page := make([]patients.Patient, 25)
	for i := range page {
		page[i] = benchPatient(i)
	}
	w := store.Window{Page: 1, PerPage: 25}
	b.Run("patient/fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = (*patientJSON)(&p).appendJSON(nil)
		}
	})
	b.Run("patient/plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(&p)
		}
	})
	b.Run("page/fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = (&patientList{list(page, 1000, w)}).appendJSON(nil)
		}
	})
	b.Run("page/plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, _ = json.Marshal(list(page, 1000, w))
		}
	})
}

// BenchmarkFenceCheckJSON keeps the byte scan of jsoncheck.go: a create body checked for
// duplicate keys and depth by scanning its bytes versus walking its tokens.
func BenchmarkFenceCheckJSON(b *testing.B) {
	body := []byte(`{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com","phone":"+15551234567",` +
		`"dateOfBirth":"1980-02-29","gender":"female","address":{"line1":"1 Main St","city":"Springfield","country":"US"},` +
		`"allergies":["latex","penicillin"],"notes":"first visit","tags":["vip"]}`)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := checkJSON(body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := checkJSONTokens(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}
