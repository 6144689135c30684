package httpapi

import (
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// security holds the request checks of contract §5–§7 and §10: OAuth tokens, signatures,
// rate limits and the audit log.
type security struct{ api *API }

func newSecurity(a *API) *security { return &security{api: a} }

// authenticateToken resolves OAuth access tokens; (nil, nil) means "not a token, try API keys".
func (s *security) authenticateToken(rq *request, secret string) (*auth.Credential, *problem.Problem) {
	return nil, nil
}

// verifySignature checks RFC 9421 signatures for credentials that require them.
func (s *security) verifySignature(rq *request) *problem.Problem { return nil }

// rateLimit takes a token from the credential's bucket and sets the rate-limit headers.
func (s *security) rateLimit(w http.ResponseWriter, rq *request) *problem.Problem { return nil }

// deny records a denied request in the audit log.
func (s *security) deny(rq *request, p *problem.Problem) {}

// serveOAuth serves /oauth/*.
func (s *security) serveOAuth(w http.ResponseWriter, rq *request) {
	problem.Write(w, rq.id, problem.NotFound("route"))
}

// signingWriter signs the response when the request was signed.
func (s *security) signingWriter(w http.ResponseWriter, rq *request) *responseWriter {
	return &responseWriter{ResponseWriter: w}
}

// responseWriter passes through; the signing version buffers the answer to sign it.
type responseWriter struct {
	http.ResponseWriter
}

func (w *responseWriter) finish() {}
