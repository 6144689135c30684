package main

import (
	"context"
	"io"
	"testing"
	"time"
)

// TestSoakShort is the soak at CI size: every fault kind at a high rate, short delays. It fails
// on any duplicate, lost write, failed call, unreconciled book, undelivered event or broken
// audit chain.
func TestSoakShort(t *testing.T) {
	r, err := Run(context.Background(), Config{Writes: 160, Rate: 0.4, Workers: 4, Delay: 50 * time.Millisecond, Timeout: time.Minute, Seed: 7}, io.Discard)
	if r == nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if r.FaultsInjected == 0 || r.Retries == 0 || len(r.FaultKinds) != len(faultKinds) {
		t.Fatalf("no real faults: %d injected, %d retries, kinds %v", r.FaultsInjected, r.Retries, r.FaultKinds)
	}
	if r.Duplicates != 0 || r.LostWrites != 0 || !r.MoneyOK || !r.StockOK || !r.AuditOK || r.Events != r.EventsDelivered {
		t.Fatalf("books: %+v", r)
	}
}
