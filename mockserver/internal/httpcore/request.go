package httpcore

import (
	"io"
	"mime"
	"net/http"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
)

// MaxBodyBytes is the API's request body limit (1 MiB; the admin surface's is 16 times it).
const MaxBodyBytes = 1 << 20

// Request-size limits of docs/protocol.md §13.
const (
	// MaxPathBytes bounds the request target (path and query) as sent: past it, 414.
	MaxPathBytes = 8 << 10
	// MaxHeaderBytes bounds the header section (names, values and line ends): past it, 431.
	MaxHeaderBytes = 64 << 10
)

// Limits answers requests over the size limits of docs/protocol.md §13: a request target (path
// and query) over 8 KiB is 414, a header section over 64 KiB is 431 (the body limit, 413, comes
// once the route is known). It comes first, before the request has an id, a credential, a
// journal entry or an audit event, so that an oversized request costs the server nothing it
// keeps: nothing is copied from it, nothing consumed (no rate limit), and the answer is plain
// text (the protocol leaves the body of 414 and 431 open: net/http itself answers 431 so when a
// head exceeds what a listener reads, Server.HTTPServer's MaxHeaderBytes). Nil: within them.
func Limits(r *http.Request) *Answer {
	switch {
	case len(requestTarget(r)) > MaxPathBytes:
		return refuse(http.StatusRequestURITooLong, "request target over 8 KiB")
	case headerBytes(r.Header) > MaxHeaderBytes:
		return refuse(http.StatusRequestHeaderFieldsTooLarge, "header section over 64 KiB")
	}
	return nil
}

// requestTarget is the request's target as sent (RequestURI), or for requests made in-process
// without one, its URL's.
func requestTarget(r *http.Request) string {
	if r.RequestURI != "" {
		return r.RequestURI
	}
	return r.URL.RequestURI()
}

// headerBytes is the size of the header section as sent: "Name: value\r\n" per line.
func headerBytes(h http.Header) int {
	n := 0
	for k, vs := range h {
		for _, v := range vs {
			n += len(k) + len(v) + 4
		}
	}
	return n
}

// refuse answers a request the server will not read, in plain text, and closes the connection.
func refuse(status int, why string) *Answer {
	ans := New(status, "text/plain; charset=utf-8", []byte(http.StatusText(status)+": "+why+"\n"))
	ans.Header.Set("Connection", "close")
	return ans
}

// CheckMediaType accepts application/json (any charset) and, for PATCH, merge-patch+json
// (docs/protocol.md §1); anything else is 415.
func CheckMediaType(r *http.Request) *problem.Problem {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err == nil && (mt == "application/json" || (r.Method == http.MethodPatch && mt == "application/merge-patch+json")) {
		return nil
	}
	want := "application/json"
	if r.Method == http.MethodPatch {
		want += " or application/merge-patch+json"
	}
	return problem.New("unsupported_media_type", "Content-Type must be "+want)
}

// ReadBody reads r's body, at most limit bytes and one more: tooBig says it is longer than
// limit (the rest is left unread). A body that cannot be read is 400 malformed_json.
func ReadBody(r *http.Request, limit int64) (body []byte, tooBig bool, p *problem.Problem) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, false, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, false, problem.New("malformed_json", "the request body could not be read")
	}
	return b, int64(len(b)) > limit, nil
}
