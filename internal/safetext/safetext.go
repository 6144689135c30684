// Package safetext makes text fit for the SDK's error messages, which promise to be one log line
// and to hold no request or response data (docs/protocol.md §9: PHI never reaches logs or
// errors). Line escapes what a server sent; JSONError describes a decoding failure without the
// value that caused it.
package safetext

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Line returns s with every character that is not printable escaped Go-style (\n, \x1b, \u2028,
// …), and invalid UTF-8 as \x escapes, so that text a server chose cannot break a log line or
// forge one. Printable text, spaces included, is kept as it is.
func Line(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || !isPlain(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case isPlain(r):
			b.WriteString(s[i : i+size])
		default:
			q := strconv.QuoteRuneToASCII(r) // '\n', '\x1b', '\u2028'
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}

// isPlain reports a character that stays on its line as it is: printable, or the ASCII space.
func isPlain(r rune) bool { return r == ' ' || unicode.IsPrint(r) }

// JSONError describes a JSON decoding error by where it happened and what was expected, never by
// the value found, which may be protected health information (a date of birth that does not
// parse, an email in a string where a number was due).
func JSONError(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var tim *time.ParseError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at offset %d", syn.Offset)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fmt.Sprintf("want %s", typ.Type)
		}
		return fmt.Sprintf("field %q: want %s", typ.Field, typ.Type)
	case errors.As(err, &tim):
		return "timestamp is not RFC 3339"
	default:
		return "invalid value"
	}
}
