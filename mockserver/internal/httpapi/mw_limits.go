package httpapi

import (
	"net/http"
)

// Request-size limits of docs/protocol.md §13.
const (
	// MaxPathBytes bounds the request target (path and query) as sent: past it, 414.
	MaxPathBytes = 8 << 10
	// MaxHeaderBytes bounds the header section (names, values and line ends): past it, 431.
	MaxHeaderBytes = 64 << 10
)

// limits answers requests over the size limits of docs/protocol.md §13: a request target (path
// and query) over 8 KiB is 414, a header section over 64 KiB is 431 (the body limit, 413, is the
// mediaType step's). It comes first, before the request has an id, a credential, a journal entry
// or an audit event, so that an oversized request costs the server nothing it keeps: nothing is
// copied from it, nothing consumed (no rate limit), and the answer is plain text (the protocol
// leaves the body of 414 and 431 open: net/http itself answers 431 so when a head exceeds what a
// listener reads, Server.HTTPServer's MaxHeaderBytes).
func (a *API) limits(rq *request) *answer {
	switch {
	case len(requestTarget(rq.Request)) > MaxPathBytes:
		return refuse(http.StatusRequestURITooLong, "request target over 8 KiB")
	case headerBytes(rq.Header) > MaxHeaderBytes:
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
func refuse(status int, why string) *answer {
	ans := newAnswer(status, "text/plain; charset=utf-8", []byte(http.StatusText(status)+": "+why+"\n"))
	ans.header.Set("Connection", "close")
	return ans
}
