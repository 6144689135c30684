package store

import (
	"errors"
	"strconv"
)

// The store's errors say what went wrong in the domain's terms; the HTTP layer turns each into
// its problem document in one place (httpcore/problems.go), the status coming from the
// protocol's error-code table (internal/wire).

// ErrNotFound matches (errors.Is) every error about a record, account or snapshot that does
// not exist. The error itself is a *NotFoundError naming the kind.
var ErrNotFound = errors.New("not found")

// NotFoundError is a lookup of a record that does not exist: 404 not_found.
type NotFoundError struct {
	// Kind names what was looked up: "patient", "appointment", "account", …
	Kind string
}

func (e *NotFoundError) Error() string { return e.Kind + " not found" }

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// NotFound returns the error of a kind of record that does not exist.
func NotFound(kind string) error { return &NotFoundError{Kind: kind} }

// FieldError names one invalid field of a request: a JSON Pointer into its body, or the name
// of a query parameter (docs/protocol.md §14), with the protocol's field code
// (docs/protocol.md §4) and a detail that never repeats the submitted value (it may be PHI).
type FieldError struct {
	Pointer string `json:"pointer"`
	Code    string `json:"code"`
	Detail  string `json:"detail"`
}

// ValidationError is a request with invalid fields, every one of them listed (docs/protocol.md
// §4: all at once): 422 validation_error.
type ValidationError struct {
	Fields []FieldError
}

func (e *ValidationError) Error() string {
	if len(e.Fields) == 1 {
		return "1 field is invalid"
	}
	return strconv.Itoa(len(e.Fields)) + " fields are invalid"
}

// InvalidField returns the ValidationError of one field.
func InvalidField(pointer, code, detail string) error {
	return &ValidationError{Fields: []FieldError{{Pointer: pointer, Code: code, Detail: detail}}}
}

// FieldErrors collects invalid fields, in the order they are found.
type FieldErrors []FieldError

// Add records an invalid field.
func (fe *FieldErrors) Add(pointer, code, detail string) {
	*fe = append(*fe, FieldError{Pointer: pointer, Code: code, Detail: detail})
}

// Err returns the ValidationError listing every field recorded, or nil when there is none.
func (fe FieldErrors) Err() error {
	if len(fe) == 0 {
		return nil
	}
	return &ValidationError{Fields: fe}
}

// RuleError is a request that breaks a rule of the domain (a conflict, a state the record is
// not in, stock that is not there, a declined card, …).
type RuleError struct {
	// Code is the protocol's error code (docs/protocol.md §4), e.g. "appointment_conflict";
	// the HTTP status follows from it.
	Code string
	// Detail says what happened, without request data.
	Detail string
	// Members are the extra members of the problem document: conflictingId, from and to,
	// available, productId, paymentId, declineCode, …
	Members map[string]any
}

func (e *RuleError) Error() string { return e.Code + ": " + e.Detail }

// breaks returns the RuleError of code with the given members (nil: none).
func breaks(code, detail string, members map[string]any) *RuleError {
	return &RuleError{Code: code, Detail: detail, Members: members}
}
