package client

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Validator is implemented by values that can tell whether they can be sent as they are: the
// SDK's closed sets of values (statuses, sort orders, report names, …) and composite values such
// as a report filter. Before a call sends anything, the call path looks for Validators in its
// params (struct fields, pointers, slices, Optional values) and refuses the call with the first
// error one returns, which wraps ErrInvalidArgument. A Validator's error never quotes the value.
type Validator interface {
	Validate() error
}

// CheckEnum is the Validate method of the SDK's closed sets: nil for the zero value (not set)
// and for the known values; otherwise an error wrapping ErrInvalidArgument that names the type
// and lists the known values (the value itself is not quoted: errors stay free of request data).
func CheckEnum[T ~string](v T, known ...T) error {
	if v == "" || slices.Contains(known, v) {
		return nil
	}
	names := make([]string, len(known))
	for i, k := range known {
		names[i] = string(k)
	}
	return fmt.Errorf("%w: %T is not one of %s", ErrInvalidArgument, v, strings.Join(names, ", "))
}

// Sort is the order of a list that can be reversed (patients, invoices, products): by
// (createdAt, id), ascending or descending.
type Sort string

// Sort orders (docs/protocol.md §3).
const (
	SortCreatedAsc  Sort = "createdAt"
	SortCreatedDesc Sort = "-createdAt"
)

// Validate refuses a Sort other than SortCreatedAsc and SortCreatedDesc (ErrInvalidArgument).
func (s Sort) Validate() error { return CheckEnum(s, SortCreatedAsc, SortCreatedDesc) }

// checkParams runs the Validators in params and returns the first failure, naming where it was
// found (patients.ListParams.Sort): ErrInvalidArgument, before anything is sent.
func checkParams(params any) error {
	if params == nil {
		return nil
	}
	v := reflect.ValueOf(params)
	if !mayHoldValidator(v.Type()) {
		return nil
	}
	name := strings.TrimPrefix(v.Type().String(), "*")
	return walkParams(v, name, 0)
}

// maxParamsDepth bounds the walk: params are shallow trees; deeper values are not looked at.
const maxParamsDepth = 8

var (
	validatorType = reflect.TypeFor[Validator]()
	timeType      = reflect.TypeFor[time.Time]()
)

func walkParams(v reflect.Value, where string, depth int) error {
	if depth > maxParamsDepth || !v.IsValid() {
		return nil
	}
	// An embedded struct of an unexported type cannot be looked at as a whole; its exported
	// fields, which encoders promote, can.
	interfaceable := v.CanInterface()
	indirect := v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface // checked at what they hold
	if interfaceable && !indirect && v.Type().Implements(validatorType) {
		if err := v.Interface().(Validator).Validate(); err != nil {
			reason := strings.TrimPrefix(err.Error(), ErrInvalidArgument.Error()+": ")
			if !errors.Is(err, ErrInvalidArgument) {
				err = errors.Join(ErrInvalidArgument, err)
			}
			return &callError{msg: ErrInvalidArgument.Error() + ": " + where + ": " + reason, err: err}
		}
	}
	if !interfaceable {
		if v.Kind() == reflect.Struct {
			return walkFields(v, where, depth)
		}
		return nil
	}
	if o, ok := optionalValue(v); ok {
		return walkParams(o, where, depth+1)
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return walkParams(v.Elem(), where, depth+1)
		}
	case reflect.Struct:
		if v.Type() == timeType {
			return nil
		}
		return walkFields(v, where, depth)
	case reflect.Slice, reflect.Array:
		if !mayHoldValidator(v.Type().Elem()) {
			return nil
		}
		for i := range v.Len() {
			if err := walkParams(v.Index(i), where+"["+strconv.Itoa(i)+"]", depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// walkFields walks the exported fields of a struct and the structs it embeds.
func walkFields(v reflect.Value, where string, depth int) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !visible(f) || !mayHoldValidator(f.Type) {
			continue
		}
		at := where + "." + f.Name
		if f.Anonymous {
			at = where
		}
		if err := walkParams(v.Field(i), at, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// visible reports a field an encoder sees: exported, or an embedded struct (whose exported
// fields are promoted).
func visible(f reflect.StructField) bool {
	return f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct
}

// optionalValue returns the value an Optional sets, if v is one that sets a value.
func optionalValue(v reflect.Value) (reflect.Value, bool) {
	o, ok := v.Interface().(interface{ setValue() (any, bool) })
	if !ok {
		return reflect.Value{}, false
	}
	x, set := o.setValue()
	if !set {
		return reflect.Value{}, true
	}
	return reflect.ValueOf(x), true
}

// holders caches, per type, whether a value of it can hold a Validator anywhere within, so that
// params without any (most of them) cost one map lookup.
var holders sync.Map // reflect.Type → bool

// mayHoldValidator reports whether a value of t may be or contain a Validator. Interfaces and
// Optionals may hold anything, so they count.
func mayHoldValidator(t reflect.Type) bool {
	if v, ok := holders.Load(t); ok {
		return v.(bool)
	}
	may := holdsValidator(t, 0)
	holders.Store(t, may)
	return may
}

func holdsValidator(t reflect.Type, depth int) bool {
	if depth > maxParamsDepth {
		return false
	}
	if t.Implements(validatorType) {
		return true
	}
	if _, ok := reflect.Zero(t).Interface().(interface{ setValue() (any, bool) }); ok {
		f, _ := t.FieldByName("value") // Optional[T]'s T
		return holdsValidator(f.Type, depth+1)
	}
	switch t.Kind() {
	case reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsValidator(t.Elem(), depth+1)
	case reflect.Struct:
		if t == timeType {
			return false
		}
		for i := range t.NumField() {
			if f := t.Field(i); visible(f) && holdsValidator(f.Type, depth+1) {
				return true
			}
		}
	}
	return false
}
