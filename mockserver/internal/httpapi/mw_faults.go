package httpapi

import (
	"strings"

	"github.com/medspa/medspa-go/mockserver/internal/controls"
)

// takeFault takes the first armed fault that matches the request (docs/protocol.md §12 "POST
// /__admin/faults"); faultBefore and faultAfter apply it: a delay, then the fault's problem or
// a dropped connection instead of the answer; with afterCommit the request is served first and
// its answer thrown away. Faults match the account of the credential the request names, valid
// or not, and never apply to /__admin/ (which reaches here only with the admin surface off).
func (a *API) takeFault(rq *request) *controls.Fault {
	if strings.HasPrefix(rq.URL.Path, "/__admin/") {
		return nil
	}
	account := ""
	if c := rq.caller.cred; c != nil {
		account = c.Account
	}
	return a.ctl.Faults.Take(account, rq.Method, rq.URL.Path)
}

// faultBefore applies what a fault does before the request is served: its delay, then (unless
// it acts after commit) its dropped connection or problem; nil lets the request through.
func faultBefore(rq *request, f *controls.Fault) *answer {
	if f == nil {
		return nil
	}
	if f.DelayMs > 0 {
		rq.fault = "delay"
		if !delay(rq, f.DelayMs) { // stubs.go
			return &answer{} // the caller left: nothing to say
		}
	}
	if f.AfterCommit {
		return nil
	}
	return faultAnswer(rq, f, "")
}

// faultAfter applies a fault that acts after commit: the request was served, its changes
// committed, and its answer is lost.
func faultAfter(rq *request, f *controls.Fault, ans *answer) *answer {
	if f == nil || !f.AfterCommit {
		return ans
	}
	if fa := faultAnswer(rq, f, "-after-commit"); fa != nil {
		return fa
	}
	return ans
}

// faultAnswer is the answer a fault puts in place of the request's: a dropped connection or
// its problem (nil: neither).
func faultAnswer(rq *request, f *controls.Fault, suffix string) *answer {
	switch {
	case f.DropConnection:
		rq.fault = "drop" + suffix
		return &answer{Drop: true}
	case f.Status != 0:
		rq.fault = "status" + suffix
		return rq.problem(f.Problem())
	}
	return nil
}
