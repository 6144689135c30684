package httpapi

import (
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	"github.com/medspa/medspa-go/internal/httpsig"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// request is one request's state as it goes through the pipeline (pipeline.go). Each step
// fills in what it learns, for the steps after it; none reaches back up.
type request struct {
	*http.Request
	// id is the request id (requestID), sent as X-Request-Id and in every problem.
	id string
	// header holds the header lines every answer to the request carries, whoever answers it:
	// X-Request-Id (requestID), CORS (cors), the rate-limit state (rateLimit). It is the
	// response's own header map, so they need no copy.
	header http.Header
	// caller is who the Authorization header names, whatever the credential's state (identify).
	caller caller
	// cred and acct are the authenticated credential and its account (authenticate).
	cred *auth.Credential
	acct *store.Account
	// route is the route the request matched, and params the values of its pattern's
	// wildcards (router.find); paramBuf holds them for the usual one or two.
	route    *route
	params   []pathParam
	paramBuf [2]pathParam
	// addr is the caller's address: the peer, or the trusted proxy's last hop (identify).
	addr netip.Addr
	// body is the request body, read once, at most MaxBodyBytes+1 bytes; tooBig says it was
	// longer than MaxBodyBytes (readBody).
	body   []byte
	tooBig bool
	// bodyDigest is the length and SHA-256 of a tooBig body whose signature is checked: the
	// whole body, streamed past what body keeps (readBody).
	bodyDigest *httpsig.Body
	// signed is set when the request's signature verified: its answer is signed too
	// (verifySignature, signAnswer).
	signed *signedRequest
	// schema is what the OpenAPI document refuses in the request, in strict mode (strict).
	schema *schemaFindings
	// created is the id of the record the handler created, for the audit log.
	created string
	// audit is what the request did, for the audit log (auditSuccess; an idempotent replay
	// restores the first request's).
	audit auditInfo
	// fault says what an injected fault or a stub did to the request, for the journal (faults,
	// stubbed).
	fault string
	// query is the request's query, parsed once (queryValues) for the handler and the journal.
	query url.Values
	// arrived is the real time the request arrived: read once, every clock's time for the
	// request (its id, journal entry, rate limit and audit event) is derived from it (Clock.At).
	arrived time.Time
}

func newRequest(w http.ResponseWriter, r *http.Request) *request {
	return &request{Request: r, arrived: time.Now(), header: w.Header()}
}

// pathParam is a wildcard of the route's pattern and its value in the request's path.
type pathParam struct{ name, value string }

// PathValue returns the value of the route pattern's wildcard name ("" if none).
func (rq *request) PathValue(name string) string {
	for _, p := range rq.params {
		if p.name == name {
			return p.value
		}
	}
	return ""
}

// auditInfo is what a request did, as the audit log records it.
type auditInfo struct {
	action, resourceType, resourceID string
}

// queryValues returns the request's query parameters, parsed on first use: the handler reads
// them, and the journal their names. Nobody changes the map it returns.
func (rq *request) queryValues() url.Values {
	if rq.query == nil {
		rq.query = rq.URL.Query()
	}
	return rq.query
}

// accountNow is the time on the authenticated account's clock when the request arrived.
func (rq *request) accountNow() time.Time { return rq.acct.Clock().At(rq.arrived) }

// answer is what the server says to one request: made by the step or handler that answers,
// reworked on the way out (idempotency, audit, durability, signature, journal), and put on the
// wire once, by writeAnswer.
type answer struct {
	status int
	header http.Header
	body   []byte
	// drop closes the connection instead of answering (an injected fault). An answer of status
	// 0 is none: the caller left before there was one.
	drop bool
	// serve writes the answer itself, for what is not one value: the admin surface's live
	// stream and inspector files.
	serve func(w http.ResponseWriter)
	// pooled, when set, is the answerBuffers entry body lives in (pools.go): recycled once the
	// answer is written.
	pooled *[]byte
}

// newAnswer returns an answer of status with body of media type contentType ("": no body).
func newAnswer(status int, contentType string, body []byte) *answer {
	ans := &answer{status: status, header: http.Header{}, body: body}
	if contentType != "" {
		ans.header["Content-Type"] = contentTypeLine(contentType)
	}
	return ans
}

// contentTypeLines are the header values of the usual media types, shared by every answer:
// nobody changes a header value in place (Set and Add replace or grow the slice).
var contentTypeLines = map[string][]string{}

func init() {
	for _, t := range []string{"application/json", "application/problem+json"} {
		contentTypeLines[t] = []string{t}
	}
}

// contentTypeLine is the header value of media type t.
func contentTypeLine(t string) []string {
	if l, ok := contentTypeLines[t]; ok {
		return l
	}
	return []string{t}
}

// problemAnswer is the answer of a problem document.
func problemAnswer(requestID string, p *problem.Problem) *answer {
	ans := newAnswer(p.Status, "application/problem+json", p.Body(requestID))
	for k, v := range p.Header {
		ans.header[k] = v
	}
	ans.header.Set("Cache-Control", "no-store")
	return ans
}

// problem is the answer of a problem document to rq.
func (rq *request) problem(p *problem.Problem) *answer { return problemAnswer(rq.id, p) }

// chunkingThreshold is the size of net/http's response buffer: an answer longer than it, written
// without a Content-Length, goes out chunked.
const chunkingThreshold = 2048

// writeAnswer puts the answer on the wire: the request's own header lines, the answer's, the
// status line and the body.
func writeAnswer(w http.ResponseWriter, rq *request, ans *answer) {
	if ans.drop {
		panic(http.ErrAbortHandler) // net/http closes the connection without a word
	}
	if ans.status == 0 && ans.serve == nil {
		return
	}
	h := w.Header() // rq.header: the request's lines are in it already
	if ans.serve != nil {
		ans.serve(w)
		return
	}
	for k, vs := range ans.header {
		h[k] = vs
	}
	if len(ans.body) > chunkingThreshold {
		// net/http sends the length of a shorter answer itself; a longer one it would send
		// chunked (more bytes, and no length for the client to check the body against).
		h["Content-Length"] = []string{strconv.Itoa(len(ans.body))}
	}
	w.WriteHeader(ans.status)
	if len(ans.body) > 0 && rq.Method != http.MethodHead {
		_, _ = w.Write(ans.body)
	}
}
