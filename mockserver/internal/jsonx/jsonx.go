// Package jsonx appends JSON values byte for byte as encoding/json writes them, for the mock
// server's hot answers and its audit hashes, where reflection costs more than the work itself.
package jsonx

import (
	"encoding/json"
	"strconv"
	"time"
)

// String appends s as encoding/json writes it: printable ASCII other than the quote, backslash,
// '<', '>' and '&' is copied; anything else takes the slow path through json.Marshal.
func String(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if !plain[s[i]] {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plain says which bytes String copies as they are (encoding/json's safeSet, narrowed to what
// it never escapes).
var plain = func() (t [256]bool) {
	for c := 0x20; c <= 0x7e; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// Strings appends a JSON array of strings (nil as []).
func Strings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = String(b, s)
	}
	return append(b, ']')
}

// Time appends t as time.Time's MarshalJSON does (RFC 3339 with nanoseconds when present).
func Time(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// Int appends n.
func Int(b []byte, n int64) []byte { return strconv.AppendInt(b, n, 10) }

// Field appends a member name and its colon, after a comma unless it is the object's first.
func Field(b []byte, name string) []byte {
	if len(b) > 0 && b[len(b)-1] != '{' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}
