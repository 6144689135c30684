package client

import (
	"net/http"
	"testing"
)

// FuzzDecodeError feeds arbitrary error bodies to the problem decoder: it never panics and always
// returns an *Error carrying the HTTP status, whatever the body claims.
func FuzzDecodeError(f *testing.F) {
	f.Add(422, "application/problem+json", []byte(`{"type":"https://docs.medspa.dev/errors/validation_error","status":422,"code":"validation_error","errors":[{"pointer":"/email","code":"invalid_format"}]}`))
	f.Add(402, "application/problem+json", []byte(`{"code":"card_declined","paymentId":"pay_1","declineCode":"generic_decline","available":"x"}`))
	f.Add(409, "application/json", []byte(`{"status":"409","errors":{},"available":1e999}`))
	f.Add(502, "text/html", []byte(`<html>`))
	f.Add(429, "application/problem+json", []byte(`null`))
	f.Fuzz(func(t *testing.T, status int, contentType string, body []byte) {
		if status < 400 || status > 599 {
			return
		}
		resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {contentType}, "Retry-After": {string(body)}}}
		e := decodeError(resp, body)
		if e == nil || e.Status != status || e.Title == "" {
			t.Fatalf("decodeError: %#v", e)
		}
		_ = e.Error()
		if e.RetryAfter < 0 {
			t.Fatalf("negative RetryAfter %v", e.RetryAfter)
		}
	})
}
