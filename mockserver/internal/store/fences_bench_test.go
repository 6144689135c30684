package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/patients"
)

// The benchmarks that keep the fenced optimisations of this package (BENCHMARKS.md "Fenced
// optimisations"): each runs the optimisation ("fast") and the plain code it replaces
// ("plain") in one run.

// BenchmarkFencePHICodec keeps phicodec.go: a patient's PHI opened from the binary form versus
// from JSON (every read of a patient opens it; a page opens 25).
func BenchmarkFencePHICodec(b *testing.B) {
	p := patients.Patient{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com", Phone: "+15551234567",
		DateOfBirth: client.NewDate(1980, 2, 29), Gender: "female", Notes: "first visit",
		Address: &patients.Address{Line1: "1 Main St", City: "Springfield", Country: "US"}, Allergies: []string{"latex"}}
	bin := encodePHI(nil, &p)
	js, _ := json.Marshal(&p)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var out patients.Patient
			if err := decodePHI(bin, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var out patients.Patient
			if err := json.Unmarshal(js, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFenceIdempotencyArena keeps arena.go: a full garbage collection with 200,000 kept
// idempotency answers (a busy day of keyed POSTs) in the arena versus one []byte per entry.
func BenchmarkFenceIdempotencyArena(b *testing.B) {
	const n = 200_000
	answer := bytes.Repeat([]byte{'x'}, 280)
	key := func(i int) digest {
		var k [8]byte
		binary.LittleEndian.PutUint64(k[:], uint64(i))
		return sha256.Sum256(k[:])
	}
	b.Run("fast", func(b *testing.B) {
		s := newIdemStore(idemBounds{})
		for i := range n {
			s.entries[key(i)] = idemEntry{status: 201, answer: s.arena.add(answer)}
		}
		runtime.GC()
		for b.Loop() {
			runtime.GC()
		}
		runtime.KeepAlive(s)
	})
	b.Run("plain", func(b *testing.B) {
		type plainEntry struct { // idemEntry with the answer as a slice
			fingerprint digest
			storedAt    int64
			status      int32
			inFlight    bool
			answer      []byte
		}
		entries := map[digest]plainEntry{}
		for i := range n {
			entries[key(i)] = plainEntry{fingerprint: key(-i), storedAt: int64(i), status: 201, answer: bytes.Clone(answer)}
		}
		if e := entries[key(0)]; e.inFlight {
			b.Fatal("in flight")
		}
		runtime.GC()
		for b.Loop() {
			runtime.GC()
		}
		runtime.KeepAlive(entries)
	})
}

// BenchmarkFencePatientRecord keeps compact.go: the heap a patient record holds (the record and
// its blind index; its id and sealed PHI are the same either way) with fixed-size timestamps
// and index and a tags pointer versus time.Time, a hex string and a slice. Read B/patient.
func BenchmarkFencePatientRecord(b *testing.B) {
	const n = 100_000
	key := []byte("index key")
	at := time.Date(2026, 11, 25, 16, 4, 5, 0, time.UTC)
	heapPerRecord := func(b *testing.B, newRecord func(i int) any) {
		keep := make([]any, n)
		for b.Loop() {
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for i := range keep {
				keep[i] = newRecord(i)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/patient")
			clear(keep)
		}
	}
	b.Run("fast", func(b *testing.B) {
		heapPerRecord(b, func(i int) any {
			return &PatientRecord{ID: "pat_x", CreatedAt: instantOf(at), UpdatedAt: instantOf(at),
				EmailIndex: blindIndexValue(key, "seed"+strconv.Itoa(i)+"@example.com")}
		})
	})
	b.Run("plain", func(b *testing.B) {
		heapPerRecord(b, func(i int) any {
			return &legacyPatientRecord{ID: "pat_x", CreatedAt: at, UpdatedAt: at,
				EmailIndex: blindIndex(key, "seed"+strconv.Itoa(i)+"@example.com")}
		})
	})
}

// BenchmarkFenceBatchUndo keeps the undo of Batch (commit.go, table.go keep): a batch of 100
// patients into an account of 100,000 keeping only what it reaches, versus marshalling the
// account's state first, as the undo did before.
func BenchmarkFenceBatchUndo(b *testing.B) {
	const size, batch = 100_000, 100
	a := New(Options{}).Account("acct_bench")
	for i := range size {
		if _, err := a.createPatient(patients.Patient{FirstName: "Seed", LastName: "P", Email: "s" + strconv.Itoa(i) + "@example.com"}, time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
	load := func(b *Account) error {
		for i := range batch {
			if _, err := b.createPatient(patients.Patient{FirstName: "Batch", LastName: "P", Email: "b" + strconv.Itoa(i) + "@example.com"}, time.Time{}); err != nil {
				return err
			}
		}
		return nil
	}
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			if err := a.Batch(load); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			if err := a.Batch(func(bt *Account) error {
				if _, err := json.Marshal(bt.data); err != nil { // the whole state, as the undo was
					return err
				}
				return load(bt)
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFenceSealAD keeps seal.go's adBuffers: the associated data of an open (a sealed
// value's account, kind, id and field) built in a pooled buffer versus a fresh one (it escapes
// into the AEAD interface: an allocation per open, 25 per list page).
func BenchmarkFenceSealAD(b *testing.B) {
	s := NewSealer(nil)
	at := sealedAt{"acct_019ca8a03e807000a2301fb8d82978da", "patient", "pat_019ca8a03e80700395798d340c0a17e8", "phi"}
	sealed := s.seal(make([]byte, 120), at)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.open(sealed, at); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var buf [160]byte // escapes into the AEAD: allocated per open
			if _, err := s.openAD(sealed, at.ad(buf[:0])); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFencePatientOpen keeps openPatient's pooled plaintext and decodePHI's one string
// (patients.go, phicodec.go): a patient opened into a pooled buffer with every field a piece of
// one string, versus opened into a fresh buffer with a string of its own per field (as the
// decoder made them before).
func BenchmarkFencePatientOpen(b *testing.B) {
	a := New(Options{}).Account("acct_bench")
	p, err := a.CreatePatient(PatientInputOf(patients.Patient{FirstName: "Ada", LastName: "Lovelace",
		Email: "ada@example.com", Phone: "+15551234567", Notes: "first visit"}), time.Time{})
	if err != nil {
		b.Fatal(err)
	}
	r, _ := a.data.Patients.get(p.ID)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := a.openPatient(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := plainOpenPatient(a, r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFencePatientPageOpen keeps openPatients (patients.go): a page of 20 patients opened
// a page at a time (one buffer of each pool, one string for the page's PHI), versus one by one
// with openPatient (its pooled buffers and one string a patient).
func BenchmarkFencePatientPageOpen(b *testing.B) {
	a := New(Options{}).Account("acct_bench")
	for i := range 20 {
		n := strconv.Itoa(i)
		if _, err := a.CreatePatient(PatientInputOf(patients.Patient{FirstName: "Ada" + n, LastName: "Lovelace",
			Email: "ada" + n + "@example.com"}), time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
	recs, _ := a.data.Patients.page(Window{Page: 1, PerPage: 20}, nil)
	out := make([]patients.Patient, 0, 20)
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := a.openPatients(recs, out[:0]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			page := out[:0]
			for _, r := range recs {
				p, err := a.openPatient(r)
				if err != nil {
					b.Fatal(err)
				}
				page = append(page, p)
			}
		}
	})
}

// plainOpenPatient is openPatient without the optimisation: a fresh plaintext, and a string per
// field (decodePHI's fields cloned apart, as the old decoder allocated them).
func plainOpenPatient(a *Account, r *PatientRecord) (patients.Patient, error) {
	var p patients.Patient
	plain, err := a.open("patient", r.ID, "phi", r.Sealed)
	if err != nil {
		return p, err
	}
	if err := decodePHI(plain, &p); err != nil {
		return p, err
	}
	for _, s := range []*string{&p.FirstName, &p.LastName, &p.Email, &p.Phone, &p.Notes} {
		*s = strings.Clone(*s)
	}
	p.ID, p.CreatedAt, p.UpdatedAt = r.ID, r.CreatedAt.Time(), r.UpdatedAt.Time()
	return p, nil
}
