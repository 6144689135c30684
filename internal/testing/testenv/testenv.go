// Package testenv starts the mock server for the project's own tests: over a real loopback
// listener, with every request and response validated against api/openapi.yaml.
package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/internal/testing/oapitest"
	"github.com/medspa/medspa-go/mockserver"
)

// Env is a running mock server and an SDK client with a fresh account.
type Env struct {
	Server *mockserver.Server
	Client *medspa.Client
	// URL is the server's base URL (http://127.0.0.1:port).
	URL string
	// Key is the client's API key (plan enterprise, scope *).
	Key mockserver.APIKey
	// HTTP is a validating *http.Client for raw requests.
	HTTP *http.Client
}

// validate wraps a transport with OpenAPI validation of requests and responses.
var validate = oapitest.Transport

// New starts a server on 127.0.0.1 (closed with t) and a client for a new key.
// Extra SDK options are applied after the defaults (no retry waits).
func New(t testing.TB, sopts []mockserver.Option, copts ...medspa.Option) *Env {
	t.Helper()
	srv, err := mockserver.New(sopts...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(func() { _ = srv.Close() }) // runs first: stops webhook deliveries
	key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: validate(t, ts.Client().Transport)}
	e := &Env{Server: srv, URL: ts.URL, Key: key, HTTP: hc}
	e.Client = e.ClientFor(t, key.Key, copts...)
	return e
}

// ClientFor returns an SDK client of the env's server authenticated with apiKey.
func (e *Env) ClientFor(t testing.TB, apiKey string, copts ...medspa.Option) *medspa.Client {
	t.Helper()
	opts := append([]medspa.Option{
		medspa.WithBaseURL(e.URL), medspa.WithAPIKey(apiKey), medspa.WithHTTPClient(e.HTTP), medspa.WithRetryWait(0, 0),
	}, copts...)
	c, err := medspa.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// NewKey creates another key; without p.Account it has a fresh account.
func (e *Env) NewKey(t testing.TB, p mockserver.APIKeyParams) mockserver.APIKey {
	t.Helper()
	k, err := e.Server.CreateAPIKey(p)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Do sends a raw request with the env's key (unless headers set Authorization; "Authorization:"
// with no value sends none) and returns the response and its body. headers are "Name: value".
// The response is validated against the OpenAPI document; the request too (use DoInvalid for
// requests that break the OpenAPI document on purpose). "+Name: value" adds a value instead of
// replacing it (a duplicated header).
func (e *Env) Do(t testing.TB, method, path, body string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	return e.do(t, context.Background(), method, path, body, headers)
}

// DoInvalid is Do for a request that breaks the OpenAPI document on purpose (unknown fields,
// malformed ids, nulls on required fields): only the response is validated.
func (e *Env) DoInvalid(t testing.TB, method, path, body string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	return e.do(t, oapitest.WithoutRequestValidation(context.Background()), method, path, body, headers)
}

func (e *Env) do(t testing.TB, ctx context.Context, method, path, body string, headers []string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, e.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.Key.Key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ":")
		v = strings.TrimSpace(v)
		switch add, ok := strings.CutPrefix(k, "+"); {
		case ok:
			req.Header.Add(add, v)
		case v == "":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	resp, err := e.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, b
}

// Problem is the part of a problem document that rule tests check.
type Problem struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
	Errors []struct {
		Pointer string `json:"pointer"`
		Code    string `json:"code"`
	} `json:"errors"`
}

// Fields returns "pointer code" for every field error, sorted, for comparing with a want list.
func (p Problem) Fields() []string {
	out := make([]string, 0, len(p.Errors))
	for _, e := range p.Errors {
		out = append(out, e.Pointer+" "+e.Code)
	}
	slices.Sort(out)
	return out
}

// Total returns meta.total of the list at path (e.g. "/api/v1/patients").
func (e *Env) Total(t testing.TB, path string) int {
	t.Helper()
	_, body := e.Do(t, http.MethodGet, path+"?perPage=1", "")
	var l struct{ Meta struct{ Total int } }
	if err := json.Unmarshal(body, &l); err != nil {
		t.Fatalf("list %s: %v", path, err)
	}
	return l.Meta.Total
}

// Collect drains a service's All iterator into the keys of its records (usually the id), failing
// t on the first error.
func Collect[T any](t testing.TB, seq iter.Seq2[T, error], key func(T) string) []string {
	t.Helper()
	var out []string
	for v, err := range seq {
		if err != nil {
			t.Fatalf("iterating: %v", err)
		}
		out = append(out, key(v))
	}
	return out
}

// Send issues one request through hc with a bearer key (and a Content-Type when contentType is
// not empty) and checks what every answer must be: never a 5xx, and every 4xx the protocol's
// problem document with the matching status, code and type. It returns the status and body.
func Send(t testing.TB, hc *http.Client, method, url, key, contentType string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("building %s %q: %v", method, url, err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %q: transport error %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 500 {
		t.Fatalf("%s %q body %q: status %d %s", method, url, body, resp.StatusCode, b)
	}
	if resp.StatusCode >= 400 {
		var p struct {
			Status int    `json:"status"`
			Code   string `json:"code"`
			Type   string `json:"type"`
		}
		if resp.Header.Get("Content-Type") != "application/problem+json" || json.Unmarshal(b, &p) != nil ||
			p.Status != resp.StatusCode || p.Code == "" || p.Type != "https://docs.medspa.dev/errors/"+p.Code {
			t.Fatalf("%s %q: status %d without a proper problem body: %s", method, url, resp.StatusCode, b)
		}
	}
	return resp.StatusCode, b
}

// Unlimited returns an in-process SDK client of srv and its key, on a fresh account with a custom
// plan no test can exhaust, for fuzzing and load loops that must never meet a 429.
func Unlimited(t testing.TB, srv *mockserver.Server) (*medspa.Client, mockserver.APIKey) {
	t.Helper()
	key, err := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "custom", RatePerMinute: 1e9, Burst: 1e9, Scopes: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := medspa.New(medspa.WithAPIKey(key.Key), medspa.WithBaseURL(mockserver.InProcessBaseURL), medspa.WithHTTPClient(srv.HTTPClient()))
	if err != nil {
		t.Fatal(err)
	}
	return c, key
}

// ExpectFields checks that an answer is 422 validation_error naming exactly the fields in want
// ("pointer code", in any order): every invalid field, and no other.
func ExpectFields(t testing.TB, resp *http.Response, body []byte, want []string) {
	t.Helper()
	var p Problem
	if err := json.Unmarshal(body, &p); err != nil || resp.StatusCode != http.StatusUnprocessableEntity || p.Code != "validation_error" {
		t.Fatalf("want 422 validation_error, got %d %s", resp.StatusCode, body)
	}
	sorted := slices.Sorted(slices.Values(want))
	if got := p.Fields(); !slices.Equal(got, sorted) {
		t.Errorf("fields\n got %v\nwant %v", got, sorted)
	}
}
