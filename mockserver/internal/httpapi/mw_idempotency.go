package httpapi

import (
	"crypto/sha256"
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// idempotency runs a POST with an Idempotency-Key at most once per credential and key
// (docs/protocol.md §8): the first answer is kept and replayed byte for byte (with
// Idempotent-Replayed: true) for the same request; a different request with the key is 422
// idempotency_key_reused, one still in flight 409 idempotency_key_in_use.
func (a *API) idempotency(w http.ResponseWriter, rq *request, next handler) {
	keys := rq.Header.Values("Idempotency-Key")
	if rq.Method != http.MethodPost || len(keys) == 0 {
		next(w, rq)
		return
	}
	key := keys[0]
	if len(keys) != 1 || !validIdempotencyKey(key) {
		problem.Write(w, rq.id, problem.Field("Idempotency-Key", "invalid_value", "must be 1–255 printable ASCII characters, sent once"))
		return
	}
	// The fingerprint is a digest of method, path and body: fixed-size, so a key kept for a day
	// costs the same whatever the request.
	h := sha256.New()
	h.Write([]byte(rq.Method + " " + rq.URL.Path + " "))
	h.Write(rq.body)
	var fingerprint [sha256.Size]byte
	h.Sum(fingerprint[:0])
	scoped := rq.cred.ID + "\x00" + key
	outcome, entry := rq.acct.BeginIdempotent(scoped, fingerprint)
	switch outcome {
	case store.IdempotencyReplay:
		if len(entry.Audit) == 3 {
			rq.audit = auditInfo{entry.Audit[0], entry.Audit[1], entry.Audit[2]}
		}
		header := http.Header(entry.Header) // the entry's header is this replay's own copy
		header.Set("Idempotent-Replayed", "true")
		writeAnswer(w, rq, answer{status: entry.Status, header: header, body: entry.Body})
		return
	case store.IdempotencyInUse:
		problem.Write(w, rq.id, problem.New("idempotency_key_in_use", "a request with this Idempotency-Key is still in progress"))
		return
	case store.IdempotencyReused:
		problem.Write(w, rq.id, problem.New("idempotency_key_reused", "this Idempotency-Key was used with a different request"))
		return
	}
	finished := false
	defer func() {
		if !finished { // the handler panicked: free the key (and resolve its claim)
			rq.acct.AbandonIdempotent(scoped)
		}
	}()
	held := &heldAnswer{status: http.StatusOK}
	next(held, rq)
	finished = true
	var audited []string
	if rq.audit.action != "" {
		audited = []string{rq.audit.action, rq.audit.resourceType, rq.audit.resourceID}
	}
	rq.acct.FinishIdempotent(scoped, held.status, held.header, held.body, audited...)
	writeAnswer(w, rq, answer{status: held.status, header: held.header, body: held.body})
}

// heldAnswer keeps an answer back, to be stored before it is sent.
type heldAnswer struct {
	header http.Header
	status int
	body   []byte
}

func (h *heldAnswer) Header() http.Header {
	if h.header == nil {
		h.header = http.Header{}
	}
	return h.header
}

func (h *heldAnswer) WriteHeader(code int) { h.status = code }

func (h *heldAnswer) Write(b []byte) (int, error) {
	h.body = append(h.body, b...)
	return len(b), nil
}

func validIdempotencyKey(k string) bool {
	if len(k) < 1 || len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}
