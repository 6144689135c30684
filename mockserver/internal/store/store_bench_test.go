package store

import (
	"strconv"
	"testing"
	"time"

	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/patients"
)

// The store's own cost of the hot rules, without HTTP: sealing, indexes, events.

func BenchmarkStoreCreatePatient(b *testing.B) {
	a := New(Options{}).Account("bench")
	p := patients.Patient{FirstName: "Bench", LastName: "Patient", Email: "bench@example.com", Phone: "+15555550100"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.createPatient(p, time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStoreGetPatient(b *testing.B) {
	a := New(Options{}).Account("bench")
	p, err := a.createPatient(patients.Patient{FirstName: "Bench", LastName: "Patient", Email: "bench@example.com", Phone: "+15555550100"}, time.Time{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.GetPatient(p.ID); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStoreAdjust(b *testing.B) {
	a := New(Options{}).Account("bench")
	prod, err := a.createProduct(inventory.Product{SKU: "B-1", Name: "Bench", Category: inventory.CategoryConsumable, Unit: inventory.UnitItem, Price: 100, Currency: "usd", Active: true}, time.Time{})
	if err != nil {
		b.Fatal(err)
	}
	in := inventory.AdjustParams{ProductID: prod.ID, Location: "main", Delta: 1, Reason: inventory.ReasonReceived}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.adjust(in, time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStoreCreatePayment(b *testing.B) {
	a := New(Options{}).Account("bench")
	p, err := a.createPatient(patients.Patient{FirstName: "Bench", LastName: "Patient", Email: "bench@example.com"}, time.Time{})
	if err != nil {
		b.Fatal(err)
	}
	inv, err := a.createInvoice(billing.InvoiceCreateParams{PatientID: p.ID, Currency: "usd",
		LineItems: []billing.LineItemParams{{Description: "bench", Quantity: 10_000, UnitAmount: client.Ptr[int64](1_000_000_000_000)}}}, time.Time{})
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		if _, err := a.createPayment(billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 100 + int64(i%100), Method: billing.MethodCash}, time.Time{}); err != nil {
			b.Fatal(strconv.Itoa(i), err)
		}
	}
}
