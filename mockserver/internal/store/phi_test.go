package store

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"

	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/patients"
)

// TestStoreDumpHasNoPlaintextPHI serializes an account's whole state (what snapshots and -data
// files hold) and looks for every PHI value written into it.
func TestStoreDumpHasNoPlaintextPHI(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	a := s.Account("acct_test")
	p, err := a.createPatient(patients.Patient{
		FirstName: "Zenobia", LastName: "Quixotica", Email: "zenobia.q@example.org", Phone: "+15557654321",
		DateOfBirth: client.NewDate(1971, time.March, 14), Gender: patients.GenderOther,
		Address:   &patients.Address{Line1: "77 Sunset Boulevard", City: "Tamworth", PostalCode: "NSW2340", Country: "AU"},
		Allergies: []string{"Oxycodonex"}, Notes: "Confidential clinical narrative", Tags: []string{"tag-visible"},
	}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.updatePatient(p.ID, func(x *patients.Patient) { x.Notes = "Second confidential narrative" }); err != nil {
		t.Fatal(err)
	}
	dump, err := json.Marshal(a.data)
	if err != nil {
		t.Fatal(err)
	}
	for _, phi := range []string{"Zenobia", "Quixotica", "zenobia.q@example.org", "5557654321", "1971-03-14", "Sunset", "Tamworth", "NSW2340", "Oxycodonex", "Confidential", "narrative"} {
		if bytes.Contains(dump, []byte(phi)) {
			t.Errorf("dump contains plaintext PHI %q", phi)
		}
	}
	if !bytes.Contains(dump, []byte("tag-visible")) || !bytes.Contains(dump, []byte(p.ID)) {
		t.Error("non-PHI fields should be in the clear (sanity check of the scan)")
	}
	got, err := a.GetPatient(p.ID)
	if err != nil || got.FirstName != "Zenobia" || got.Notes != "Second confidential narrative" {
		t.Errorf("round trip through the seal: %+v %v", got, err)
	}
}

func TestSealerUsesFreshNonces(t *testing.T) {
	t.Parallel()
	s := NewSealer(nil)
	at := sealedAt{"acct_a", "patient", "pat_1", "phi"}
	a, b := s.seal([]byte("same"), at), s.seal([]byte("same"), at)
	if bytes.Equal(a, b) {
		t.Error("two seals of the same plaintext are equal: nonce reused")
	}
	for _, c := range [][]byte{a, b} {
		if pt, err := s.open(c, at); err != nil || string(pt) != "same" {
			t.Errorf("open: %q %v", pt, err)
		}
	}
	a[len(a)-1] ^= 1
	if _, err := s.open(a, at); err == nil {
		t.Error("tampered ciphertext opened")
	}
	if _, err := NewSealer(nil).open(b, at); err == nil {
		t.Error("opened with another key")
	}
}

func TestIDsAreOrderedAndWellFormed(t *testing.T) {
	t.Parallel()
	g := NewIDGen(0)
	at := time.Now()
	prev := ""
	for range 10000 {
		id := g.New("pat", at) // same millisecond: the counter keeps them ordered
		if !wire.IsID(id, "pat") {
			t.Fatalf("malformed %q", id)
		}
		if id <= prev {
			t.Fatalf("not increasing: %q after %q", id, prev)
		}
		prev = id
	}
	s1, s2 := NewIDGen(42), NewIDGen(42)
	if s1.New("pat", at) != s2.New("pat", at) {
		t.Error("seeded generators differ")
	}
}

// A sealed value is bound to its account, record and field (docs/protocol.md §11; issue 19):
// moved anywhere else, it does not open.
func TestSealedValuesAreBoundToTheirPlace(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{9}, 32)
	s := New(Options{Sealer: NewSealer(key)})
	a := s.Account("acct_bind_a")
	p1, ap := patientWithAppointment(t, a, "one", "appointment notes")
	p2, _ := patientWithAppointment(t, a, "two", "")
	rec := func(acct *Account, id string) *PatientRecord {
		r, _ := acct.data.Patients.get(id)
		return r
	}

	// Another record of the same kind and field.
	saved := rec(a, p2.ID).Sealed
	rec(a, p2.ID).Sealed = rec(a, p1.ID).Sealed
	if _, err := a.GetPatient(p2.ID); err == nil {
		t.Error("patient one's sealed PHI opened as patient two's")
	}
	rec(a, p2.ID).Sealed = saved
	if got, err := a.GetPatient(p2.ID); err != nil || got.FirstName != "two" {
		t.Fatalf("put back: %+v %v", got, err)
	}

	// Another field: the appointment's notes as the patient's PHI, and the other way round.
	apRec, _ := a.data.Appointments.get(ap.ID)
	if _, err := a.open("patient", p1.ID, "phi", apRec.Sealed); err == nil {
		t.Error("appointment notes opened as patient PHI")
	}
	if _, err := a.open("appointment", ap.ID, "notes", rec(a, p1.ID).Sealed); err == nil {
		t.Error("patient PHI opened as appointment notes")
	}
	if _, err := a.open("appointment", ap.ID, "secret", apRec.Sealed); err == nil {
		t.Error("appointment notes opened as another field of the same record")
	}

	// Another account, even with the same record id.
	b := s.Account("acct_bind_b")
	moved := *rec(a, p1.ID)
	b.mu.Lock()
	b.data.Patients.insert(&moved)
	b.mu.Unlock()
	if _, err := b.GetPatient(p1.ID); err == nil {
		t.Error("a patient sealed in one account opened in another")
	}

	// An idempotent answer under another key.
	if out, _ := a.BeginIdempotent("cred\x00k1", fp("x")); out != IdempotencyProceed {
		t.Fatal(out)
	}
	a.FinishIdempotent("cred\x00k1", 201, nil, []byte(`{"id":"secret-answer"}`))
	if out, _ := a.BeginIdempotent("cred\x00k2", fp("x")); out != IdempotencyProceed {
		t.Fatal(out)
	}
	k1, k2 := sha256.Sum256([]byte("cred\x00k1")), sha256.Sum256([]byte("cred\x00k2"))
	a.idemMu.Lock()
	e1, e2 := a.idem.entries[k1], a.idem.entries[k2]
	e2.inFlight, e2.status, e2.answer = false, 201, e1.answer
	a.idem.entries[k2] = e2
	a.idemMu.Unlock()
	if out, e := a.BeginIdempotent("cred\x00k2", fp("x")); out == IdempotencyReplay {
		t.Errorf("key one's answer replayed for key two: %s", e.Body)
	}
}

// Blind indexes use a key per account: the same email in two accounts has two index values,
// and the exact-email filter still finds it in each.
func TestBlindIndexesDifferAcrossAccounts(t *testing.T) {
	t.Parallel()
	s := New(Options{})
	var idx []indexValue
	for _, id := range []string{"acct_idx_a", "acct_idx_b"} {
		a := s.Account(id)
		p, err := a.createPatient(patients.Patient{FirstName: "Same", LastName: "Mail", Email: "same@example.com"}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		r, _ := a.data.Patients.get(p.ID)
		idx = append(idx, r.EmailIndex)
		got, n, err := a.ListPatients(PatientFilter{Email: "SAME@example.com"}, Window{Page: 1, PerPage: 10})
		if err != nil || n != 1 || got[0].ID != p.ID {
			t.Fatalf("email filter in %s: %v %d %v", id, got, n, err)
		}
	}
	if idx[0] == idx[1] {
		t.Fatal("the same email has the same blind index in two accounts")
	}
	if hex.EncodeToString(idx[0][:]) == s.sealer.Index("same@example.com") {
		t.Fatal("an account's blind index is the server-level one")
	}
}

// State written before the binding (medspa-mock-state/1: sealed without associated data, blind
// indexes with the server key) migrates on import: every value opens, bound to its place, and
// the indexes are the account's.
func TestImportUnboundMigratesState(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{5}, 32)
	s := New(Options{Sealer: NewSealer(key)})
	a := s.Account("acct_mig")
	p, ap := patientWithAppointment(t, a, "old", "old appointment notes")
	a.BeginIdempotent("cred\x00old", fp("f"))
	a.FinishIdempotent("cred\x00old", 201, map[string][]string{"Location": {"/x"}}, []byte(`{"old":true}`))

	// Make the state as release 0.2 wrote it: every sealed value unbound, indexes server-wide.
	a.mu.Lock()
	for _, tb := range a.data.tables() {
		tb.each(func(id string, r any) {
			sr, ok := r.(sealedRecord)
			if !ok {
				return
			}
			for _, f := range sr.sealedFields() {
				if *f.value != nil {
					plain, err := a.open(tb.kindName(), id, f.name, *f.value)
					if err != nil {
						t.Fatal(err)
					}
					*f.value = sealUnbound(s.sealer, plain)
				}
			}
		})
	}
	a.data.Patients.byID[p.ID].EmailIndex = blindIndexValue(s.sealer.indexKey, "old@example.com")
	a.mu.Unlock()
	a.idemMu.Lock()
	for k, e := range a.idem.entries {
		plain, err := a.open("idempotency", hex.EncodeToString(k[:]), "answer", a.idem.arena.get(e.answer))
		if err != nil {
			t.Fatal(err)
		}
		e.answer = a.idem.arena.add(sealUnbound(s.sealer, plain))
		a.idem.entries[k] = e
	}
	a.idemMu.Unlock()
	old, err := a.Export()
	if err != nil {
		t.Fatal(err)
	}

	for _, into := range []*Account{New(Options{Sealer: NewSealer(key)}).Account("acct_mig"), a} {
		if err := into.ImportUnbound(old); err != nil {
			t.Fatal(err)
		}
		if got, err := into.GetPatient(p.ID); err != nil || got.Notes != "notes of old" {
			t.Fatalf("migrated patient: %+v %v", got, err)
		}
		if got, err := into.GetAppointment(ap.ID); err != nil || got.Notes != "old appointment notes" {
			t.Fatalf("migrated appointment: %+v %v", got, err)
		}
		if got, n, _ := into.ListPatients(PatientFilter{Email: "old@example.com"}, Window{Page: 1, PerPage: 5}); n != 1 || got[0].ID != p.ID {
			t.Fatalf("migrated email index: %d", n)
		}
		if out, e := into.BeginIdempotent("cred\x00old", fp("f")); out != IdempotencyReplay || string(e.Body) != `{"old":true}` {
			t.Fatalf("migrated idempotency entry: %v", out)
		}
	}
	// Bound now: the migrated state is an ordinary one.
	if err := New(Options{Sealer: NewSealer(key)}).Account("acct_mig").ImportUnbound(old); err != nil {
		t.Fatal(err)
	}
	bound, _ := a.Export()
	if err := New(Options{Sealer: NewSealer(key)}).Account("acct_mig").ImportUnbound(bound); err == nil {
		t.Fatal("a bound state migrated again as an unbound one")
	}
	// With another key, nothing changes and the error says so.
	other := New(Options{}).Account("acct_mig")
	if err := other.ImportUnbound(old); err == nil {
		t.Fatal("migrated with another key")
	}
	if n := other.data.Patients.len(); n != 0 {
		t.Fatalf("a failed migration changed the account: %d patients", n)
	}
}

// sealUnbound seals as release 0.2 did: no associated data.
func sealUnbound(s *Sealer, plain []byte) []byte {
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return s.aead.Seal(nonce, nonce, plain, nil)
}

// patientWithAppointment creates a patient (first name first, email first@example.com, notes
// "notes of first") and, when apNotes is not "", an appointment of it with those notes.
func patientWithAppointment(t *testing.T, a *Account, first, apNotes string) (patients.Patient, appointments.Appointment) {
	t.Helper()
	p, err := a.createPatient(patients.Patient{FirstName: first, LastName: "L", Email: first + "@example.com", Notes: "notes of " + first}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var ap appointments.Appointment
	if apNotes != "" {
		ap, err = a.createAppointment(appointments.Appointment{PatientID: p.ID, ProviderID: "prv_1", Service: "s",
			StartAt: time.Date(2030, 1, 1, 10, 0, 0, 0, time.UTC), EndAt: time.Date(2030, 1, 1, 11, 0, 0, 0, time.UTC), Notes: apNotes}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
	}
	return p, ap
}
