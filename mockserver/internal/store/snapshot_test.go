package store

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/medspa/medspa-go/patients"
)

func TestExportImportRoundTrip(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{3}, 32)
	s := New(Options{Sealer: NewSealer(key)})
	a := s.Account("acct_a")
	p, err := a.createPatient(patients.Patient{FirstName: "Ex", LastName: "Port", Email: "e@example.com", Tags: []string{"t"}}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if out, _ := a.BeginIdempotent("k\x00done", fp("fp")); out != IdempotencyProceed {
		t.Fatal("claim")
	}
	a.FinishIdempotent("k\x00done", 201, nil, []byte(`{"id":"x"}`))
	a.BeginIdempotent("k\x00flying", fp("fp")) // in flight: not exported
	b, err := a.Export()
	if err != nil {
		t.Fatal(err)
	}
	dump := func(acct *Account) []byte {
		acct.mu.RLock()
		defer acct.mu.RUnlock()
		d, _ := json.Marshal(acct.data)
		return d
	}
	want := dump(a)

	// Import into the same account of another store with the same key: same data, completed
	// keys only.
	c := New(Options{Sealer: NewSealer(key)}).Account("acct_a")
	if err := c.Import(b); err != nil {
		t.Fatal(err)
	}
	if got := dump(c); !bytes.Equal(got, want) {
		t.Fatalf("imported data:\n%s\nwant\n%s", got, want)
	}
	if got, err := c.GetPatient(p.ID); err != nil || got.FirstName != "Ex" {
		t.Fatalf("imported patient: %+v %v", got, err)
	}
	if out, e := c.BeginIdempotent("k\x00done", fp("fp")); out != IdempotencyReplay || string(e.Body) != `{"id":"x"}` {
		t.Fatalf("completed key after import: %v", out)
	}
	if out, _ := c.BeginIdempotent("k\x00flying", fp("fp")); out != IdempotencyProceed {
		t.Fatalf("in-flight key was exported: %v", out)
	}

	// Sealed values are bound to their account: imported into another account, the records
	// are there but do not open, and the keyed answer does not replay (the request runs anew).
	other := s.Account("acct_other")
	if err := other.Import(b); err != nil {
		t.Fatal(err)
	}
	if _, err := other.GetPatient(p.ID); err == nil {
		t.Fatal("a patient sealed in one account opened in another")
	}
	if out, _ := other.BeginIdempotent("k\x00done", fp("fp")); out != IdempotencyProceed {
		t.Fatalf("an idempotent answer sealed in one account replayed in another: %v", out)
	}

	// The copy is deep: changing the original leaves the import alone.
	if _, err := a.updatePatient(p.ID, func(x *patients.Patient) { x.Tags = []string{"changed"} }); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.GetPatient(p.ID); len(got.Tags) != 1 || got.Tags[0] != "t" {
		t.Fatalf("import shares records with the original: %v", got.Tags)
	}

	// Garbage changes nothing.
	for _, bad := range []string{`{`, `{"data":null}`, `{"data":{"patients":{}}}`} {
		if err := c.Import([]byte(bad)); err == nil {
			t.Fatalf("Import(%s) succeeded", bad)
		}
	}
	if got := dump(c); !bytes.Equal(got, want) {
		t.Fatal("a failed import changed the account")
	}
}

func TestIDGenStateContinues(t *testing.T) {
	t.Parallel()
	g := NewIDGen(9)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g.New("pat", now)
	st, err := g.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	next := g.New("pat", now)
	h := NewIDGen(9)
	if err := h.UnmarshalBinary(st); err != nil {
		t.Fatal(err)
	}
	if got := h.New("pat", now); got != next {
		t.Fatalf("restored generator gave %s, want %s", got, next)
	}
	var s1, s2 [8]byte
	p1, p2 := NewIDGen(3), NewIDGen(3)
	_, _ = p1.Rand().Read(s1[:])
	_, _ = p2.Rand().Read(s2[:])
	if s1 == s2 {
		t.Fatal("a seed alone makes secrets predictable (issue 32, item 7)")
	}
	p1.PredictableSecrets(3)
	p2.PredictableSecrets(3)
	_, _ = p1.Rand().Read(s1[:])
	_, _ = p2.Rand().Read(s2[:])
	if s1 != s2 {
		t.Fatal("predictable secrets differ")
	}
}
