package mockserver

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
)

// InProcessBaseURL is the base URL to use with Server.HTTPClient: requests never leave the process.
const InProcessBaseURL = "http://localhost"

// HTTPClient returns an *http.Client wired straight to the server's handler: no listener, no TCP.
// Use it with base URL InProcessBaseURL. Requests appear to come from 127.0.0.1.
func (s *Server) HTTPClient() *http.Client {
	return &http.Client{Transport: inProcessTransport{s}}
}

type inProcessTransport struct{ h http.Handler }

// errConnectionDropped mimics a connection closed by the server without an answer.
var errConnectionDropped = errors.New("mockserver: connection dropped by the server")

func (t inProcessTransport) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	sreq := req.Clone(req.Context())
	sreq.RemoteAddr = "127.0.0.1:49152"
	sreq.RequestURI = req.URL.RequestURI()
	sreq.Host = req.URL.Host
	if sreq.Body == nil {
		sreq.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			resp, err = nil, &url.Error{Op: req.Method, URL: req.URL.String(), Err: errConnectionDropped}
		}
	}()
	t.h.ServeHTTP(rec, sreq)
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	resp = rec.Result()
	resp.Request = req
	return resp, nil
}
