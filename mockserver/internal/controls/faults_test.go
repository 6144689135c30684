package controls

import "testing"

// Injected statuses answer the protocol's code for the statuses a server gives unprompted, and
// injected_fault for any other (docs/protocol.md §14).
func TestFaultCode(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]string{
		401: "unauthorized", 404: "not_found", 429: "rate_limited", 500: "internal_error", 502: "bad_gateway",
		503: "service_unavailable", 504: "gateway_timeout", 400: "injected_fault", 402: "injected_fault",
		403: "injected_fault", 409: "injected_fault", 418: "injected_fault", 422: "injected_fault", 599: "injected_fault",
	} {
		if got := faultCode(status); got != want {
			t.Errorf("faultCode(%d) = %q, want %q", status, got, want)
		}
	}
}
