package httpapi

import (
	"net/http"
	"strings"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// faults applies the first armed fault that matches the request (docs/protocol.md §12 "POST
// /__admin/faults"): a delay, then the fault's problem or a dropped connection instead of the
// answer; with afterCommit the request is served first and its answer thrown away. Faults
// match the account of the credential the request names, valid or not, and never apply to
// /__admin/ (which reaches here only with the admin surface off).
func (a *API) faults(w http.ResponseWriter, rq *request, next handler) {
	var f *Fault
	if !strings.HasPrefix(rq.URL.Path, "/__admin/") {
		account := ""
		if c := rq.caller.cred; c != nil {
			account = c.Account
		}
		f = a.armed.take(account, rq.Method, rq.URL.Path)
	}
	if f == nil {
		next(w, rq)
		return
	}
	if f.DelayMs > 0 {
		rq.fault = "delay"
		if !delay(rq, f.DelayMs) { // stubs.go
			return
		}
	}
	suffix := ""
	if f.AfterCommit {
		next(&discarded{}, rq) // served, committed, and the answer lost
		suffix = "-after-commit"
	}
	switch {
	case f.DropConnection:
		rq.fault = "drop" + suffix
		panic(http.ErrAbortHandler) // the journal still records it; net/http closes the connection
	case f.Status != 0:
		rq.fault = "status" + suffix
		problem.Write(w, rq.id, f.problem())
	default:
		next(w, rq)
	}
}

// discarded is an answer nobody will read.
type discarded struct{ header http.Header }

func (d *discarded) Header() http.Header {
	if d.header == nil {
		d.header = http.Header{}
	}
	return d.header
}

func (d *discarded) Write(b []byte) (int, error) { return len(b), nil }

func (d *discarded) WriteHeader(int) {}
