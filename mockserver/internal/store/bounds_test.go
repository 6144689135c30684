package store

import (
	"strconv"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/clock"
)

// TestIdempotencyKeysBounded: past the bound, the oldest completed keys go (a retry with one
// runs anew), the newest still replay, and the account never holds more than the bound.
func TestIdempotencyKeysBounded(t *testing.T) {
	t.Parallel()
	clk := clock.New()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk.Set(start)
	a := New(Options{Clock: clk, IdempotencyKeys: 100}).Account("acct")
	for i := range 1000 {
		clk.Set(start.Add(time.Duration(i) * time.Second)) // each key a second younger
		storeAnswer(t, a, "k"+strconv.Itoa(i), []byte("{}"))
		if n := a.IdempotencyKeys(); n > 100 {
			t.Fatalf("%d keys after %d", n, i+1)
		}
	}
	if out, _ := a.BeginIdempotent("k999", fp("fp")); out != IdempotencyReplay {
		t.Errorf("the newest key: %v, want a replay", out)
	}
	if out, _ := a.BeginIdempotent("k0", fp("fp")); out != IdempotencyProceed {
		t.Errorf("the oldest key: %v, want it forgotten", out)
	}
}

// TestSweepIdempotency: the periodic sweep drops expired keys on the account's clock (a claim
// that never finished too), without a new claim to trigger it.
func TestSweepIdempotency(t *testing.T) {
	t.Parallel()
	clk, start, a := frozenAccount()
	for i := range 10 {
		storeAnswer(t, a, "k"+strconv.Itoa(i), []byte("{}"))
	}
	if out, _ := a.BeginIdempotent("stuck", fp("fp")); out != IdempotencyProceed { // never finished
		t.Fatal(out)
	}
	a.SweepIdempotency()
	if n := a.IdempotencyKeys(); n != 11 {
		t.Fatalf("%d keys before their retention", n)
	}
	clk.Set(start.Add(IdempotencyRetention))
	a.SweepIdempotency()
	if n := a.IdempotencyKeys(); n != 0 {
		t.Fatalf("%d keys after their retention", n)
	}
	if out, _ := a.BeginIdempotent("stuck", fp("fp")); out != IdempotencyProceed {
		t.Errorf("a claim that never finished still holds its key after 24 h: %v", out)
	}
}
