package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/medspa/medspa-go/internal/safetext"
	"github.com/medspa/medspa-go/internal/wire"
)

// Error is an error answered by the MedSpa API: an RFC 9457 problem document, decoded.
// Every non-2xx response becomes an *Error; use errors.Is with the Err* sentinels to test its code,
// or errors.As to read its fields.
type Error struct {
	// Status is the HTTP status code.
	Status int `json:"status"`
	// Code is the machine-readable error code, e.g. "validation_error".
	Code string `json:"code"`
	// Type is the problem type URI, https://docs.medspa.dev/errors/<code>.
	Type string `json:"type"`
	// Title is a short, human-readable summary of the problem type.
	Title string `json:"title"`
	// Detail explains this occurrence of the problem.
	Detail string `json:"detail"`
	// RequestID identifies the request in the server's logs (X-Request-Id).
	RequestID string `json:"requestId"`
	// Fields lists every invalid field of a validation failure.
	Fields []FieldError `json:"errors,omitempty"`
	// RetryAfter is the server's Retry-After, when it sent one (429, 503).
	RetryAfter time.Duration `json:"-"`

	// ConflictingID names the record an appointment_conflict collided with.
	ConflictingID string `json:"conflictingId,omitempty"`
	// From and To are the states of a refused invalid_state_transition.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Available is the stock on hand of an insufficient_stock failure.
	Available *int64 `json:"available,omitempty"`
	// PaymentID is the failed payment recorded by a card_declined answer.
	PaymentID string `json:"paymentId,omitempty"`
	// DeclineCode is the processor's reason for a card_declined answer, e.g. "insufficient_funds".
	DeclineCode string `json:"declineCode,omitempty"`
	// Header is the response's header, for anything not decoded above.
	Header http.Header `json:"-"`

	// hint is what the client adds to the server's text (see call.explain): why a Retry-After
	// was not waited for, when a daily quota resets.
	hint string
}

// FieldError names one invalid field of a request.
type FieldError struct {
	// Pointer is the field's JSON Pointer (RFC 6901) in the request body, e.g. "/email",
	// or the query parameter's name for query parameters.
	Pointer string `json:"pointer"`
	// Code is one of required, invalid_format, too_long, too_short, out_of_range, invalid_value,
	// unknown_field, unknown_parameter, not_found.
	Code string `json:"code"`
	// Detail explains the failure; it never repeats the submitted value.
	Detail string `json:"detail"`
}

// Error formats the problem on one line, without any request data (no PHI): status, code,
// detail, the invalid fields, what the client adds (a Retry-After over WithMaxRetryAfter that
// stopped the retries, with the wait and the cap; when a spent daily quota resets) and the
// request id. Control characters the server put in its text
// are escaped, so one error is one log line.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "medspa: %d", e.Status)
	if e.Code != "" {
		b.WriteString(" " + safetext.Line(e.Code))
	}
	switch {
	case e.Detail != "":
		b.WriteString(": " + safetext.Line(e.Detail))
	case e.Title != "":
		b.WriteString(": " + safetext.Line(e.Title))
	}
	for i, f := range e.Fields {
		if i == 0 {
			b.WriteString(" (")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(safetext.Line(f.Pointer) + " " + safetext.Line(f.Code))
		if i == len(e.Fields)-1 {
			b.WriteString(")")
		}
	}
	if e.hint != "" {
		b.WriteString("; " + e.hint)
	}
	if e.RequestID != "" {
		b.WriteString(" [" + safetext.Line(e.RequestID) + "]")
	}
	return b.String()
}

// Is reports whether target is the sentinel of e's code, so errors.Is(err, medspa.ErrNotFound) works.
func (e *Error) Is(target error) bool {
	s, ok := target.(sentinel)
	if !ok {
		return false
	}
	if s == ErrAPI {
		return true
	}
	return string(s) == e.Code
}

// sentinel is the type of the Err* values: comparable, and matched by code in (*Error).Is.
type sentinel string

func (s sentinel) Error() string { return "medspa: " + strings.ReplaceAll(string(s), "_", " ") }

// Sentinels for errors.Is, one per error code of the protocol. ErrAPI matches every *Error.
var (
	ErrAPI                     error = sentinel("api_error")
	ErrMalformedJSON           error = sentinel("malformed_json")
	ErrUnauthorized            error = sentinel("unauthorized")
	ErrTokenExpired            error = sentinel("token_expired")
	ErrInvalidSignature        error = sentinel("invalid_signature")
	ErrCardDeclined            error = sentinel("card_declined")
	ErrInsufficientScope       error = sentinel("insufficient_scope")
	ErrIPNotAllowed            error = sentinel("ip_not_allowed")
	ErrNotFound                error = sentinel("not_found")
	ErrMethodNotAllowed        error = sentinel("method_not_allowed")
	ErrAppointmentConflict     error = sentinel("appointment_conflict")
	ErrInvalidStateTransition  error = sentinel("invalid_state_transition")
	ErrAppointmentLocked       error = sentinel("appointment_locked")
	ErrInsufficientStock       error = sentinel("insufficient_stock")
	ErrDuplicateSKU            error = sentinel("duplicate_sku")
	ErrInvoiceNotPayable       error = sentinel("invoice_not_payable")
	ErrInvoiceNotVoidable      error = sentinel("invoice_not_voidable")
	ErrPaymentNotRefundable    error = sentinel("payment_not_refundable")
	ErrIdempotencyKeyInUse     error = sentinel("idempotency_key_in_use")
	ErrPayloadTooLarge         error = sentinel("payload_too_large")
	ErrUnsupportedMediaType    error = sentinel("unsupported_media_type")
	ErrValidation              error = sentinel("validation_error")
	ErrIdempotencyKeyReused    error = sentinel("idempotency_key_reused")
	ErrAmountExceedsBalance    error = sentinel("amount_exceeds_balance")
	ErrAmountExceedsRefundable error = sentinel("amount_exceeds_refundable")
	ErrRateLimited             error = sentinel("rate_limited")
	ErrQuotaExceeded           error = sentinel("quota_exceeded")
	ErrInternal                error = sentinel("internal_error")
	ErrServiceUnavailable      error = sentinel("service_unavailable")
)

// maxErrorBody bounds how much of an error body is read; problem documents are small.
const maxErrorBody = 64 << 10

// decodeError turns a non-2xx response into an *Error. Bodies that are not problem documents
// (a proxy's HTML page, say) still give an *Error with the status and the status text.
func decodeError(resp *http.Response, body []byte) *Error {
	e := &Error{}
	if isJSON(resp.Header.Get("Content-Type")) && len(body) > 0 {
		_ = json.Unmarshal(body, e) // a malformed body still yields the status below
	}
	e.Status = resp.StatusCode
	if e.Title == "" {
		e.Title = http.StatusText(resp.StatusCode)
	}
	if e.Title == "" {
		e.Title = "HTTP " + strconv.Itoa(resp.StatusCode)
	}
	if e.RequestID == "" {
		e.RequestID = resp.Header.Get("X-Request-Id")
	}
	e.RetryAfter = wire.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now(), 0)
	e.Header = resp.Header
	return e
}

func isJSON(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.TrimSpace(strings.ToLower(mt))
	return mt == "application/json" || mt == "application/problem+json" || strings.HasSuffix(mt, "+json")
}

// ErrInvalidArgument is returned (wrapped) when a call's arguments cannot be sent as they are:
// an id that is empty or not one path segment (see Path), or nil params where the call needs
// them. Nothing was sent.
var ErrInvalidArgument = errors.New("medspa: invalid argument")

// callError is an error of the call path whose message is safe to log: one line naming the
// call (method and path, never the query) and what went wrong, without request or response
// data. Unwrap reaches the cause (a *url.Error, a JSON error, …), whose own message may hold
// them.
type callError struct {
	msg string
	err error
}

func (e *callError) Error() string { return e.msg }
func (e *callError) Unwrap() error { return e.err }

// describeTransport describes what ended a call on one line and without the request URL (a
// *url.Error's message quotes it, and its query may hold PHI filters).
func describeTransport(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) && ue == err {
		err = ue.Err
	}
	if err == nil {
		return "transport error"
	}
	return safetext.Line(strings.TrimPrefix(err.Error(), "medspa: "))
}
