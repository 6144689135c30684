package httpapi

import (
	"strings"
)

// faults applies the first armed fault that matches the request (docs/protocol.md §12 "POST
// /__admin/faults"): a delay, then the fault's problem or a dropped connection instead of the
// answer; with afterCommit the request is served first and its answer thrown away. Faults
// match the account of the credential the request names, valid or not, and never apply to
// /__admin/ (which reaches here only with the admin surface off).
func (a *API) faults(rq *request, serve func(*request) *answer) *answer {
	var f *Fault
	if !strings.HasPrefix(rq.URL.Path, "/__admin/") {
		account := ""
		if c := rq.caller.cred; c != nil {
			account = c.Account
		}
		f = a.armed.take(account, rq.Method, rq.URL.Path)
	}
	if f == nil {
		return serve(rq)
	}
	if f.DelayMs > 0 {
		rq.fault = "delay"
		if !delay(rq, f.DelayMs) { // stubs.go
			return &answer{} // the caller left: nothing to say
		}
	}
	suffix := ""
	if f.AfterCommit {
		serve(rq) // served, committed, and the answer lost
		suffix = "-after-commit"
	}
	switch {
	case f.DropConnection:
		rq.fault = "drop" + suffix
		return &answer{drop: true}
	case f.Status != 0:
		rq.fault = "status" + suffix
		return rq.problem(f.problem())
	}
	return serve(rq)
}
