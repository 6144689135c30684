// Package httpcore is what the mock server's two HTTP surfaces share — the API's request
// pipeline (mockserver/internal/httpapi) and the admin surface (mockserver/internal/admin): the
// answer value and the one function that puts it on the wire, the table router, the problem
// document of an error, and the request checks both make (size limits, media type, a body read
// under a limit).
package httpcore

import (
	"net/http"
	"strconv"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// Answer is what the server says to one request: made by the step or handler that answers,
// reworked on the way out (idempotency, audit, durability, signature, journal), and put on the
// wire once, by Write.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
	// Drop closes the connection instead of answering (an injected fault). An answer of status
	// 0 is none: the caller left before there was one.
	Drop bool
	// Serve writes the answer itself, for what is not one value: the admin surface's live
	// stream.
	Serve func(w http.ResponseWriter)
	// Pooled, when set, is the pool entry Body lives in (httpapi's pools.go): recycled once the
	// answer is written.
	Pooled *[]byte
}

// New returns an answer of status with body of media type contentType ("": no body).
func New(status int, contentType string, body []byte) *Answer {
	ans := &Answer{Status: status, Header: http.Header{}, Body: body}
	if contentType != "" {
		ans.Header["Content-Type"] = contentTypeLine(contentType)
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

// Problem is the answer of a problem document to the request of id requestID.
func Problem(requestID string, p *problem.Problem) *Answer {
	ans := New(p.Status, "application/problem+json", p.Body(requestID))
	for k, v := range p.Header {
		ans.Header[k] = v
	}
	ans.Header.Set("Cache-Control", "no-store")
	return ans
}

// chunkingThreshold is the size of net/http's response buffer: an answer longer than it, written
// without a Content-Length, goes out chunked.
const chunkingThreshold = 2048

// Write puts the answer to r on the wire: the answer's header lines (the request's own — its
// request id, CORS, rate limits — are in w's header map already), the status line and the body.
func Write(w http.ResponseWriter, r *http.Request, ans *Answer) {
	if ans.Drop {
		panic(http.ErrAbortHandler) // net/http closes the connection without a word
	}
	if ans.Status == 0 && ans.Serve == nil {
		return
	}
	h := w.Header()
	if ans.Serve != nil {
		ans.Serve(w)
		return
	}
	for k, vs := range ans.Header {
		h[k] = vs
	}
	if len(ans.Body) > chunkingThreshold {
		// net/http sends the length of a shorter answer itself; a longer one it would send
		// chunked (more bytes, and no length for the client to check the body against).
		h["Content-Length"] = []string{strconv.Itoa(len(ans.Body))}
	}
	w.WriteHeader(ans.Status)
	if len(ans.Body) > 0 && r.Method != http.MethodHead {
		_, _ = w.Write(ans.Body)
	}
}
