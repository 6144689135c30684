package httpapi

import (
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// authenticate admits a request whose credential (resolved by identify) may act now: a known,
// unexpired API key or a valid OAuth access token (docs/protocol.md §5). Anything else is 401,
// audited as a denial: under the credential's account when it is known, else anonymously.
func (a *API) authenticate(w http.ResponseWriter, rq *request, next handler) {
	switch rq.caller.state {
	case callerValid:
		rq.cred = rq.caller.cred
		rq.acct = a.store.Account(rq.cred.Account)
		next(w, rq)
	case callerTokenExpired:
		rq.cred = rq.caller.cred // the client is known: the denial is audited in its account
		a.deny(w, rq, problem.New("token_expired", "the access token has expired").
			WithHeader("WWW-Authenticate", `Bearer error="invalid_token", error_description="token expired"`))
	case callerTokenUnknown:
		a.deny(w, rq, problem.New("unauthorized", "the access token is unknown or revoked").
			WithHeader("WWW-Authenticate", `Bearer error="invalid_token"`))
	default:
		a.deny(w, rq, problem.New("unauthorized", "missing or unknown credentials").
			WithHeader("WWW-Authenticate", `Bearer realm="medspa"`))
	}
}
