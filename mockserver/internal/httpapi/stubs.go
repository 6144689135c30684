package httpapi

import (
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/controls"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
)

// stubbed answers a routed /api/v1 request with the first armed stub that matches it
// (controls.Stubs), in place of its handler and everything behind it (validation, idempotency,
// the store, the audit log): the request has passed authentication, the allowlist, its
// signature, the rate limit, routing and its scope, so a stub changes what the server answers,
// never who may ask. The journal names the stub (JournalEntry.Stub).
func (a *API) stubbed(rq *request) *answer {
	if a.ctl.Stubs.Count() == 0 {
		return nil
	}
	id, s, ok := a.ctl.Stubs.Take(controls.Call{Account: rq.cred.Account, Method: rq.Method, Route: rq.route.pattern,
		Path: rq.URL.Path, Query: rq.queryValues})
	if !ok {
		return nil
	}
	rq.fault = controls.StubFault + id
	if !delay(rq, s.DelayMs) {
		return &answer{} // the caller left: nothing to say
	}
	ans := httpcore.New(s.Status, "", s.Body)
	if len(s.Body) > 0 {
		ans.Header.Set("Content-Type", "application/json")
	}
	for k, v := range s.Headers {
		ans.Header.Set(k, v)
	}
	return ans
}

// delay waits ms milliseconds, or until the request is cancelled: it reports whether the wait
// ran its course.
func delay(rq *request, ms int) bool {
	if ms <= 0 {
		return true
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-rq.Context().Done():
		return false
	}
}
