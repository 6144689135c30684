package httpapi

import (
	"strings"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// authenticate admits a request whose credential (resolved by identify) may act now: a known,
// unexpired API key or a valid OAuth access token (docs/protocol.md §5). Anything else is 401,
// audited as a denial: under the credential's account when it is known, else anonymously.
func (a *API) authenticate(rq *request) *answer {
	switch rq.caller.state {
	case callerValid:
		rq.cred = rq.caller.cred
		rq.acct = a.store.Account(rq.cred.Account)
		return nil
	case callerTokenExpired:
		rq.cred = rq.caller.cred // the client is known: the denial is audited in its account
		return a.deny(rq, problem.New("token_expired", "the access token has expired").
			WithHeader("WWW-Authenticate", `Bearer error="invalid_token", error_description="token expired"`))
	case callerTokenUnknown:
		return a.deny(rq, problem.New("unauthorized", "the access token is unknown or revoked").
			WithHeader("WWW-Authenticate", `Bearer error="invalid_token"`))
	default:
		return a.deny(rq, problem.New("unauthorized", credentialsDetail(rq.Header.Values("Authorization"))).
			WithHeader("WWW-Authenticate", `Bearer realm="medspa"`))
	}
}

// credentialsDetail says what is wrong with the Authorization header of a request that names
// no usable API key: missing, malformed (not one "Bearer <secret>", or a secret not of the
// shape of a key or token), a live key, or a well-formed key the server does not know (or no
// longer accepts: unknown, revoked and expired are one answer, so it tells nothing a caller
// without the key could not tell from its shape). It judges the shape only and never repeats
// the value.
func credentialsDetail(values []string) string {
	if len(values) == 0 {
		return "missing credentials: send Authorization: Bearer <API key>"
	}
	secret, ok := bearerSecret(values[0])
	switch {
	case len(values) > 1:
		return "malformed credentials: send one Authorization header"
	case !ok:
		return `malformed credentials: the Authorization header must be "Bearer <API key>"`
	case strings.HasPrefix(secret, "msk_live_"):
		return "a live API key (msk_live_…) was sent to the mock server: use a test key (msk_test_…) that it issued"
	case !isTestKeyShape(secret):
		return "malformed credentials: an API key is msk_test_ followed by 32 letters and digits"
	}
	return "unknown credentials: the API key is unknown, revoked or expired"
}

// isTestKeyShape reports whether s is msk_test_ and 32 base62 characters.
func isTestKeyShape(s string) bool {
	rest, ok := strings.CutPrefix(s, "msk_test_")
	if !ok || len(rest) != 32 {
		return false
	}
	for _, c := range []byte(rest) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}
