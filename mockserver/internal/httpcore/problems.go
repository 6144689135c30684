package httpcore

import (
	"errors"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// ProblemFor is the one place where an error becomes its problem document: a store error by
// its kind (a record not found 404, invalid fields 422, a broken rule by its protocol code,
// whose status comes from internal/wire's table), a problem as it is, and anything else a 500
// that hides the error's text.
func ProblemFor(err error) *problem.Problem {
	var (
		p  *problem.Problem
		nf *store.NotFoundError
		ve *store.ValidationError
		re *store.RuleError
	)
	switch {
	case errors.As(err, &p):
		return p
	case errors.As(err, &ve):
		return problem.Validation(fieldErrors(ve.Fields))
	case errors.As(err, &nf):
		return problem.NotFound(nf.Kind)
	case errors.As(err, &re):
		p := problem.New(re.Code, re.Detail)
		for k, v := range re.Members {
			p.With(k, v)
		}
		return p
	}
	return problem.New("internal_error", "the server failed to process the request")
}

// fieldErrors are a store's field errors as a problem lists them.
func fieldErrors(fs []store.FieldError) []problem.FieldError {
	out := make([]problem.FieldError, len(fs))
	for i, f := range fs {
		out[i] = problem.FieldError(f)
	}
	return out
}

// AsProblem returns err as the problem the HTTP surface answers for it ("422 validation_error:
// 2 fields are invalid"), or nil for nil: the Go controls of package mockserver fail as their
// admin endpoints do.
func AsProblem(err error) error {
	if err == nil {
		return nil
	}
	return ProblemFor(err)
}

// NotDurable is the problem of a write whose changes could not be made durable, or whose wait
// for the disk was cut short: it may or may not have been applied.
func NotDurable() *problem.Problem {
	return problem.New("service_unavailable",
		"the change could not be made durable; it may or may not have been applied: retry with the same Idempotency-Key").
		WithHeader("Retry-After", "1")
}
