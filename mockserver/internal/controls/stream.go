package controls

import (
	"encoding/json"
	"sync"
	"sync/atomic"
)

// Stream bounds (RELIABILITY.md "Bounds").
const (
	// MaxStreams bounds the live streams open at once (GET /__admin/stream): one more is 503.
	MaxStreams = 64
	// streamBuffer is how many messages wait for a slow stream reader: past it, the reader is
	// dropped (its stream ends) rather than the server waiting for it.
	streamBuffer = 512
)

// Stream fans new journal entries, webhook delivery attempts and audit events out to the open
// GET /__admin/stream connections. Publishing never blocks: each subscriber has a bounded
// buffer, and one that is full is dropped. With no subscriber, publishing costs an atomic load.
type Stream struct {
	n      atomic.Int32 // subscribers; written under mu
	mu     sync.Mutex
	subs   map[*Subscriber]struct{}
	closed bool
}

// Subscriber is one open stream: the account it follows ("" = all) and its pending messages.
type Subscriber struct {
	account string
	ch      chan []byte
	gone    chan struct{} // closed when dropped (slow, or the server closing)
}

// Subscribe opens a subscriber, or reports the bound reached or the server closed.
func (s *Stream) Subscribe(account string) (*Subscriber, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || len(s.subs) >= MaxStreams {
		return nil, false
	}
	if s.subs == nil {
		s.subs = map[*Subscriber]struct{}{}
	}
	sub := &Subscriber{account: account, ch: make(chan []byte, streamBuffer), gone: make(chan struct{})}
	s.subs[sub] = struct{}{}
	s.n.Store(int32(len(s.subs)))
	return sub, true
}

// dropLocked ends a subscriber; the caller holds s.mu.
func (s *Stream) dropLocked(sub *Subscriber) {
	if _, ok := s.subs[sub]; ok {
		delete(s.subs, sub)
		close(sub.gone)
		s.n.Store(int32(len(s.subs)))
	}
}

// Unsubscribe ends a subscriber.
func (s *Stream) Unsubscribe(sub *Subscriber) {
	s.mu.Lock()
	s.dropLocked(sub)
	s.mu.Unlock()
}

// Close ends every stream; later subscriptions are refused.
func (s *Stream) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.dropAllLocked()
}

// DropAll ends the live streams and leaves the hub open for new ones.
func (s *Stream) DropAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropAllLocked()
}

func (s *Stream) dropAllLocked() {
	for sub := range s.subs {
		s.dropLocked(sub)
	}
}

// Publish sends v as an SSE message of the given event name to the subscribers that follow
// account.
func (s *Stream) Publish(account, event string, v any) {
	if s.n.Load() == 0 {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	msg := make([]byte, 0, len(event)+len(data)+16)
	msg = append(append(append(append(msg, "event: "...), event...), "\ndata: "...), data...)
	msg = append(msg, "\n\n"...)
	s.mu.Lock()
	defer s.mu.Unlock()
	for sub := range s.subs {
		if sub.account != "" && sub.account != account {
			continue
		}
		select {
		case sub.ch <- msg:
		default:
			s.dropLocked(sub) // too slow: dropped, never waited for
		}
	}
}

// Listening reports whether any stream is open.
func (s *Stream) Listening() bool { return s.n.Load() != 0 }

// Journalled publishes a new journal entry.
func (s *Stream) Journalled(e JournalEntry) { s.Publish(e.Account, "request", &e) }

// Messages are the subscriber's pending messages, each one SSE message.
func (sub *Subscriber) Messages() <-chan []byte { return sub.ch }

// Gone is closed when the subscriber is dropped (too slow, or the server closing).
func (sub *Subscriber) Gone() <-chan struct{} { return sub.gone }
