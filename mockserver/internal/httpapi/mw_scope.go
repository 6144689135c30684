package httpapi

import (
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// scope refuses a credential that lacks the route's scope (docs/protocol.md §5 "Scopes"): 403
// insufficient_scope, naming the scope needed, audited as a denial.
func (a *API) scope(rq *request) *answer {
	if s := rq.route.scope; !rq.cred.Allows(s) {
		return a.deny(rq, problem.New("insufficient_scope", "the credential lacks the scope "+s).
			WithHeader("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+s+`"`))
	}
	return nil
}
