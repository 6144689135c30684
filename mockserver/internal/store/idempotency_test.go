package store

import (
	"testing"
	"time"
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
