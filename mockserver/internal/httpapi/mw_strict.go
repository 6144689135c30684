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
	"exclusiveMaximum": "out_of_range", "minItems": "out_of_range", "maxItems": "out_of_range",
	"pattern": "invalid_format", "format": "invalid_format", "properties": "unknown_field",
}

var unsupportedProperty = regexp.MustCompile(`^property "(.*)" is unsupported$`)

// strict validates the request against the OpenAPI document when the server was made with
// WithStrictValidation: the findings become the protocol's problems (422 with field errors, or
// 400 for a body that is not JSON). Requests the document does not describe pass: the API
// answers them itself.
func (a *API) strict(w http.ResponseWriter, rq *request, next handler) {
	if a.opts.Strict {
		if p := strictCheck(rq); p != nil {
			problem.Write(w, rq.id, p)
			return
		}
	}
	next(w, rq)
}

func strictCheck(rq *request) *problem.Problem {
	router, err := strictRouter()
	if err != nil {
		return problem.New("internal_error", "the OpenAPI document did not load")
	}
	r := rq.Request.Clone(rq.Context())
	r.Body = io.NopCloser(bytes.NewReader(rq.body))
	route, params, err := router.FindRoute(r)
	if err != nil {
		return nil
	}
	err = openapi3filter.ValidateRequest(rq.Context(), &openapi3filter.RequestValidationInput{
		Request: r, PathParams: params, Route: route,
		Options: &openapi3filter.Options{
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true, SkipSettingDefaults: true,
			SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()},
		},
	})

	if err == nil {
		return nil
	}
	var errs []problem.FieldError
	for _, e := range flatten(err) {
		var re *openapi3filter.RequestError
		if !errors.As(e, &re) {
			continue // security findings: authentication is the API's job
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
				errs = append(errs, problem.FieldError{Pointer: re.Parameter.Name, Code: code, Detail: "does not match the OpenAPI document"})
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
				errs = append(errs, problem.FieldError{Pointer: "/" + strings.Join(ptr, "/"), Code: code,
					Detail: "does not match the OpenAPI document (" + se.SchemaField + ")"})
			case re.RequestBody != nil:
				return problem.New("malformed_json", "the request body is not valid JSON")
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return problem.Validation(errs)
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
