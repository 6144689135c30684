package admin

import (
	"net/http"
	"strconv"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/controls"
	"github.com/medspa/medspa-go/mockserver/internal/httpapi"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/webhook"
)

// streamHeartbeat is how often an idle stream sends a comment line, so that a dead connection
// is noticed and proxies keep it open.
const streamHeartbeat = 15 * time.Second

// watchStreams makes delivery attempts and audit events reach the streams.
func (s *Surface) watchStreams() {
	st := &s.ctl.Stream
	s.hooks.OnLog(func(account string, d webhook.Delivery) { st.Publish(account, "delivery", d) }, st.Listening)
	s.audit.OnRecord(func(account string, e audit.Event) {
		e.Path = httpapi.JournalPath(e.Path) // the anonymous chain's path, redacted as the journal's
		st.Publish(account, "audit", e)
	}, st.Listening)
}

// CloseStreams ends every live stream and refuses new ones (the server is closing).
func (s *Surface) CloseStreams() { s.ctl.Stream.Close() }

// EndStreams ends the live streams, so that an HTTP server shutting down gracefully does not
// wait for them (they never end on their own); later requests may open new ones.
func (s *Surface) EndStreams() { s.ctl.Stream.DropAll() }

// serveStream is GET /__admin/stream?account=: a text/event-stream of "request" (journal
// entries), "delivery" (webhook attempts) and "audit" (audit events) messages, each one JSON
// object as the matching GET lists it, from now on; without account, every account's. It ends
// when the client goes, is too slow (controls.StreamBuffer), or the server closes.
func (s *Surface) serveStream(rq *request) *httpcore.Answer {
	account := rq.URL.Query().Get("account")
	if _, ok := s.store.LookupAccount(account); !ok && account != "" && account != audit.Anonymous {
		return rq.problem(problem.NotFound("account"))
	}
	sub, ok := s.ctl.Stream.Subscribe(account)
	if !ok {
		return rq.problem(problem.WithStatus(http.StatusServiceUnavailable, "service_unavailable",
			"too many live streams are open (at most "+strconv.Itoa(controls.MaxStreams)+"), or the server is closing"))
	}
	return &httpcore.Answer{Serve: func(w http.ResponseWriter) { s.streamTo(w, rq, sub) }}
}

// streamTo writes the stream's messages to w until it ends.
func (s *Surface) streamTo(w http.ResponseWriter, rq *request, sub *controls.Subscriber) {
	defer s.ctl.Stream.Unsubscribe(sub)
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
		case msg = <-sub.Messages():
		case <-beat.C:
			msg = []byte(": ping\n\n")
		case <-sub.Gone():
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
