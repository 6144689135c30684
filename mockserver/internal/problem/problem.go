// Package problem is the mock server's error answer: an RFC 9457 problem document with the
// protocol's codes (docs/protocol.md §4), written by one function for every failure path. Codes,
// statuses and titles come from internal/wire's table; this package keeps no list of its own.
package problem

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/medspa/medspa-go/internal/wire"
)

// FieldError names one invalid field (JSON Pointer) or query parameter.
type FieldError struct {
	Pointer string `json:"pointer"`
	Code    string `json:"code"`
	Detail  string `json:"detail"`
}

// Problem is an error answer. Detail and field details never repeat submitted values (PHI).
type Problem struct {
	Status int
	Code   string
	Detail string
	Errors []FieldError
	// Extra members of the body, e.g. conflictingId.
	Extra map[string]any
	// Header is set on the response (WWW-Authenticate, Retry-After, Allow).
	Header http.Header
}

// Error describes the problem without request data.
func (p *Problem) Error() string { return fmt.Sprintf("%d %s: %s", p.Status, p.Code, p.Detail) }

// New returns the problem of a protocol error code, with its status from internal/wire's table.
// A code the table lacks (or one without a status of its own) is answered 500.
func New(code, detail string) *Problem {
	c, _ := wire.LookupCode(code)
	if c.Status == 0 {
		c.Status = http.StatusInternalServerError
	}
	return &Problem{Status: c.Status, Code: code, Detail: detail}
}

// WithStatus returns a problem with a status of its own choosing: injected faults answer any
// status (docs/protocol.md §12, §14).
func WithStatus(status int, code, detail string) *Problem {
	return &Problem{Status: status, Code: code, Detail: detail}
}

// With adds a body member and returns p.
func (p *Problem) With(key string, value any) *Problem {
	if p.Extra == nil {
		p.Extra = map[string]any{}
	}
	p.Extra[key] = value
	return p
}

// WithHeader sets a response header and returns p.
func (p *Problem) WithHeader(key, value string) *Problem {
	if p.Header == nil {
		p.Header = http.Header{}
	}
	p.Header.Set(key, value)
	return p
}

// MaxListedErrors is how many field errors a 422 lists: past it, the detail still counts every
// invalid field and the member omittedErrors says how many are not listed, so that a body of
// many unknown keys cannot make an answer many times its size (docs/protocol.md §4).
const MaxListedErrors = 100

// Validation returns the 422 for the given field errors (at least one): the first
// MaxListedErrors listed, and omittedErrors counting the rest.
func Validation(errs []FieldError) *Problem {
	detail := "1 field is invalid"
	if len(errs) != 1 {
		detail = strconv.Itoa(len(errs)) + " fields are invalid"
	}
	p := New("validation_error", detail)
	if len(errs) > MaxListedErrors {
		p.With("omittedErrors", len(errs)-MaxListedErrors)
		errs = errs[:MaxListedErrors:MaxListedErrors]
	}
	p.Errors = errs
	return p
}

// Field returns a 422 for a single field.
func Field(pointer, code, detail string) *Problem {
	return Validation([]FieldError{{Pointer: pointer, Code: code, Detail: detail}})
}

// NotFound is the 404 for an unknown route or id.
func NotFound(what string) *Problem { return New("not_found", what+" not found") }

// Body encodes the problem document with members in a fixed order (extras sorted), so equal
// problems are byte-for-byte equal (idempotent replays, snapshots of tests).
func (p *Problem) Body(requestID string) []byte {
	var b bytes.Buffer
	w := func(k string, v any) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(v)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('{')
	w("type", wire.TypeBase+p.Code)
	w("title", wire.Title(p.Code))
	w("status", p.Status)
	w("detail", p.Detail)
	w("code", p.Code)
	w("requestId", requestID)
	if len(p.Errors) > 0 {
		w("errors", p.Errors)
	}
	keys := make([]string, 0, len(p.Extra))
	for k := range p.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		w(k, p.Extra[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// Write sends p as application/problem+json.
func Write(w http.ResponseWriter, requestID string, p *Problem) {
	h := w.Header()
	for k, v := range p.Header {
		h[k] = v
	}
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	_, _ = w.Write(p.Body(requestID))
}
