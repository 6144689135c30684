package store

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

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
	a, b := s.Seal([]byte("same")), s.Seal([]byte("same"))
	if bytes.Equal(a, b) {
		t.Error("two seals of the same plaintext are equal: nonce reused")
	}
	for _, c := range [][]byte{a, b} {
		if pt, err := s.Open(c); err != nil || string(pt) != "same" {
			t.Errorf("open: %q %v", pt, err)
		}
	}
	a[len(a)-1] ^= 1
	if _, err := s.Open(a); err == nil {
		t.Error("tampered ciphertext opened")
	}
	if _, err := NewSealer(nil).Open(b); err == nil {
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
