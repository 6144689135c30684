package safetext_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/safetext"
)

func TestLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                           "",
		"plain text, spaces kept":    "plain text, spaces kept",
		"two\nlines":                 `two\nlines`,
		"cr\rtab\t":                  `cr\rtab\t`,
		"esc \x1b[31mred":            `esc \x1b[31mred`,
		"nul\x00":                    `nul\x00`,
		"del\x7f":                    `del\x7f`,
		"line sep\u2028para\u2029":   `line sep\u2028para\u2029`,
		"nel\u0085":                  `nel\u0085`,
		"bidi \u202egnp.exe":         `bidi \u202egnp.exe`,
		"bad utf-8 \xff\xfe":         `bad utf-8 \xff\xfe`,
		"non-ASCII kept: café, 日本":   "non-ASCII kept: café, 日本",
		`backslash \n stays literal`: `backslash \n stays literal`,
	} {
		if got := safetext.Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJSONErrorHoldsNoValue(t *testing.T) {
	t.Parallel()
	const secret = "ada.lovelace@example.com"
	var target struct {
		N    int       `json:"n"`
		When time.Time `json:"when"`
	}
	for name, tc := range map[string]struct {
		body string
		want string
	}{
		"syntax":    {`{"n": 1, "x": ` + secret + `}`, "invalid JSON at offset 15"},
		"type":      {`{"n": "` + secret + `"}`, `field "n": want int`},
		"timestamp": {`{"when": "` + secret + `"}`, "timestamp is not RFC 3339"},
		"truncated": {`{"n": 1`, "invalid JSON at offset 7"},
	} {
		err := json.Unmarshal([]byte(tc.body), &target)
		if err == nil {
			t.Fatalf("%s: decoded", name)
		}
		if got := safetext.JSONError(err); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
	if got := safetext.JSONError(errCustom{}); got != "invalid value" {
		t.Errorf("custom error: %q", got)
	}
}

// errCustom stands for an UnmarshalJSON error that quotes its input.
type errCustom struct{}

func (errCustom) Error() string { return "bad date \"1815-12-10\"" }
