package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"runtime"
	"sync"
	"testing"
	"time"
)

// The benchmarks that keep the fenced optimisations of this package (BENCHMARKS.md "Fenced
// optimisations"): each runs the optimisation ("fast") and the plain code it replaces
// ("plain") in one run.

func benchEvent() Event {
	return Event{ID: "aud_0193a1b2c3d4e5f60718293a4b5c6d7e", At: time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC),
		Actor: "key_0193a1b2c3d4e5f60718293a4b5c6d7f", Action: "read", ResourceType: "patient",
		ResourceID: "pat_0193a1b2c3d4e5f60718293a4b5c6d80", RequestID: "req_0193a1b2c3d4e5f60718293a4b5c6d81",
		IP: "127.0.0.1", Outcome: Success}
}

// plainLog is the log Log replaces: one slice of events per account.
type plainLog struct {
	mu     sync.Mutex
	chains map[string][]Event
}

func (l *plainLog) append(account string, e Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.chains[account]
	e.PrevHash = GenesisHash
	if len(c) > 0 {
		e.PrevHash = c[len(c)-1].Hash
	}
	e.Hash = ComputeHash(e)
	l.chains[account] = append(c, e)
}

// BenchmarkFenceAuditLog keeps Log's pointer-free chunks (audit.go): appending one event to an
// account holding 200,000, and a full garbage collection over them, versus a slice of events.
func BenchmarkFenceAuditLog(b *testing.B) {
	const n = 200_000
	e := benchEvent()
	b.Run("append/fast", func(b *testing.B) {
		l := NewLog()
		for range n {
			l.Append("acct", e)
		}
		b.ReportAllocs()
		for b.Loop() {
			l.Append("acct", e)
		}
	})
	b.Run("append/plain", func(b *testing.B) {
		l := &plainLog{chains: map[string][]Event{}}
		for range n {
			l.append("acct", e)
		}
		b.ReportAllocs()
		for b.Loop() {
			l.append("acct", e)
		}
	})
	b.Run("gc/fast", func(b *testing.B) {
		l := NewLog()
		for range n {
			l.Append("acct", e)
		}
		runtime.GC()
		for b.Loop() {
			runtime.GC()
		}
		runtime.KeepAlive(l)
	})
	b.Run("gc/plain", func(b *testing.B) {
		l := &plainLog{chains: map[string][]Event{}}
		for range n {
			l.append("acct", e)
		}
		runtime.GC()
		for b.Loop() {
			runtime.GC()
		}
		runtime.KeepAlive(l)
	})
}

// BenchmarkFenceAuditHash keeps computeSum's hand-made canonical JSON (audit.go): an event's
// hash versus one over encoding/json's output (a map, for sorted keys).
func BenchmarkFenceAuditHash(b *testing.B) {
	e := benchEvent()
	e.PrevHash = GenesisHash
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = ComputeHash(e)
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			canonical, _ := json.Marshal(map[string]string{
				"action": e.Action, "actor": e.Actor, "at": e.At.UTC().Format(time.RFC3339), "id": e.ID, "ip": e.IP,
				"outcome": e.Outcome, "prevHash": e.PrevHash, "requestId": e.RequestID, "resourceId": e.ResourceID,
				"resourceType": e.ResourceType,
			})
			sum := sha256.Sum256(append([]byte(e.PrevHash), canonical...))
			_ = hex.EncodeToString(sum[:])
		}
	})
}

// The plain hash is the same hash: the benchmark compares like with like.
func TestFencePlainHashIsTheHash(t *testing.T) {
	t.Parallel()
	e := benchEvent()
	e.PrevHash = GenesisHash
	canonical, _ := json.Marshal(map[string]string{
		"action": e.Action, "actor": e.Actor, "at": e.At.UTC().Format(time.RFC3339), "id": e.ID, "ip": e.IP,
		"outcome": e.Outcome, "prevHash": e.PrevHash, "requestId": e.RequestID, "resourceId": e.ResourceID,
		"resourceType": e.ResourceType,
	})
	sum := sha256.Sum256(append([]byte(e.PrevHash), canonical...))
	if hex.EncodeToString(sum[:]) != ComputeHash(e) {
		t.Fatal("the plain hash differs")
	}
}
