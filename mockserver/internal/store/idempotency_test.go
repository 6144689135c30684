package store

import (
	"bytes"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/clock"
	"github.com/medspa/medspa-go/patients"
)

func TestIdempotencyStates(t *testing.T) {
	s := New(Options{})
	s.Clock().Set(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	a := s.Account("acct_1")
	if got, _ := a.BeginIdempotent("k", "POST /a 1"); got != IdempotencyProceed {
		t.Fatalf("first use: %v", got)
	}
	if got, _ := a.BeginIdempotent("k", "POST /a 1"); got != IdempotencyInUse {
		t.Errorf("same key in flight: %v, want in use", got)
	}
	if got, _ := a.BeginIdempotent("k", "POST /a 2"); got != IdempotencyReused {
		t.Errorf("other request while in flight: %v, want reused", got)
	}
	// A 5xx outcome is forgotten: the retry runs anew.
	a.FinishIdempotent("k", 503, nil, []byte("x"))
	if got, _ := a.BeginIdempotent("k", "POST /a 1"); got != IdempotencyProceed {
		t.Errorf("after a 5xx: %v, want proceed", got)
	}
	a.FinishIdempotent("k", 201, nil, []byte(`{"id":"x"}`))
	got, e := a.BeginIdempotent("k", "POST /a 1")
	if got != IdempotencyReplay || e == nil || string(e.Body) != `{"id":"x"}` || e.Status != 201 {
		t.Errorf("completed: %v %+v", got, e)
	}
	s.Clock().Advance(IdempotencyRetention)
	if got, _ := a.BeginIdempotent("k", "POST /a 2"); got != IdempotencyProceed {
		t.Errorf("after retention even another request proceeds: %v", got)
	}
}

// Expired keys are swept once the map reaches its sweep size, and replays still work between
// sweeps.
func TestIdempotencySweep(t *testing.T) {
	clk := clock.New()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk.Set(start)
	a := New(Options{Clock: clk}).Account("sweep")
	for i := range 4095 {
		k := "k" + strconv.Itoa(i)
		if out, _ := a.BeginIdempotent(k, "fp"); out != IdempotencyProceed {
			t.Fatalf("key %d: %v", i, out)
		}
		a.FinishIdempotent(k, http.StatusCreated, nil, []byte("{}"))
	}
	if out, _ := a.BeginIdempotent("k7", "fp"); out != IdempotencyReplay {
		t.Fatalf("replay: %v", out)
	}
	clk.Set(start.Add(IdempotencyRetention + time.Hour))
	if out, _ := a.BeginIdempotent("fresh", "fp"); out != IdempotencyProceed {
		t.Fatalf("fresh key: %v", out)
	}
	if out, _ := a.BeginIdempotent("late", "fp"); out != IdempotencyProceed {
		t.Fatalf("late key: %v", out)
	}
	a.idemMu.Lock()
	n := len(a.idem)
	a.idemMu.Unlock()
	if n != 2 {
		t.Fatalf("%d keys kept after the sweep, want 2", n)
	}
}

// The answer and its audit triple are sealed together and come back as they went in; the
// stored form holds neither in the clear.
func TestIdempotencyAnswerSealed(t *testing.T) {
	a := New(Options{}).Account("sealed")
	body := []byte(`{"firstName":"Zelda"}`)
	if out, _ := a.BeginIdempotent("k", "fp"); out != IdempotencyProceed {
		t.Fatal(out)
	}
	a.FinishIdempotent("k", http.StatusCreated, http.Header{"Content-Type": {"application/json"}}, body, "create", "patient", "pat_1")
	a.idemMu.Lock()
	for _, e := range a.idem {
		if bytes.Contains(e.sealed, []byte("Zelda")) || bytes.Contains(e.sealed, []byte("pat_1")) {
			t.Error("the stored answer is in the clear")
		}
	}
	a.idemMu.Unlock()
	out, e := a.BeginIdempotent("k", "fp")
	if out != IdempotencyReplay || !bytes.Equal(e.Body, body) || !slices.Equal(e.Audit, []string{"create", "patient", "pat_1"}) ||
		e.Status != http.StatusCreated || e.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("replay: %v %+v", out, e)
	}
}

func TestUnpackAnswerRejectsMalformed(t *testing.T) {
	for _, b := range [][]byte{nil, {0xff}, {17}, {1}, {1, 5, 'a'}, {2, 1, 'a', 0x80}} {
		if _, _, err := unpackAnswer(b); err == nil {
			t.Errorf("%v: accepted", b)
		}
	}
	body, audit, err := unpackAnswer(packAnswer([]byte("{}"), nil))
	if err != nil || string(body) != "{}" || len(audit) != 0 {
		t.Errorf("empty audit: %q %v %v", body, audit, err)
	}
}

// A snapshot whose idempotency entry is not keyed by a digest is refused and changes nothing.
func TestImportRejectsBadIdempotencyEntry(t *testing.T) {
	a := New(Options{}).Account("import")
	if _, err := a.CreatePatient(patients.Patient{FirstName: "A", LastName: "B", Email: "a@b.example"}, time.Time{}); err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{
		`{"data":{},"idempotency":{"k":{"fingerprint":"` + strings.Repeat("0", 64) + `"}}}`,
		`{"data":{},"idempotency":{"` + strings.Repeat("0", 64) + `":{"fingerprint":"fp"}}}`,
		`{"data":{},"idempotency":{"` + strings.Repeat("z", 64) + `":{"fingerprint":"` + strings.Repeat("0", 64) + `"}}}`,
	} {
		if err := a.Import([]byte(doc)); err == nil {
			t.Errorf("%s: imported", doc)
		}
	}
	if n := a.data.Patients.len(); n != 1 {
		t.Errorf("%d patients after refused imports, want 1", n)
	}
}
