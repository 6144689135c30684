package httpapi

import (
	"crypto/sha256"
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// idempotent runs a POST with an Idempotency-Key at most once per credential and key
// (docs/protocol.md §8): the first answer is kept and replayed byte for byte (with
// Idempotent-Replayed: true) for the same request; a different request with the key is 422
// idempotency_key_reused, one still in flight 409 idempotency_key_in_use.
func (a *API) idempotent(rq *request, handle func(*request) *answer) *answer {
	keys := rq.Header.Values("Idempotency-Key")
	if rq.Method != http.MethodPost || len(keys) == 0 {
		return handle(rq)
	}
	key := keys[0]
	if len(keys) != 1 || !validIdempotencyKey(key) {
		return rq.problem(problem.Field("Idempotency-Key", "invalid_value", "must be 1–255 printable ASCII characters, sent once"))
	}
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
		return &answer{Status: entry.Status, Header: header, Body: entry.Body}
	case store.IdempotencyInUse:
		return rq.problem(problem.New("idempotency_key_in_use", "a request with this Idempotency-Key is still in progress"))
	case store.IdempotencyReused:
		return rq.problem(problem.New("idempotency_key_reused", "this Idempotency-Key was used with a different request"))
	}
	finished := false
	defer func() {
		if !finished { // the handler panicked: free the key (and resolve its claim)
			rq.acct.AbandonIdempotent(scoped)
		}
	}()
	ans := handle(rq)
	finished = true
	var audited []string
	if ans.Status < 400 {
		if what := auditOf(rq); what.action != "" {
			audited = []string{what.action, what.resourceType, what.resourceID}
		}
	}
	rq.acct.FinishIdempotent(scoped, ans.Status, ans.Header, ans.Body, audited...)
	return ans
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
