// Package oapitest validates HTTP traffic against the MedSpa OpenAPI document
// (api.OpenAPIYAML) in tests. It is test support: import it only from _test.go files.
//
// The usual entry point is Transport, which wraps an http.RoundTripper so that every request
// to a documented operation is checked before it is sent and every response after it
// arrives; findings are reported with t.Errorf and never change the traffic:
//
//	hc := &http.Client{Transport: oapitest.Transport(t, srv.HTTPClient().Transport)}
//
// Requests to paths the document does not describe (such as /__admin/...) pass through
// unchecked. Paths under the /v1 alias are checked as their /api/v1 equivalents.
// Tests that send deliberately invalid requests (to provoke a 422, say) mark their context
// with WithoutRequestValidation; the response is still checked.
package oapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/medspa/medspa-go/api"
)

// checker holds the loaded document and a router built from it.
type checker struct {
	doc    *openapi3.T
	router routers.Router
}

// load reads, validates and routes the embedded document once per process.
var load = sync.OnceValues(func() (*checker, error) { return newChecker("api/openapi.yaml", api.OpenAPIYAML) })

// loadAdmin does the same for the admin document (api.AdminOpenAPIYAML).
var loadAdmin = sync.OnceValues(func() (*checker, error) {
	return newChecker("api/admin-openapi.yaml", api.AdminOpenAPIYAML)
})

// newChecker loads, validates and routes one document.
func newChecker(name string, yaml []byte) (*checker, error) {
	doc, err := openapi3.NewLoader().LoadFromData(yaml)
	if err != nil {
		return nil, fmt.Errorf("oapitest: load %s: %w", name, err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("oapitest: %s is invalid: %w", name, err)
	}
	// Route on paths only: the document's single server is a "{baseUrl}" variable, while
	// tests reach the server at random loopback ports or at in-process hosts. A router
	// built without servers matches any scheme, host and port.
	routed := *doc
	routed.Servers = nil
	router, err := gorillamux.NewRouter(&routed)
	if err != nil {
		return nil, fmt.Errorf("oapitest: build the router of %s: %w", name, err)
	}
	return &checker{doc: doc, router: router}, nil
}

// CheckAdminResponse is CheckResponse for the mock server's admin surface: resp, the answer to
// an /__admin/ request, against api/admin-openapi.yaml (nil for a path the document does not
// describe). Transport does not check admin traffic; tests of the admin surface call this.
func CheckAdminResponse(req *http.Request, resp *http.Response) error {
	return checkResponseOf(loadAdmin, req, resp)
}

// mustLoad returns the shared checker, failing the test if the document does not load.
func mustLoad(t testing.TB) *checker {
	t.Helper()
	c, err := load()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Document returns the parsed and validated OpenAPI document (api.OpenAPIYAML), shared by all
// callers in the process; callers must not modify it. The test fails if the document does
// not load or validate.
func Document(t testing.TB) *openapi3.T {
	t.Helper()
	return mustLoad(t).doc
}

// Operations returns a document's operations by "METHOD /path" (the route tables' tie-in tests).
func Operations(t testing.TB, doc []byte) map[string]*openapi3.Operation {
	t.Helper()
	d, err := openapi3.NewLoader().LoadFromData(doc)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]*openapi3.Operation{}
	for p, item := range d.Paths.Map() {
		for m, op := range item.Operations() {
			ops[m+" "+p] = op
		}
	}
	return ops
}

type ctxKey int

const (
	skipRequestKey ctxKey = iota
)

// WithoutRequestValidation returns a context under which Transport does not check requests
// (their responses are still checked). Use it for requests that break the protocol on
// purpose, such as a body with unknown fields sent to provoke 422 validation_error.
func WithoutRequestValidation(ctx context.Context) context.Context {
	return context.WithValue(ctx, skipRequestKey, true)
}

func skipped(ctx context.Context, key ctxKey) bool {
	v, _ := ctx.Value(key).(bool)
	return v
}

// options are the validation options for both directions: any bearer credential is
// accepted, every finding is reported, undocumented statuses are findings, and the
// validated request is never modified (no defaults are filled in). Findings leave out
// values and schema dumps.
func options() *openapi3filter.Options {
	return &openapi3filter.Options{
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		MultiError:            true,
		IncludeResponseStatus: true,
		SkipSettingDefaults:   true,
		// Findings name the JSON pointer and the rule, not the schema or the value: values
		// may be PHI, and schema dumps drown the finding.
		SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()},
	}
}

// errNoRoute means the request's path or method is not in the document.
var errNoRoute = errors.New("oapitest: no documented operation")

// routed is a request matched to its documented operation.
type routed struct {
	route  *routers.Route
	params map[string]string
	req    *http.Request // the request as routed (a /v1 alias rewritten to /api/v1)
}

// find matches req to its operation. A /v1/... path (the server's alias) is routed as
// /api/v1/.... It returns errNoRoute for paths and methods the document does not describe.
func (c *checker) find(req *http.Request) (*routed, error) {
	r := req
	if p := req.URL.Path; strings.HasPrefix(p, "/v1/") {
		u := *req.URL
		u.Path = "/api" + p
		if u.RawPath != "" {
			u.RawPath = "/api" + u.RawPath
		}
		r = req.Clone(req.Context())
		r.URL = &u
	}
	rt, params, err := c.router.FindRoute(r)
	if err != nil {
		var re *routers.RouteError
		if errors.As(err, &re) {
			return nil, errNoRoute
		}
		return nil, err
	}
	return &routed{route: rt, params: params, req: r}, nil
}

// requestBody returns a copy of req's body without consuming it for later readers: it uses
// GetBody when set, otherwise it reads the body and puts an equivalent reader back.
func requestBody(req *http.Request) ([]byte, error) {
	consumed := req.GetBody == nil
	b, err := peekBody(req)
	if consumed && b != nil {
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	return b, err
}

// input builds the validation input of the routed request with the given body.
func (rd *routed) input(body []byte) *openapi3filter.RequestValidationInput {
	v := rd.req.Clone(rd.req.Context())
	if body != nil {
		v.Body = io.NopCloser(bytes.NewReader(body))
	} else {
		v.Body = http.NoBody
	}
	v.GetBody = nil
	return &openapi3filter.RequestValidationInput{Request: v, PathParams: rd.params, Route: rd.route, Options: options()}
}

// CheckRequest checks req against the document and returns the findings as an error, or nil
// when the request conforms or its path is not documented. The request body stays readable.
func CheckRequest(req *http.Request) error {
	c, err := load()
	if err != nil {
		return err
	}
	body, err := requestBody(req)
	if err != nil {
		return fmt.Errorf("read request body: %w", err)
	}
	rd, err := c.find(req)
	if errors.Is(err, errNoRoute) {
		return nil
	}
	if err != nil {
		return err
	}
	return rd.checkRequest(body)
}

// checkRequest validates the routed request with the given body.
func (rd *routed) checkRequest(body []byte) error {
	return openapi3filter.ValidateRequest(rd.req.Context(), rd.input(body))
}

// CheckResponse checks resp, the answer to req, against the document and returns the
// findings as an error, or nil when it conforms or the path is not documented. Only req's
// method, URL and context are used. resp.Body is read and replaced by an equivalent reader,
// so it stays readable.
func CheckResponse(req *http.Request, resp *http.Response) error {
	return checkResponseOf(load, req, resp)
}

// checkResponseOf is CheckResponse against the document load returns.
func checkResponseOf(load func() (*checker, error), req *http.Request, resp *http.Response) error {
	c, err := load()
	if err != nil {
		return err
	}
	rd, err := c.find(req)
	if errors.Is(err, errNoRoute) {
		return nil
	}
	if err != nil {
		return err
	}
	return rd.checkResponse(resp)
}

// checkResponse validates resp as the answer to the routed request; resp.Body is replaced
// by an equivalent reader.
func (rd *routed) checkResponse(resp *http.Response) error {
	var (
		body []byte
		err  error
	)
	if resp.Body != nil && resp.Body != http.NoBody {
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("read response body: %w", err)
		}
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: rd.input(nil),
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                options(),
	}
	return openapi3filter.ValidateResponse(rd.req.Context(), in)
}

// describe names a request for reports: "POST /api/v1/patients".
func describe(req *http.Request) string {
	p := req.URL.Path
	if req.URL.RawQuery != "" {
		p += "?" + req.URL.RawQuery
	}
	return req.Method + " " + p
}

// finding formats a validation error, one finding per line.
func finding(err error) string {
	return strings.ReplaceAll(err.Error(), " | ", "\n  ")
}

// ValidateRequest checks req against the document and reports any finding with t.Errorf.
// Requests to undocumented paths are not checked. The request body stays readable.
func ValidateRequest(t testing.TB, req *http.Request) {
	t.Helper()
	if err := CheckRequest(req); err != nil {
		t.Errorf("oapitest: %s: request does not match api/openapi.yaml:\n  %s", describe(req), finding(err))
	}
}

// ValidateResponse checks resp, the answer to req, against the document (status, headers,
// content type and body) and reports any finding with t.Errorf. Responses to undocumented
// paths are not checked. resp.Body stays readable.
func ValidateResponse(t testing.TB, req *http.Request, resp *http.Response) {
	t.Helper()
	if err := CheckResponse(req, resp); err != nil {
		t.Errorf("oapitest: %s → %d: response does not match api/openapi.yaml:\n  %s", describe(req), resp.StatusCode, finding(err))
	}
}

// Transport returns an http.RoundTripper that sends requests through base
// (http.DefaultTransport when nil) and checks every request to a documented operation before
// sending it and every response after receiving it, reporting findings with t.Errorf (method,
// path, status and the finding). Traffic is never altered: the request is sent as given and
// the response body stays fully readable. Requests to undocumented paths, such as the mock
// server's /__admin surface, pass through unchecked. Any bearer credential is accepted; the
// server, not the document, decides about credentials.
//
// The transport is safe for concurrent use. A context made by WithoutRequestValidation turns
// request checks off per request.
func Transport(t testing.TB, base http.RoundTripper) http.RoundTripper {
	t.Helper()
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{t: t, c: mustLoad(t), base: base}
}

type transport struct {
	t    testing.TB
	c    *checker
	base http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	rd, err := tr.c.find(req)
	if err != nil {
		if !errors.Is(err, errNoRoute) {
			tr.t.Errorf("oapitest: %s: %v", describe(req), err)
		}
		return tr.base.RoundTrip(req)
	}
	send := req
	if !skipped(ctx, skipRequestKey) {
		body, err := peekBody(req)
		if err != nil {
			return nil, err
		}
		if body != nil && req.GetBody == nil {
			// The original body was consumed: send a copy (RoundTrip must not modify req).
			send = req.Clone(ctx)
			send.Body = io.NopCloser(bytes.NewReader(body))
			send.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		if err := rd.checkRequest(body); err != nil {
			tr.t.Errorf("oapitest: %s: request does not match api/openapi.yaml:\n  %s", describe(req), finding(err))
		}
	}
	resp, err := tr.base.RoundTrip(send)
	if err != nil {
		return resp, err
	}
	if err := rd.checkResponse(resp); err != nil {
		tr.t.Errorf("oapitest: %s → %d: response does not match api/openapi.yaml:\n  %s", describe(req), resp.StatusCode, finding(err))
	}
	return resp, nil
}

// peekBody returns the request body's bytes: from GetBody when set (req untouched), else read
// from req.Body, which is then consumed (the caller sends a copy).
func peekBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		rc, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(rc)
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("oapitest: read request body: %w", err)
	}
	return b, nil
}

// CheckEvent checks a delivered webhook payload (the JSON body of a delivery) against the
// document's Event schema and returns the findings as an error, or nil when it conforms.
func CheckEvent(body []byte) error {
	c, err := load()
	if err != nil {
		return err
	}
	ref := c.doc.Components.Schemas["Event"]
	if ref == nil || ref.Value == nil {
		return errors.New("oapitest: the document has no Event schema")
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("event is not JSON: %w", err)
	}
	return ref.Value.VisitJSON(v, openapi3.MultiErrors(), openapi3.DisableSchemaErrorDetails())
}

// ValidateEvent checks a delivered webhook payload against the Event schema and reports any
// finding with t.Errorf.
func ValidateEvent(t testing.TB, body []byte) {
	t.Helper()
	if err := CheckEvent(body); err != nil {
		t.Errorf("oapitest: webhook event does not match the Event schema of api/openapi.yaml:\n  %s", finding(err))
	}
}
