package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// maxJSONDepth bounds nesting so hostile bodies cannot exhaust the stack.
const maxJSONDepth = 32

// form is a decoded JSON object body whose fields are read one by one, collecting every
// invalid field before answering (the protocol wants all of them at once).
type form struct {
	obj    map[string]json.RawMessage
	prefix string
	errs   *store.FieldErrors
}

// presence says how a field appeared in the body.
type presence int

const (
	absent presence = iota
	null
	present
	invalid // present with the wrong JSON type (already recorded as an error)
)

// parseForm decodes the body as one JSON object: valid UTF-8, no duplicate keys, bounded depth;
// anything else is 400 malformed_json.
func (rq *request) parseForm() (*form, error) {
	malformed := func(detail string) error {
		return problem.New("malformed_json", detail)
	}
	if len(bytes.TrimSpace(rq.body)) == 0 {
		return nil, malformed("the request body must be a JSON object")
	}
	if !utf8.Valid(rq.body) {
		return nil, malformed("the request body is not valid UTF-8")
	}
	if err := checkJSON(rq.body); err != nil {
		return nil, malformed(err.Error())
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(rq.body, &obj); err != nil || obj == nil {
		return nil, malformed("the request body must be a JSON object")
	}
	return &form{obj: obj, errs: &store.FieldErrors{}}, nil
}

// checkJSON checks one value, no duplicate keys in any object, bounded depth. Valid JSON (every
// well-formed request) takes a byte scan; anything else walks the tokens, whose first error is
// the answer.
func checkJSON(b []byte) error {
	if json.Valid(b) {
		return checkValidJSON(b)
	}
	return checkJSONTokens(b)
}

// checkValidJSON finds, in document order, the first object nested deeper than maxJSONDepth or
// the first duplicate key, in b, which must be valid JSON. Keys compare unescaped.
func checkValidJSON(b []byte) error {
	type frame struct {
		obj    bool
		keys   []string // few keys per object: a slice beats a map
		expect bool     // in an object: the next string is a key
	}
	var buf [8]frame
	stack := buf[:0]
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '{', '[':
			if len(stack) >= maxJSONDepth {
				return errors.New("the request body is nested too deeply")
			}
			if top := len(stack) - 1; top >= 0 && stack[top].obj {
				stack[top].expect = true
			}
			stack = append(stack, frame{obj: c == '{', expect: true})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case '"':
			start, escaped := i, false
			for i++; b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
					escaped = true
				}
			}
			top := len(stack) - 1
			if top < 0 || !stack[top].obj {
				continue
			}
			if !stack[top].expect {
				stack[top].expect = true
				continue
			}
			k := string(b[start+1 : i])
			if escaped {
				_ = json.Unmarshal(b[start:i+1], &k) // valid JSON: a string literal decodes
			}
			for _, seen := range stack[top].keys {
				if seen == k {
					return errors.New("the request body has a duplicate key")
				}
			}
			stack[top].keys = append(stack[top].keys, k)
			stack[top].expect = false
		default:
			// Numbers, literals, ':' and ',' and whitespace; a scalar value in an object ends
			// with the next ',' or '}', and the next string is a key again.
			if c == ',' {
				if top := len(stack) - 1; top >= 0 && stack[top].obj {
					stack[top].expect = true
				}
			}
		}
	}
	return nil
}

// checkJSONTokens walks the tokens once: one value, no duplicate keys in any object, bounded
// depth.
func checkJSONTokens(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	type frame struct {
		obj    bool
		keys   map[string]struct{}
		expect bool // in an object: the next string token is a key
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return errors.New("the request body is not valid JSON")
		}
		top := len(stack) - 1
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if len(stack) >= maxJSONDepth {
					return errors.New("the request body is nested too deeply")
				}
				if top >= 0 && stack[top].obj {
					stack[top].expect = true
				}
				stack = append(stack, frame{obj: d == '{', keys: map[string]struct{}{}, expect: true})
			default:
				stack = stack[:top]
			}
			continue
		}
		if top >= 0 && stack[top].obj {
			if stack[top].expect {
				k := tok.(string)
				if _, dup := stack[top].keys[k]; dup {
					return errors.New("the request body has a duplicate key")
				}
				stack[top].keys[k] = struct{}{}
				stack[top].expect = false
			} else {
				stack[top].expect = true
			}
		}
	}
	if dec.More() {
		return errors.New("the request body has data after the JSON value")
	}
	return nil
}

func (f *form) pointer(name string) string { return f.prefix + "/" + escapePointer(name) }

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// fail records an invalid field.
func (f *form) fail(name, code, detail string) {
	f.errs.Add(f.pointer(name), code, detail)
}

// failItem records an invalid array item (pointer /name/i).
func (f *form) failItem(name string, i int, code, detail string) {
	f.errs.Add(f.pointer(name)+"/"+itoa(i), code, detail)
}

// allow records unknown_field for every member not named (sorted, for stable answers).
func (f *form) allow(names ...string) {
	for _, k := range unknownKeys(f.obj, names) {
		f.fail(k, "unknown_field", "is not a field of this request")
	}
}

// unknownKeys returns the keys of m not in allowed, sorted so answers are stable.
func unknownKeys[V any](m map[string]V, allowed []string) []string {
	var unknown []string
	for k := range m {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	return unknown
}

// isNull reports an explicit JSON null.
func (f *form) isNull(name string) bool {
	raw, ok := f.obj[name]
	return ok && string(raw) == "null"
}

// nested returns a form for an object member (same error list, deeper pointers), or nil when the
// member is absent, null, or not an object (recorded).
func (f *form) nested(name string) *form {
	raw, ok := f.obj[name]
	if !ok || string(raw) == "null" {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		f.fail(name, "invalid_value", "must be an object")
		return nil
	}
	return &form{obj: obj, prefix: f.pointer(name), errs: f.errs}
}

// done returns the 422 listing every recorded error, or nil.
func (f *form) done() error { return f.errs.Err() }

// field decodes member name into T, recording invalid_value for a wrong JSON type.
func field[T any](f *form, name, typeDesc string) (T, presence) {
	var v T
	raw, ok := f.obj[name]
	if !ok {
		return v, absent
	}
	if string(raw) == "null" {
		return v, null
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		f.fail(name, "invalid_value", "must be "+typeDesc)
		return v, invalid
	}
	return v, present
}

// str reads a string member, trimmed, and checks its length in characters. A required member
// that is absent or null records "required".
func (f *form) str(name string, required bool, minLen, maxLen int) (string, presence) {
	s, p := field[string](f, name, "a string")
	switch p {
	case absent, null:
		if required {
			f.fail(name, "required", "is required")
		}
		return "", p
	case invalid:
		return "", p
	}
	s = strings.TrimSpace(s)
	n := utf8.RuneCountInString(s)
	switch {
	case n == 0 && minLen > 0:
		// Empty after trimming is a missing value, whether created or patched.
		f.fail(name, "required", "is required")
		return s, invalid
	case n < minLen:
		f.fail(name, "too_short", "must be at least "+itoa(minLen)+" characters")
		return s, invalid
	case maxLen > 0 && n > maxLen:
		f.fail(name, "too_long", "must be at most "+itoa(maxLen)+" characters")
		return s, invalid
	}
	return s, p
}

// enum reads a string member that must be one of allowed.
func (f *form) enum(name string, required bool, allowed ...string) (string, presence) {
	s, p := f.str(name, required, 0, 0)
	if p == present && !slices.Contains(allowed, s) {
		f.fail(name, "invalid_value", "must be one of "+strings.Join(allowed, ", "))
		return s, invalid
	}
	return s, p
}

// integer reads an integer member within [lo, hi].
func (f *form) integer(name string, required bool, lo, hi int64) (int64, presence) {
	raw, ok := f.obj[name]
	if ok && string(raw) != "null" {
		var n json.Number
		// json.Number also accepts a string holding a number ("1"); the protocol wants a number.
		if err := json.Unmarshal(raw, &n); err != nil || raw[0] == '"' {
			f.fail(name, "invalid_value", "must be an integer")
			return 0, invalid
		}
		v, err := n.Int64()
		if err != nil {
			if _, ferr := n.Float64(); ferr == nil && !strings.ContainsAny(string(n), ".eE") {
				f.fail(name, "out_of_range", "must be between "+itoa64(lo)+" and "+itoa64(hi))
			} else {
				f.fail(name, "invalid_value", "must be an integer")
			}
			return 0, invalid
		}
		if v < lo || v > hi {
			f.fail(name, "out_of_range", "must be between "+itoa64(lo)+" and "+itoa64(hi))
			return v, invalid
		}
		return v, present
	}
	if required {
		f.fail(name, "required", "is required")
	}
	if ok {
		return 0, null
	}
	return 0, absent
}

// strings reads an array of strings: at most maxItems, each trimmed, 1..maxLen characters.
func (f *form) strings(name string, maxItems, maxLen int) ([]string, presence) {
	list, p := field[[]string](f, name, "an array of strings")
	if p != present {
		return nil, p
	}
	if len(list) > maxItems {
		f.fail(name, "too_long", "must have at most "+itoa(maxItems)+" items")
		return nil, invalid
	}
	ok := true
	for i, s := range list {
		s = strings.TrimSpace(s)
		list[i] = s
		n := utf8.RuneCountInString(s)
		if n == 0 {
			f.failItem(name, i, "too_short", "must not be empty")
			ok = false
		} else if n > maxLen {
			f.failItem(name, i, "too_long", "must be at most "+itoa(maxLen)+" characters")
			ok = false
		}
	}
	if !ok {
		return nil, invalid
	}
	return list, p
}

// boolean reads a boolean member.
func (f *form) boolean(name string) (bool, presence) { return field[bool](f, name, "a boolean") }

// nonNull records "required" when a required field is explicitly null in a patch.
func (f *form) nonNull(names ...string) {
	for _, n := range names {
		if raw, ok := f.obj[n]; ok && string(raw) == "null" {
			f.fail(n, "required", "is required and cannot be null")
		}
	}
}

// objects reads an array of objects of minItems..maxItems items and returns one form per item
// (pointers /name/i). Absent or null records "required" when required; a wrong type is
// invalid_value; too few or too many items are too_short / too_long.
func (f *form) objects(name string, required bool, minItems, maxItems int) []*form {
	list, p := field[[]json.RawMessage](f, name, "an array of objects")
	switch p {
	case absent, null:
		if required {
			f.fail(name, "required", "is required")
		}
		return nil
	case invalid:
		return nil
	}
	if len(list) < minItems {
		f.fail(name, "too_short", "must have at least "+itoa(minItems)+" items")
		return nil
	}
	if len(list) > maxItems {
		f.fail(name, "too_long", "must have at most "+itoa(maxItems)+" items")
		return nil
	}
	out := make([]*form, 0, len(list))
	for i, raw := range list {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
			f.failItem(name, i, "invalid_value", "must be an object")
			continue
		}
		out = append(out, &form{obj: obj, prefix: f.pointer(name) + "/" + itoa(i), errs: f.errs})
	}
	return out
}
