package httpapi

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/medspa/medspa-go/api"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// strictRouter loads the OpenAPI document once per process, on the first strict request.
var strictRouter = sync.OnceValues(func() (routers.Router, error) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPIYAML)
	if err != nil {
		return nil, err
	}
	doc.Servers = nil // route on paths only, whatever the host
	return gorillamux.NewRouter(doc)
})

// schemaCodes map a failed schema rule to the protocol's field code.
var schemaCodes = map[string]string{
	"required": "required", "maxLength": "too_long", "minLength": "too_short",
	"minimum": "out_of_range", "maximum": "out_of_range", "exclusiveMinimum": "out_of_range",
	"exclusiveMaximum": "out_of_range", "minItems": "too_short", "maxItems": "too_long",
	"pattern": "invalid_format", "format": "invalid_format", "properties": "unknown_field",
}

var unsupportedProperty = regexp.MustCompile(`^property "(.*)" is unsupported$`)

// strict validates the request against the OpenAPI document when the server was made with
// WithStrictValidation (issue 17: strict mode differs from normal mode only by also validating
// against the document). It answers nothing itself: it hands its findings on (rq.schema), and
// they join the server's own where validation happens — the store's checks for a body
// (bodyForm → store.Members.Extra), run for a query — so a request gets the answer normal mode
// gives it (same status, same codes, same pointers, every field), plus a 422 for what only the
// document refuses, in validation's place in the order of checks. Path parameters are left to
// the handlers (a malformed id is 404 in both modes), headers to the steps that own them
// (Idempotency-Key), a body that is not JSON to the decoder (400).
func (a *API) strict(rq *request) *answer {
	if a.opts.Strict {
		findings, err := strictCheck(rq)
		if err != nil {
			return rq.problem(problem.New("internal_error", "the OpenAPI document did not load"))
		}
		if len(findings) > 0 {
			rq.schema = &schemaFindings{errs: findings}
		}
	}
	return nil
}

// schemaFindings are what the OpenAPI document refuses in a request (strict mode), for the
// server's validation to list with its own.
type schemaFindings struct {
	errs store.FieldErrors
	// consumed says a body decoder took them to the store, which lists them (bodyForm).
	consumed bool
}

// withSchemaFindings is the error a handler's answer becomes in strict mode when the document's
// findings did not reach the store with a body (a query's): joined to its own invalid fields
// (the server's verdict on a field stands), or a 422 of their own for a read the server would
// answer. Other errors (404, 409, …) stand: the document refuses nothing it would see first.
// A write is never answered 422 after it happened: a route that writes decodes its body
// through rq.form, which takes the findings to the store's validation, before any change.
func (rq *request) withSchemaFindings(err error) error {
	s := rq.schema
	if s == nil || s.consumed {
		return err
	}
	var ve *store.ValidationError
	switch {
	case err == nil && (rq.Method == http.MethodGet || rq.Method == http.MethodHead):
		return &store.ValidationError{Fields: s.errs}
	case errors.As(err, &ve):
		return &store.ValidationError{Fields: store.JoinFindings(ve.Fields, s.errs)}
	}
	return err
}

// strictCheck returns the document's findings about the request's query and body, as field
// errors with the protocol's codes.
func strictCheck(rq *request) (store.FieldErrors, error) {
	router, err := strictRouter()
	if err != nil {
		return nil, err
	}
	r := rq.Request.Clone(rq.Context())
	r.Body = io.NopCloser(bytes.NewReader(rq.body))
	route, params, err := router.FindRoute(r)
	if err != nil {
		return nil, nil // not in the document: the API answers it itself
	}
	err = openapi3filter.ValidateRequest(rq.Context(), &openapi3filter.RequestValidationInput{
		Request: r, PathParams: params, Route: route,
		Options: &openapi3filter.Options{
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true, SkipSettingDefaults: true,
			SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails(), openapi3.MultiErrors()},
		},
	})
	var errs store.FieldErrors
	for _, e := range flatten(err) {
		var re *openapi3filter.RequestError
		if !errors.As(e, &re) {
			continue // security findings: authentication is the API's job
		}
		if re.Parameter != nil && re.Parameter.In != openapi3.ParameterInQuery {
			continue // a path id is the handler's (404), a header the step's that reads it
		}
		inner := flatten(re.Err)
		if len(inner) == 0 {
			inner = []error{re}
		}
		for _, ie := range inner {
			var se *openapi3.SchemaError
			hasSchema := errors.As(ie, &se)
			switch {
			case re.Parameter != nil:
				code := "invalid_value"
				if hasSchema {
					if c, ok := schemaCodes[se.SchemaField]; ok {
						code = c
					}
				}
				errs.Add(re.Parameter.Name, code, "does not match the OpenAPI document")
			case re.RequestBody != nil && hasSchema:
				ptr := se.JSONPointer()
				code, ok := schemaCodes[se.SchemaField]
				if !ok {
					code = "invalid_value"
				}
				if m := unsupportedProperty.FindStringSubmatch(se.Reason); m != nil {
					ptr = append(ptr, m[1])
				}
				for i, p := range ptr {
					ptr[i] = store.EscapePointer(p)
				}
				errs.Add("/"+strings.Join(ptr, "/"), code, "does not match the OpenAPI document ("+se.SchemaField+")")
			}
			// A body that is not JSON at all is the decoder's to answer (400).
		}
	}
	return errs, nil
}

// flatten expands kin-openapi's multi-errors (not those wrapped in a RequestError, whose
// parameter or body says where the findings are).
func flatten(err error) []error {
	if me, ok := err.(openapi3.MultiError); ok {
		var out []error
		for _, e := range me {
			out = append(out, flatten(e)...)
		}
		return out
	}
	if err == nil {
		return nil
	}
	return []error{err}
}
