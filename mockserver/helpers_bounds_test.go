package mockserver_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// rawHTTP sends one request over real HTTP to base with the bearer key (unless headers set
// Authorization); it returns the status, header and body. headers are "Name: value".
func rawHTTP(t testing.TB, base, key, method, path, body string, headers ...string) (int, http.Header, []byte) {
	t.Helper()
	return sendRequest(t, http.DefaultClient, base, key, method, path, body, headers...)
}

// sendRequest sends one request with hc.
func sendRequest(t testing.TB, hc *http.Client, base, key, method, path, body string, headers ...string) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		req.Header.Set(k, strings.TrimSpace(v))
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, b
}

// get is a GET of url without credentials.
func get(t testing.TB, url string) (int, http.Header, []byte) {
	t.Helper()
	return rawHTTP(t, url, "", "GET", "", "")
}
