package httpapi

import (
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// allowlist refuses a caller whose address is not in its credential's allowlist
// (docs/protocol.md §5 "IP allowlist"): 403 ip_not_allowed, audited as a denial.
func (a *API) allowlist(rq *request) *answer {
	if !rq.cred.AllowsIP(rq.addr) {
		return a.deny(rq, problem.New("ip_not_allowed", "the caller's address is not in the credential's allowlist"))
	}
	return nil
}
