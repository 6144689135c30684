package httpapi

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/medspa/medspa-go/internal/httpsig"
	"github.com/medspa/medspa-go/mockserver/internal/audit"
	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// Signature windows of docs/protocol.md §6.
const (
	signatureMaxSkew = 300 * time.Second
	nonceWindow      = 600 * time.Second
)

// Default OAuth token lifetimes of docs/protocol.md §5.
const (
	DefaultAccessTokenTTL  = time.Hour
	DefaultRefreshTokenTTL = 30 * 24 * time.Hour
)

// security holds the request checks of docs/protocol.md §5–7 and §10: OAuth tokens, signatures,
// rate limits and the audit log.
type security struct {
	api        *API
	oauth      *auth.OAuth
	audit      *audit.Log
	accessTTL  time.Duration
	refreshTTL time.Duration
	guard      stuffingGuard

	limits  sync.Map // credential id → *limitState
	replays sync.Map // credential id → *httpsig.ReplayCache
}

func newSecurity(a *API) *security {
	s := &security{api: a, oauth: auth.NewOAuth(), audit: audit.NewLog(),
		accessTTL: a.opts.AccessTokenTTL, refreshTTL: a.opts.RefreshTokenTTL}
	s.oauth.Rand = a.store.IDs().Rand() // seeded servers: reproducible codes and tokens
	if s.accessTTL <= 0 {
		s.accessTTL = DefaultAccessTokenTTL
	}
	if s.refreshTTL <= 0 {
		s.refreshTTL = DefaultRefreshTokenTTL
	}
	return s
}

// accountNow is the time on the credential's account clock.
func (s *security) accountNow(account string) time.Time {
	return s.api.store.Account(account).Clock().Now()
}

// authenticateToken resolves OAuth access tokens (mat_…); (nil, nil) means "not a token, try
// API keys".
func (s *security) authenticateToken(rq *request, secret string) (*auth.Credential, *problem.Problem) {
	if !strings.HasPrefix(secret, "mat_") {
		return nil, nil
	}
	t, state := s.oauth.Access(secret, func(c *auth.OAuthClient) time.Time { return s.accountNow(c.Credential.Account) })
	switch state {
	case auth.TokenExpired:
		// The client is known, so the denial is audited in its account under its id.
		rq.cred = t.Client.Credential
		return nil, problem.New(http.StatusUnauthorized, "token_expired", "the access token has expired").
			WithHeader("WWW-Authenticate", `Bearer error="invalid_token", error_description="token expired"`)
	case auth.TokenValid:
		c := *t.Client.Credential // the client's id, account and plan; the token's scopes
		c.Scopes = t.Scopes
		return &c, nil
	}
	return nil, problem.New(http.StatusUnauthorized, "unauthorized", "the access token is unknown or revoked").
		WithHeader("WWW-Authenticate", `Bearer error="invalid_token"`)
}

// signedRequest is a request whose signature verified: its response gets signed too.
type signedRequest struct {
	keyID     string
	key       []byte
	method    string
	targetURI string
}

// verifySignature checks RFC 9421 signatures for credentials that require them, and for any
// request that carries one (a client that signs expects a signed answer it can trust).
func (s *security) verifySignature(rq *request) *problem.Problem {
	c := rq.cred
	present := len(rq.Header.Values("Signature")) > 0 || len(rq.Header.Values("Signature-Input")) > 0
	if !c.SigningRequired && (!present || len(c.SigningKey) == 0) {
		return nil
	}
	invalid := func(detail string) *problem.Problem {
		return problem.New(http.StatusUnauthorized, "invalid_signature", detail)
	}
	uri := httpsig.ServerTargetURI(rq.Request)
	signed := &signedRequest{keyID: c.ID, key: c.SigningKey, method: rq.Method, targetURI: uri}
	p, err := httpsig.VerifyRequest(rq.Request, rq.body, uri, func(id string) ([]byte, bool) {
		return c.SigningKey, id == c.ID
	})
	if err != nil {
		// A body over the limit was read only in part, so its digest cannot be checked. The
		// HMAC (checked before the digest) verified, and the request is answered 413 later and
		// changes nothing, so the digest check is skipped for it (as are window and replay).
		if rq.tooBig && errors.Is(err, httpsig.ErrDigestMismatch) {
			rq.signed = signed
			return nil
		}
		switch {
		case errors.Is(err, httpsig.ErrMissingSignature):
			return invalid("the request must be signed (RFC 9421)")
		case errors.Is(err, httpsig.ErrMissingComponent):
			return invalid("the signature does not cover every required component")
		case errors.Is(err, httpsig.ErrDigestMismatch):
			return invalid("Content-Digest does not match the body")
		case errors.Is(err, httpsig.ErrUnknownKey):
			return invalid("the signature's keyid is not this credential's")
		default:
			return invalid("the signature does not verify")
		}
	}
	now := s.accountNow(c.Account)
	if p.Created.Sub(now).Abs() > signatureMaxSkew {
		return invalid("the signature's created time is more than 300 seconds from the server clock")
	}
	rc, _ := s.replays.LoadOrStore(c.ID, httpsig.NewReplayCache(nonceWindow))
	if rc.(*httpsig.ReplayCache).Seen(p.Nonce, now) {
		return invalid("the signature's nonce was already used")
	}
	rq.signed = signed
	return nil
}

// deny records a denied request (401/403) in the audit log: under the credential's account
// when it is known, else in the server-level chain (account ""), so anonymous probing is
// visible too (GET /__admin/audit-events without account).
func (s *security) deny(rq *request, p *problem.Problem) {
	account, actor := "", ""
	if rq.cred != nil {
		account, actor = rq.cred.Account, rq.cred.ID
	}
	now := s.api.store.Clock().Now()
	if account != "" {
		now = s.accountNow(account)
	}
	action, typ, id := describe(rq)
	s.appendAudit(account, rq, actor, action, typ, id, audit.Denied, now)
}

func (s *security) appendAudit(account string, rq *request, actor, action, typ, id, outcome string, now time.Time) {
	ip := ""
	if rq.addr.IsValid() {
		ip = rq.addr.String()
	}
	s.audit.Append(account, audit.Event{
		ID: s.api.store.IDs().New("aud", now), At: now, Actor: actor, Action: action,
		ResourceType: typ, ResourceID: id, RequestID: rq.id, IP: ip, Outcome: outcome,
	})
}

// singular names the resource type of a path's first segment.
var singular = map[string]string{
	"patients": "patient", "appointments": "appointment", "invoices": "invoice", "payments": "payment",
	"products": "product", "inventory": "inventory", "webhooks": "webhook", "reports": "report", "events": "event",
}

// describe derives the audit action and resource of a request from its method and path (for
// denials, which happen before any handler says what it touches).
func describe(rq *request) (action, resourceType, resourceID string) {
	rest := strings.TrimPrefix(rq.URL.Path, "/api/v1")
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	if t, ok := singular[segs[0]]; ok {
		resourceType = t
	} else {
		resourceType = strings.TrimSuffix(segs[0], "s")
	}
	if len(segs) > 1 && strings.Contains(segs[1], "_") {
		resourceID = segs[1]
	}
	switch rq.Method {
	case http.MethodPost:
		action = "create"
	case http.MethodPatch, http.MethodPut:
		action = "update"
	case http.MethodDelete:
		action = "delete"
	default:
		action = "list"
		if resourceID != "" {
			action = "read"
		}
	}
	return action, resourceType, resourceID
}

// signingWriter returns the writer every answer after the signature check goes through: it
// records the status for the audit log and, when the request was signed, buffers the answer
// so finish can sign it (bound to the request) before anything is sent.
func (s *security) signingWriter(w http.ResponseWriter, rq *request) *responseWriter {
	return &responseWriter{ResponseWriter: w, s: s, rq: rq, status: http.StatusOK}
}

// responseWriter passes through unsigned answers and buffers signed ones.
type responseWriter struct {
	http.ResponseWriter
	s           *security
	rq          *request
	status      int
	wroteHeader bool
	buf         bytes.Buffer
}

func (w *responseWriter) WriteHeader(code int) {
	if w.wroteHeader {
		return
	}
	w.wroteHeader, w.status = true, code
	if w.rq.signed == nil {
		w.ResponseWriter.WriteHeader(code)
	}
}

func (w *responseWriter) Write(b []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if w.rq.signed == nil {
		return w.ResponseWriter.Write(b)
	}
	return w.buf.Write(b)
}

// finish audits a request that touched PHI and sends a buffered, signed answer. Requests that
// failed (4xx/5xx) read or wrote nothing and are not audited as successes.
func (w *responseWriter) finish() {
	rq := w.rq
	if rq.audit.action != "" && w.status < 400 {
		actor := rq.cred.ID
		w.s.appendAudit(rq.cred.Account, rq, actor, rq.audit.action, rq.audit.resourceType, rq.audit.resourceID,
			audit.Success, w.s.accountNow(rq.cred.Account))
	}
	sig := rq.signed
	if sig == nil {
		return
	}
	httpsig.SignResponse(w.Header(), w.status, w.buf.Bytes(), sig.method, sig.targetURI, sig.keyID, sig.key,
		w.s.accountNow(rq.cred.Account))
	w.ResponseWriter.WriteHeader(w.status)
	_, _ = w.ResponseWriter.Write(w.buf.Bytes())
}
