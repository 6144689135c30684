package store

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/clock"
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
