// Package problem is the mock server's one error type: an RFC 9457 problem document with the
// protocol's codes, written by one function for every failure path.
package problem

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
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

// New returns a problem with the given status, code and detail.
func New(status int, code, detail string) *Problem {
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

// Validation returns the 422 for the given field errors (at least one).
func Validation(errs []FieldError) *Problem {
	detail := "1 field is invalid"
	if len(errs) != 1 {
		detail = strconv.Itoa(len(errs)) + " fields are invalid"
	}
	return &Problem{Status: http.StatusUnprocessableEntity, Code: "validation_error", Detail: detail, Errors: errs}
}

// Field returns a 422 for a single field.
func Field(pointer, code, detail string) *Problem {
	return Validation([]FieldError{{Pointer: pointer, Code: code, Detail: detail}})
}

// NotFound is the 404 for an unknown route or id.
func NotFound(what string) *Problem {
	return New(http.StatusNotFound, "not_found", what+" not found")
}

// titles are the short summaries per code.
var titles = map[string]string{
	"malformed_json":           "Malformed JSON",
	"unauthorized":             "Unauthorized",
	"token_expired":            "Token expired",
	"invalid_signature":        "Invalid signature",
	"card_declined":            "Card declined",
	"insufficient_scope":       "Insufficient scope",
	"ip_not_allowed":           "IP address not allowed",
	"not_found":                "Not found",
	"method_not_allowed":       "Method not allowed",
	"appointment_conflict":     "Appointment conflict",
	"invalid_state_transition": "Invalid state transition",
	"appointment_locked":       "Appointment locked",
	"insufficient_stock":       "Insufficient stock",
	"duplicate_sku":            "Duplicate SKU",
	"invoice_not_payable":      "Invoice not payable",
	"idempotency_key_in_use":   "Idempotency key in use",
	"payload_too_large":        "Payload too large",
	"unsupported_media_type":   "Unsupported media type",
	"validation_error":         "Validation failed",
	"idempotency_key_reused":   "Idempotency key reused",
	"amount_exceeds_balance":   "Amount exceeds balance",
	"rate_limited":             "Rate limited",
	"quota_exceeded":           "Quota exceeded",
	"internal_error":           "Internal error",
	"service_unavailable":      "Service unavailable",
	// Mock fault injection only.
	"bad_gateway":     "Bad gateway",
	"gateway_timeout": "Gateway timeout",
	"injected_fault":  "Injected fault",
}

// Title returns the title of a code.
func Title(code string) string {
	if t, ok := titles[code]; ok {
		return t
	}
	return http.StatusText(500)
}

// TypeBase prefixes every problem type URI.
const TypeBase = "https://docs.medspa.dev/errors/"

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
	w("type", TypeBase+p.Code)
	w("title", Title(p.Code))
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

// As returns err as a *Problem, or a 500 internal_error that hides err's text.
func As(err error) *Problem {
	if p, ok := err.(*Problem); ok {
		return p
	}
	return New(http.StatusInternalServerError, "internal_error", "the server failed to process the request")
}
