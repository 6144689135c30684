package httpapi

import (
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// allowlist refuses a caller whose address is not in its credential's allowlist
// (docs/protocol.md §5 "IP allowlist"): 403 ip_not_allowed, audited as a denial.
func (a *API) allowlist(w http.ResponseWriter, rq *request, next handler) {
	if !rq.cred.AllowsIP(rq.addr) {
		a.deny(w, rq, problem.New("ip_not_allowed", "the caller's address is not in the credential's allowlist"))
		return
	}
	next(w, rq)
}
