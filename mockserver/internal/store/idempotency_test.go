package store

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/clock"
)

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
