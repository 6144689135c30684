package problem

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/medspa/medspa-go/internal/wire"
)

// Every code of the protocol's table has its status and title, from the table.
func TestNewTakesStatusFromTheTable(t *testing.T) {
	t.Parallel()
	for _, c := range wire.ErrorCodes {
		p := New(c.Code, "d")
		want := c.Status
		if want == 0 { // injected_fault has no status of its own: WithStatus gives it one
			want = http.StatusInternalServerError
		}
		if p.Status != want || p.Code != c.Code || p.Detail != "d" {
			t.Errorf("New(%q) = %d %s %q, want %d", c.Code, p.Status, p.Code, p.Detail, want)
		}
		var body map[string]any
		if err := json.Unmarshal(p.Body("req_1"), &body); err != nil || body["title"] != c.Title || body["type"] != wire.TypeBase+c.Code {
			t.Errorf("%s: body %v (%v)", c.Code, body, err)
		}
	}
	if p := New("no_such_code", "d"); p.Status != http.StatusInternalServerError {
		t.Errorf("an unknown code answers %d", p.Status)
	}
	if p := WithStatus(418, "injected_fault", "d"); p.Status != 418 {
		t.Errorf("WithStatus: %d", p.Status)
	}
}

// The body has its members in a fixed order, extras sorted after them, so equal problems are
// equal bytes.
func TestBody(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    *Problem
		want string
	}{
		{"plain", NotFound("patient"),
			`{"type":"https://docs.medspa.dev/errors/not_found","title":"Not found","status":404,"detail":"patient not found","code":"not_found","requestId":"req_1"}`},
		{"one field", Field("/email", "invalid_format", "must be an email address"),
			`{"type":"https://docs.medspa.dev/errors/validation_error","title":"Validation failed","status":422,"detail":"1 field is invalid","code":"validation_error","requestId":"req_1","errors":[{"pointer":"/email","code":"invalid_format","detail":"must be an email address"}]}`},
		{"two fields", Validation([]FieldError{{"/a", "required", "is required"}, {"/b", "too_long", "x"}}),
			`{"type":"https://docs.medspa.dev/errors/validation_error","title":"Validation failed","status":422,"detail":"2 fields are invalid","code":"validation_error","requestId":"req_1","errors":[{"pointer":"/a","code":"required","detail":"is required"},{"pointer":"/b","code":"too_long","detail":"x"}]}`},
		{"extras sorted", New("invalid_state_transition", "no").With("to", "b").With("from", "a").With("available", int64(3)),
			`{"type":"https://docs.medspa.dev/errors/invalid_state_transition","title":"Invalid state transition","status":409,"detail":"no","code":"invalid_state_transition","requestId":"req_1","available":3,"from":"a","to":"b"}`},
		{"escapes", New("malformed_json", `<"&">`),
			`{"type":"https://docs.medspa.dev/errors/malformed_json","title":"Malformed JSON","status":400,"detail":"\u003c\"\u0026\"\u003e","code":"malformed_json","requestId":"req_1"}`},
	} {
		if got := string(tc.p.Body("req_1")); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	p := New("rate_limited", "slow down").WithHeader("Retry-After", "3").WithHeader("WWW-Authenticate", "x")
	Write(w, "req_9", p)
	h := w.Result().Header
	if w.Code != http.StatusTooManyRequests || h.Get("Content-Type") != "application/problem+json" ||
		h.Get("Cache-Control") != "no-store" || h.Get("Retry-After") != "3" || h.Get("Www-Authenticate") != "x" {
		t.Errorf("%d %v", w.Code, h)
	}
	if w.Body.String() != string(p.Body("req_9")) {
		t.Errorf("body %s", w.Body)
	}
	if got := p.Error(); got != "429 rate_limited: slow down" {
		t.Errorf("Error() = %q", got)
	}
}
