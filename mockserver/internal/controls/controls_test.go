package controls

import (
	"testing"
	"time"
)

// A stream reader that does not keep up is dropped once its buffer is full: publishing never
// waits for it, and a reader that keeps up is not disturbed.
func TestStreamDropsASlowReader(t *testing.T) {
	t.Parallel()
	var s Stream
	slow, ok := s.Subscribe("acct_a")
	if !ok {
		t.Fatal("subscribe")
	}
	other, _ := s.Subscribe("acct_b")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range streamBuffer + 10 {
			s.Publish("acct_a", "request", map[string]int{"n": i})
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("publishing waited for a slow reader")
	}
	select {
	case <-slow.gone:
	default:
		t.Fatal("the slow reader was not dropped")
	}
	if len(slow.ch) != streamBuffer {
		t.Errorf("the slow reader holds %d messages, want its buffer, %d", len(slow.ch), streamBuffer)
	}
	select {
	case <-other.gone:
		t.Fatal("a reader of another account was dropped")
	default:
	}
	if len(other.ch) != 0 {
		t.Errorf("another account's reader got %d messages", len(other.ch))
	}
	if n := s.n.Load(); n != 1 {
		t.Errorf("%d subscribers left, want 1", n)
	}
	for range MaxStreams - 1 {
		if _, ok := s.Subscribe(""); !ok {
			t.Fatal("refused below the bound")
		}
	}
	if _, ok := s.Subscribe(""); ok {
		t.Error("a stream past MaxStreams was opened")
	}
	s.Close()
	select {
	case <-other.gone:
	default:
		t.Error("close left a stream open")
	}
	if _, ok := s.Subscribe(""); ok {
		t.Error("a stream opened after close")
	}
}

// Arming past the bound is refused, and removing makes room.
func TestStubsBounded(t *testing.T) {
	t.Parallel()
	ss := Stubs{limit: 3}
	var ids []string
	for range 3 {
		st, err := ss.Add(Stub{Method: "GET", Route: "/api/v1/patients", Status: 200})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, st.ID)
	}
	if _, err := ss.Add(Stub{Method: "GET", Route: "/api/v1/patients", Status: 200}); err == nil {
		t.Fatal("a stub past the bound was armed")
	}
	if ss.Count() != 3 {
		t.Fatalf("count %d", ss.Count())
	}
	if n := ss.remove(func(s *armedStub) bool { return s.id == ids[0] }); n != 1 || ss.Count() != 2 {
		t.Fatalf("remove: %d, count %d", n, ss.Count())
	}
	if _, err := ss.Add(Stub{Method: "GET", Route: "/api/v1/patients", Status: 200}); err != nil {
		t.Fatalf("no room after a removal: %v", err)
	}
}
