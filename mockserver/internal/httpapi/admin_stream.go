package httpapi

import (
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// Stream bounds (RELIABILITY.md "Bounds").
const (
	// MaxStreams bounds the live streams open at once (GET /__admin/stream): one more is 503.
	MaxStreams = 64
	// streamBuffer is how many messages wait for a slow stream reader: past it, the reader is
	// dropped (its stream ends) rather than the server waiting for it.
	streamBuffer = 512
	// streamHeartbeat is how often an idle stream sends a comment line, so that a dead
	// connection is noticed and proxies keep it open.
	streamHeartbeat = 15 * time.Second
)

// stream fans new journal entries, webhook delivery attempts and audit events out to the open
// GET /__admin/stream connections. Publishing never blocks: each subscriber has a bounded
// buffer, and one that is full is dropped. With no subscriber, publishing costs an atomic load.
type stream struct {
	n      atomic.Int32 // subscribers; written under mu
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	closed bool
}

// subscriber is one open stream: the account it follows ("" = all) and its pending messages.
type subscriber struct {
	account string
	ch      chan []byte
	gone    chan struct{} // closed when dropped (slow, or the server closing)
}

// subscribe opens a subscriber, or reports the bound reached or the server closed.
func (s *stream) subscribe(account string) (*subscriber, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || len(s.subs) >= MaxStreams {
		return nil, false
	}
	if s.subs == nil {
		s.subs = map[*subscriber]struct{}{}
	}
	sub := &subscriber{account: account, ch: make(chan []byte, streamBuffer), gone: make(chan struct{})}
	s.subs[sub] = struct{}{}
	s.n.Store(int32(len(s.subs)))
	return sub, true
}

// dropLocked ends a subscriber; the caller holds s.mu.
func (s *stream) dropLocked(sub *subscriber) {
	if _, ok := s.subs[sub]; ok {
		delete(s.subs, sub)
		close(sub.gone)
		s.n.Store(int32(len(s.subs)))
	}
}

func (s *stream) unsubscribe(sub *subscriber) {
	s.mu.Lock()
	s.dropLocked(sub)
	s.mu.Unlock()
}

// close ends every stream; later subscriptions are refused.
func (s *stream) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.dropAllLocked()
}

// dropAll ends the live streams and leaves the hub open for new ones.
func (s *stream) dropAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropAllLocked()
}

func (s *stream) dropAllLocked() {
	for sub := range s.subs {
		s.dropLocked(sub)
	}
}

// publish sends v as an SSE message of the given event name to the subscribers that follow
// account.
func (s *stream) publish(account, event string, v any) {
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

// listening reports whether any stream is open.
func (s *stream) listening() bool { return s.n.Load() != 0 }

// journalled publishes a new journal entry.
func (s *stream) journalled(e JournalEntry) { s.publish(e.Account, "request", &e) }

// watchStreams makes delivery attempts and audit events reach the streams.
func (a *API) watchStreams() {
	listening := a.stream.listening
	a.opts.Webhooks.OnLog(func(account string, d webhook.Delivery) { a.stream.publish(account, "delivery", d) }, listening)
	a.audit.OnRecord(func(account string, e audit.Event) {
		e.Path = journalPath(e.Path) // the anonymous chain's path, redacted as the journal's
		a.stream.publish(account, "audit", e)
	}, listening)
}

// CloseStreams ends every live stream and refuses new ones (the server is closing).
func (a *API) CloseStreams() { a.stream.close() }

// EndStreams ends the live streams, so that an HTTP server shutting down gracefully does not
// wait for them (they never end on their own); later requests may open new ones.
func (a *API) EndStreams() { a.stream.dropAll() }

// serveStream is GET /__admin/stream?account=: a text/event-stream of "request" (journal
// entries), "delivery" (webhook attempts) and "audit" (audit events) messages, each one JSON
// object as the matching GET lists it, from now on; without account, every account's. It ends
// when the client goes, is too slow (streamBuffer), or the server closes.
func (a *API) serveStream(rq *request) *answer {
	account := rq.URL.Query().Get("account")
	if _, ok := a.store.LookupAccount(account); !ok && account != "" && account != audit.Anonymous {
		return rq.problem(problem.NotFound("account"))
	}
	sub, ok := a.stream.subscribe(account)
	if !ok {
		return rq.problem(problem.WithStatus(http.StatusServiceUnavailable, "service_unavailable",
			"too many live streams are open (at most "+itoa(MaxStreams)+"), or the server is closing"))
	}
	return &answer{serve: func(w http.ResponseWriter) { a.streamTo(w, rq, sub) }}
}

// streamTo writes the stream's messages to w until it ends.
func (a *API) streamTo(w http.ResponseWriter, rq *request, sub *subscriber) {
	defer a.stream.unsubscribe(sub)
	rc := http.NewResponseController(w)
	// A stream outlives the server's read and write timeouts (a read deadline that passes would
	// cancel the request); the heartbeat finds a peer that went away, and every write has its
	// own deadline.
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write([]byte(": medspa-mock stream\n\n")); err != nil {
		return
	}
	_ = rc.Flush()
	beat := time.NewTicker(streamHeartbeat)
	defer beat.Stop()
	for {
		var msg []byte
		select {
		case msg = <-sub.ch:
		case <-beat.C:
			msg = []byte(": ping\n\n")
		case <-sub.gone:
			return
		case <-rq.Context().Done():
			return
		}
		// Each message must leave within two heartbeats: a peer that stopped reading is let go,
		// its connection with it, instead of holding a blocked write for ever.
		_ = rc.SetWriteDeadline(time.Now().Add(2 * streamHeartbeat))
		if _, err := w.Write(msg); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}
