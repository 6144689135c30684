package httpapi

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// Request bodies are decoded here, and only here: strict JSON (one object, valid UTF-8, no
// duplicate keys, bounded depth: 400 otherwise), unknown members, values of the wrong JSON type,
// and absent versus null (a merge patch's "clear it"). What a value must be — its length,
// format, range, and how it goes with the others — is the store's to check: handlers pass the
// decoded input (store.PatientInput, …) on, and so do fixtures (admin.go's Create).

// form is a JSON object body whose members are decoded one by one into a store input.
type form struct {
	obj    map[string]json.RawMessage
	prefix string // the object's JSON Pointer ("" for the body)
	// extra are the body's findings of strict mode (the body's form only): its members take
	// them to the store, which lists them with its own.
	extra store.FieldErrors
}

// form decodes the request's body (bodyForm), carrying strict mode's findings about it to the
// store's validation.
func (rq *request) form() (*form, error) {
	var extra store.FieldErrors
	if rq.schema != nil {
		extra, rq.schema.consumed = rq.schema.errs, true
	}
	return bodyForm(rq.body, extra)
}

// bodyForm decodes body as one JSON object: valid UTF-8, no duplicate keys, bounded depth;
// anything else is 400 malformed_json. extra are an outer validator's findings about it (nil
// but in strict mode), which the body's members hand to the store.
func bodyForm(body []byte, extra store.FieldErrors) (*form, error) {
	malformed := func(detail string) error { return problem.New("malformed_json", detail) }
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, malformed("the request body must be a JSON object")
	}
	if !utf8.Valid(body) {
		return nil, malformed("the request body is not valid UTF-8")
	}
	if err := checkJSON(body); err != nil {
		return nil, malformed(err.Error())
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		return nil, malformed("the request body must be a JSON object")
	}
	return &form{obj: obj, extra: extra}, nil
}

// optionalBody decodes the body of a request whose body is optional (a bare POST): no body is
// the zero input, as if every member were absent.
func optionalBody[In any](rq *request, decode func(*form) In) (In, error) {
	var in In
	if len(rq.body) == 0 {
		return in, nil
	}
	f, err := rq.form()
	if err != nil {
		return in, err
	}
	return decode(f), nil
}

func (f *form) pointer(name string) string { return f.prefix + "/" + store.EscapePointer(name) }

// members reports the object's members that are not among names: unknown_field each, sorted
// so answers are stable.
func (f *form) members(names ...string) store.Members {
	m := store.Members{Extra: f.extra}
	for _, k := range unknownKeys(f.obj, names) {
		m.Unknown.Add(f.pointer(k), "unknown_field", "is not a field of this request")
	}
	return m
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

// member decodes member name into T: absent, null, or a value; a value of another JSON type is
// rejected with invalid_value "must be <want>".
func member[T any](f *form, name, want string) store.Field[T] {
	var v T
	raw, ok := f.obj[name]
	switch {
	case !ok:
		return store.Field[T]{}
	case string(raw) == "null":
		return store.Field[T]{State: store.Null}
	case json.Unmarshal(raw, &v) != nil:
		return rejected[T](f, name, want)
	}
	return store.Given(v)
}

func (f *form) str(name string) store.Field[string]  { return member[string](f, name, "a string") }
func (f *form) date(name string) store.Field[string] { return member[string](f, name, "a date string") }
func (f *form) instant(name string) store.Field[string] {
	return member[string](f, name, "an RFC 3339 timestamp")
}
func (f *form) strs(name string) store.Field[[]string] {
	return member[[]string](f, name, "an array of strings")
}
func (f *form) boolean(name string) store.Field[bool] { return member[bool](f, name, "a boolean") }

// number decodes a member that must be a JSON number (a string holding one is not); whether it
// is an integer in range is the store's to say.
func (f *form) number(name string) store.Field[json.Number] {
	raw, ok := f.obj[name]
	if !ok || string(raw) == "null" {
		return member[json.Number](f, name, "an integer")
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil || raw[0] == '"' {
		return rejected[json.Number](f, name, "an integer")
	}
	return store.Given(n)
}

// rejected is a member of the wrong JSON type.
func rejected[T any](f *form, name, want string) store.Field[T] {
	return store.Field[T]{State: store.Invalid,
		Complaint: &store.FieldError{Pointer: f.pointer(name), Code: "invalid_value", Detail: "must be " + want}}
}

// object decodes an object member with decode (its members under the member's pointer).
func object[T any](f *form, name string, decode func(*form) T) store.Field[T] {
	raw := member[json.RawMessage](f, name, "an object")
	if raw.State != store.Present {
		return store.Field[T]{State: raw.State}
	}
	o, ok := f.nested(raw.Value, f.pointer(name))
	if !ok {
		return rejected[T](f, name, "an object")
	}
	return store.Given(decode(o))
}

// objects decodes an array of objects, each item with decode; an item that is not an object is
// rejected in its place.
func objects[T any](f *form, name string, decode func(*form) T) store.Field[[]store.Field[T]] {
	list := member[[]json.RawMessage](f, name, "an array of objects")
	out := store.Field[[]store.Field[T]]{State: list.State, Complaint: list.Complaint}
	if list.State != store.Present {
		return out
	}
	out.Value = make([]store.Field[T], len(list.Value))
	for i, raw := range list.Value {
		ptr := f.pointer(name) + "/" + itoa(i)
		if o, ok := f.nested(raw, ptr); ok {
			out.Value[i] = store.Given(decode(o))
		} else {
			out.Value[i] = store.Field[T]{State: store.Invalid,
				Complaint: &store.FieldError{Pointer: ptr, Code: "invalid_value", Detail: "must be an object"}}
		}
	}
	return out
}

// nested returns the form of a raw object at pointer, or false when raw is not an object.
func (f *form) nested(raw json.RawMessage, pointer string) (*form, bool) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, false
	}
	return &form{obj: obj, prefix: pointer}, true
}

// fromRequest decodes the request's body with decode and hands the input to create: a POST of
// the API.
func fromRequest[In, Out any](rq *request, decode func(*form) In, create func(In, time.Time) (Out, error)) (Out, error) {
	f, err := rq.form()
	if err != nil {
		var zero Out
		return zero, err
	}
	return create(decode(f), time.Time{})
}
