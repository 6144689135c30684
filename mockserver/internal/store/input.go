package store

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/medspa/medspa-go/internal/wire"
)

// A create or merge-patch request reaches the store as an Input (PatientInput, …): each member
// a Field, decoded from JSON by the HTTP layer (which rejects unknown members and values of
// the wrong JSON type). The store validates the input — lengths, formats, ranges, references
// and cross-field rules — listing every invalid field at once in the order of the protocol's
// field tables (docs/protocol.md §9), the decoder's complaints in their places, so the API,
// fixtures and any other caller get the same rules and the same answers.

// Presence says how a member appeared in a request body.
type Presence uint8

// Presences of a member.
const (
	Absent  Presence = iota // not sent: the default, or (in a patch) unchanged
	Null                    // sent as null: in a patch, cleared
	Present                 // sent with a value of the right JSON type
	Invalid                 // sent with a value the decoder (Complaint) or a rule rejected
)

// Field is one member of a request body as decoded.
type Field[T any] struct {
	Value T
	State Presence
	// Complaint is the decoder's finding for an Invalid member (a value of the wrong JSON type),
	// listed in the member's place among validation's findings.
	Complaint *FieldError
}

// Given returns a Field holding v (for callers that build inputs in Go).
func Given[T any](v T) Field[T] { return Field[T]{Value: v, State: Present} }

// Members is what the decoder found wrong with an object as a whole (members it does not
// have), listed before anything validation finds in the object.
type Members struct {
	Unknown FieldErrors
	// Extra are an outer validator's findings about the whole body (the OpenAPI document's, in
	// strict mode), set on the body's own Members: validation lists them after its own, but
	// none at or under a field it refused itself (JoinFindings), and a body with any is invalid.
	Extra FieldErrors
}

// checker validates an input's members, recording every invalid one under a pointer prefix.
type checker struct {
	errs   *FieldErrors
	extra  *FieldErrors // Members.Extra of the body, joined at done
	prefix string       // the JSON Pointer of the object checked ("" for the body)
}

func newChecker() checker { return checker{errs: &FieldErrors{}, extra: &FieldErrors{}} }

// pointer is the JSON Pointer of a member.
func (c checker) pointer(name string) string { return c.prefix + "/" + EscapePointer(name) }

// EscapePointer escapes a JSON Pointer reference token (RFC 6901: "~" and "/").
func EscapePointer(s string) string { return pointerEscaper.Replace(s) }

// pointerEscaper is built once: building one per name made a body of many unknown keys slow.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// in returns a checker for the object at member name (or item name/i).
func (c checker) in(pointer string) checker {
	return checker{errs: c.errs, extra: c.extra, prefix: pointer}
}

func (c checker) fail(name, code, detail string) { c.errs.Add(c.pointer(name), code, detail) }

func (c checker) failItem(name string, i int, code, detail string) {
	c.errs.Add(c.pointer(name)+"/"+strconv.Itoa(i), code, detail)
}

// members lists the decoder's findings about the object as a whole.
func (c checker) members(m Members) {
	*c.errs = append(*c.errs, m.Unknown...)
	*c.extra = append(*c.extra, m.Extra...)
}

// done returns the ValidationError of everything recorded, an outer validator's findings
// joined (JoinFindings), or nil.
func (c checker) done() error { return JoinFindings(*c.errs, *c.extra).Err() }

// JoinFindings returns own followed by those of extra that name a field own does not name:
// neither the same pointer nor one inside a field own refused (own's verdict on a field and
// what is in it stands). Own and extra are not changed.
func JoinFindings(own, extra FieldErrors) FieldErrors {
	out := slices.Clip(own)
	for _, e := range extra {
		covered := slices.ContainsFunc(out, func(o FieldError) bool {
			return o.Pointer == e.Pointer || strings.HasPrefix(e.Pointer, o.Pointer+"/")
		})
		if !covered {
			out = append(out, e)
		}
	}
	return out
}

// nonNull records "required" for required members sent as null in a merge patch
// (docs/protocol.md §2: null on a required field is 422).
func (c checker) nonNull(fields ...namedState) {
	for _, f := range fields {
		if f.state == Null {
			c.fail(f.name, "required", "is required and cannot be null")
		}
	}
}

// namedState is a member's name and presence, for nonNull.
type namedState struct {
	name  string
	state Presence
}

// decoded reports a member the decoder rejected (its complaint is listed here) and says
// whether it may be read.
func (c checker) decoded(complaint *FieldError, p Presence) bool {
	if p == Invalid {
		if complaint != nil {
			*c.errs = append(*c.errs, *complaint)
		}
		return false
	}
	return true
}

// str checks a one-line string member, trimmed, of minLen..maxLen characters (maxLen 0: no
// limit). A required member that is absent or null is "required", and so is one that is empty
// after trimming when minLen > 0; one holding a character no text holds (TextAllowed) is
// invalid_format.
func (c checker) str(name string, f Field[string], required bool, minLen, maxLen int) (string, Presence) {
	return c.textField(name, f, required, minLen, maxLen, false)
}

// text is str for free text that may span lines (notes): tabs and line breaks are allowed.
func (c checker) text(name string, f Field[string], required bool, minLen, maxLen int) (string, Presence) {
	return c.textField(name, f, required, minLen, maxLen, true)
}

// TextAllowed reports whether s holds only characters a text field of the protocol may hold
// (docs/protocol.md §2, "text"): no C0 control character (in multi-line text, tab, line feed
// and carriage return are allowed, and so are the line and paragraph separators U+2028,
// U+2029), no DEL, no C1 control character, no bidirectional embedding, override or isolate
// (U+202A–U+202E, U+2066–U+2069: they reorder what a reader sees), and none of the invisible
// characters that hide or spoof text (U+200B zero-width space, U+2060–U+2064, U+206A–U+206F,
// U+FEFF, U+FFF9–U+FFFB, and the Hangul fillers U+115F, U+1160, U+3164, U+FFA0). Joiners (U+200C, U+200D),
// directional marks (U+200E, U+200F, U+061C), the soft hyphen and tag characters stay:
// scripts and emoji need them.
func TextAllowed(s string, multiline bool) bool {
	for _, r := range s {
		if forbiddenRune(r, multiline) {
			return false
		}
	}
	return true
}

func forbiddenRune(r rune, multiline bool) bool {
	switch {
	case r < 0x20:
		return !multiline || (r != '\t' && r != '\n' && r != '\r')
	case r < 0x7f:
		return false
	case r <= 0x9f: // DEL and the C1 controls
		return true
	}
	switch r {
	case 0x200b, 0xfeff, 0x115f, 0x1160, 0x3164, 0xffa0:
		return true
	case 0x2028, 0x2029: // line and paragraph separators
		return !multiline
	}
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2060 && r <= 0x2064) || (r >= 0x2066 && r <= 0x206f) ||
		(r >= 0xfff9 && r <= 0xfffb)
}

// controlDetail is the detail of a text member holding a character TextAllowed refuses.
const controlDetail = "must not contain control, bidirectional-override or invisible characters"

func (c checker) textField(name string, f Field[string], required bool, minLen, maxLen int, multiline bool) (string, Presence) {
	if !c.decoded(f.Complaint, f.State) {
		return "", Invalid
	}
	if f.State != Present {
		if required {
			c.fail(name, "required", "is required")
		}
		return "", f.State
	}
	s := strings.TrimSpace(f.Value)
	n := utf8.RuneCountInString(s)
	switch {
	case n == 0 && minLen > 0:
		c.fail(name, "required", "is required")
		return s, Invalid
	case !TextAllowed(s, multiline):
		c.fail(name, "invalid_format", controlDetail)
		return s, Invalid
	case n < minLen:
		c.fail(name, "too_short", "must be at least "+strconv.Itoa(minLen)+" characters")
		return s, Invalid
	case maxLen > 0 && n > maxLen:
		c.fail(name, "too_long", "must be at most "+strconv.Itoa(maxLen)+" characters")
		return s, Invalid
	}
	return s, Present
}

// enum checks a string member that must be one of allowed.
func (c checker) enum(name string, f Field[string], required bool, allowed ...string) (string, Presence) {
	s, p := c.str(name, f, required, 0, 0)
	if p == Present && !slices.Contains(allowed, s) {
		c.fail(name, "invalid_value", "must be one of "+strings.Join(allowed, ", "))
		return s, Invalid
	}
	return s, p
}

// integer checks a number member: an integer within [lo, hi].
func (c checker) integer(name string, f Field[json.Number], required bool, lo, hi int64) (int64, Presence) {
	if !c.decoded(f.Complaint, f.State) {
		return 0, Invalid
	}
	if f.State != Present {
		if required {
			c.fail(name, "required", "is required")
		}
		return 0, f.State
	}
	outOfRange := "must be between " + strconv.FormatInt(lo, 10) + " and " + strconv.FormatInt(hi, 10)
	v, err := f.Value.Int64()
	if err != nil {
		if _, ferr := f.Value.Float64(); ferr == nil && !strings.ContainsAny(string(f.Value), ".eE") {
			c.fail(name, "out_of_range", outOfRange) // an integer, beyond int64
		} else {
			c.fail(name, "invalid_value", "must be an integer")
		}
		return 0, Invalid
	}
	if v < lo || v > hi {
		c.fail(name, "out_of_range", outOfRange)
		return v, Invalid
	}
	return v, Present
}

// strings checks an array of strings: at most maxItems, each trimmed, 1..maxLen characters.
func (c checker) strings(name string, f Field[[]string], maxItems, maxLen int) ([]string, Presence) {
	if !c.decoded(f.Complaint, f.State) {
		return nil, Invalid
	}
	if f.State != Present {
		return nil, f.State
	}
	if len(f.Value) > maxItems {
		c.fail(name, "too_long", "must have at most "+strconv.Itoa(maxItems)+" items")
		return nil, Invalid
	}
	list := make([]string, len(f.Value))
	ok := true
	for i, s := range f.Value {
		s = strings.TrimSpace(s)
		list[i] = s
		n := utf8.RuneCountInString(s)
		if n == 0 {
			c.failItem(name, i, "too_short", "must not be empty")
			ok = false
		} else if !TextAllowed(s, false) {
			c.failItem(name, i, "invalid_format", controlDetail)
			ok = false
		} else if n > maxLen {
			c.failItem(name, i, "too_long", "must be at most "+strconv.Itoa(maxLen)+" characters")
			ok = false
		}
	}
	if !ok {
		return nil, Invalid
	}
	return list, Present
}

// boolean reads a boolean member (its JSON type is all there is to check).
func (c checker) boolean(f Field[bool]) (bool, Presence) {
	if !c.decoded(f.Complaint, f.State) {
		return false, Invalid
	}
	return f.Value, f.State
}

// id checks a member that must be an id with the prefix ("pat", …): invalid_format otherwise.
func (c checker) id(name string, f Field[string], prefix string, required bool) string {
	v, p := c.str(name, f, required, 0, 0)
	if p != Present {
		return ""
	}
	if !wire.IsID(v, prefix) {
		c.fail(name, "invalid_format", "must be a "+prefix+"_ id")
		return ""
	}
	return v
}

// instant checks an RFC 3339 timestamp member, normalized to UTC seconds (docs/protocol.md §2).
func (c checker) instant(name string, f Field[string], required bool) (*time.Time, Presence) {
	if !c.decoded(f.Complaint, f.State) {
		return nil, Invalid
	}
	if f.State != Present {
		if required {
			c.fail(name, "required", "is required")
		}
		return nil, f.State
	}
	t, err := time.Parse(time.RFC3339, f.Value)
	if err != nil {
		c.fail(name, "invalid_format", "must be an RFC 3339 timestamp such as 2026-11-22T14:03:00Z")
		return nil, Invalid
	}
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		c.fail(name, "out_of_range", "must be between the years 0001 and 9999 in UTC")
		return nil, Invalid
	}
	t = wire.Time(t)
	return &t, Present
}

// optional returns &v when the member was present or null (null clears: v is ""), else nil.
func optional(v string, p Presence) *string {
	if p == Present || p == Null {
		return &v
	}
	return nil
}

// changes returns the change that applies each of sets in order: what a checked merge patch
// (or create) does to its record.
func changes[T any](sets []func(*T)) func(*T) {
	return func(x *T) {
		for _, s := range sets {
			s(x)
		}
	}
}

// item is an object of an array member, with its JSON Pointer.
type item[T any] struct {
	pointer string
	value   T
}

// objects checks an array of objects of minItems..maxItems items and returns the items to
// check (those the decoder did not reject). Absent or null is "required" when required; too few
// or too many items are too_short / too_long, and then no item is looked at.
func objects[T any](c checker, name string, f Field[[]Field[T]], required bool, minItems, maxItems int) []item[T] {
	if !c.decoded(f.Complaint, f.State) {
		return nil
	}
	if f.State != Present {
		if required {
			c.fail(name, "required", "is required")
		}
		return nil
	}
	if len(f.Value) < minItems {
		c.fail(name, "too_short", "must have at least "+strconv.Itoa(minItems)+" items")
		return nil
	}
	if len(f.Value) > maxItems {
		c.fail(name, "too_long", "must have at most "+strconv.Itoa(maxItems)+" items")
		return nil
	}
	out := make([]item[T], 0, len(f.Value))
	for i, e := range f.Value {
		if c.decoded(e.Complaint, e.State) {
			out = append(out, item[T]{pointer: c.pointer(name) + "/" + strconv.Itoa(i), value: e.Value})
		}
	}
	return out
}
