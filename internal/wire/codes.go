package wire

import "net/http"

// ErrorCode is one error code of the protocol (docs/protocol.md §4): the value of a problem
// document's "code" member, the HTTP status it is answered with, and its title.
type ErrorCode struct {
	// Code is the machine-readable code, e.g. "validation_error".
	Code string
	// Status is the HTTP status the code is answered with.
	Status int
	// Title is the problem's short, fixed summary.
	Title string
	// MockOnly marks codes that only the mock server answers — its fault injection (docs/protocol.md
	// §14) and its admin surface (§12); the public API never does, so the SDK has no sentinel for
	// them.
	MockOnly bool
}

// TypeBase prefixes every problem type URI: "type" is TypeBase + code.
const TypeBase = "https://docs.medspa.dev/errors/"

// ErrorCodes is the one list of error codes. The mock server takes statuses and titles from it,
// the SDK's sentinels are tested against it (TestSentinelsMatchTheErrorTable, module root), and
// a test ties it to the code list of api/openapi.yaml. Add a code here first.
var ErrorCodes = []ErrorCode{
	{Code: "malformed_json", Status: http.StatusBadRequest, Title: "Malformed JSON"},
	{Code: "unauthorized", Status: http.StatusUnauthorized, Title: "Unauthorized"},
	{Code: "token_expired", Status: http.StatusUnauthorized, Title: "Token expired"},
	{Code: "invalid_signature", Status: http.StatusUnauthorized, Title: "Invalid signature"},
	{Code: "card_declined", Status: http.StatusPaymentRequired, Title: "Card declined"},
	{Code: "insufficient_scope", Status: http.StatusForbidden, Title: "Insufficient scope"},
	{Code: "ip_not_allowed", Status: http.StatusForbidden, Title: "IP address not allowed"},
	{Code: "not_found", Status: http.StatusNotFound, Title: "Not found"},
	{Code: "method_not_allowed", Status: http.StatusMethodNotAllowed, Title: "Method not allowed"},
	{Code: "appointment_conflict", Status: http.StatusConflict, Title: "Appointment conflict"},
	{Code: "invalid_state_transition", Status: http.StatusConflict, Title: "Invalid state transition"},
	{Code: "appointment_locked", Status: http.StatusConflict, Title: "Appointment locked"},
	{Code: "insufficient_stock", Status: http.StatusConflict, Title: "Insufficient stock"},
	{Code: "duplicate_sku", Status: http.StatusConflict, Title: "Duplicate SKU"},
	{Code: "invoice_not_payable", Status: http.StatusConflict, Title: "Invoice not payable"},
	{Code: "invoice_not_voidable", Status: http.StatusConflict, Title: "Invoice not voidable"},
	{Code: "payment_not_refundable", Status: http.StatusConflict, Title: "Payment not refundable"},
	{Code: "idempotency_key_in_use", Status: http.StatusConflict, Title: "Idempotency key in use"},
	{Code: "payload_too_large", Status: http.StatusRequestEntityTooLarge, Title: "Payload too large"},
	{Code: "unsupported_media_type", Status: http.StatusUnsupportedMediaType, Title: "Unsupported media type"},
	{Code: "validation_error", Status: http.StatusUnprocessableEntity, Title: "Validation failed"},
	{Code: "idempotency_key_reused", Status: http.StatusUnprocessableEntity, Title: "Idempotency key reused"},
	{Code: "amount_exceeds_balance", Status: http.StatusUnprocessableEntity, Title: "Amount exceeds balance"},
	{Code: "amount_exceeds_refundable", Status: http.StatusUnprocessableEntity, Title: "Amount exceeds refundable"},
	{Code: "rate_limited", Status: http.StatusTooManyRequests, Title: "Rate limited"},
	{Code: "quota_exceeded", Status: http.StatusTooManyRequests, Title: "Quota exceeded"},
	{Code: "internal_error", Status: http.StatusInternalServerError, Title: "Internal error"},
	{Code: "service_unavailable", Status: http.StatusServiceUnavailable, Title: "Service unavailable"},
	{Code: "bad_gateway", Status: http.StatusBadGateway, Title: "Bad gateway", MockOnly: true},
	{Code: "gateway_timeout", Status: http.StatusGatewayTimeout, Title: "Gateway timeout", MockOnly: true},
	{Code: "injected_fault", Status: 0, Title: "Injected fault", MockOnly: true},
	// The mock's admin surface (docs/protocol.md §12): a request from a browser origin or through a
	// host name that is not the server's.
	{Code: "host_not_allowed", Status: http.StatusForbidden, Title: "Host not allowed", MockOnly: true},
	{Code: "origin_not_allowed", Status: http.StatusForbidden, Title: "Origin not allowed", MockOnly: true},
}

var codeIndex = func() map[string]ErrorCode {
	m := make(map[string]ErrorCode, len(ErrorCodes))
	for _, c := range ErrorCodes {
		m[c.Code] = c
	}
	return m
}()

// LookupCode returns the table's entry for code.
func LookupCode(code string) (ErrorCode, bool) {
	c, ok := codeIndex[code]
	return c, ok
}

// Title returns the title of code, or "Internal error" for a code the table lacks.
func Title(code string) string {
	if c, ok := codeIndex[code]; ok {
		return c.Title
	}
	return "Internal error"
}

// FieldCodes are the codes of one invalid field in a validation failure (docs/protocol.md §4).
var FieldCodes = []string{
	"required", "invalid_format", "too_long", "too_short", "out_of_range", "invalid_value",
	"unknown_field", "unknown_parameter", "not_found",
}
