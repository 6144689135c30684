package client

import (
	"encoding"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
)

// EncodeQuery turns list or report params into a query. params is nil, url.Values, or a pointer
// to (or value of) a struct whose fields carry `url:"name[,omitempty][,repeat]"` tags; embedded
// structs (such as ListOptions) are flattened. Strings, integers, bools (and pointers to them),
// time.Time (the protocol's form: UTC, "Z", whole seconds) and encoding.TextMarshaler values are
// supported; a slice of them becomes one comma-separated value, or one parameter per element with
// ",repeat". Zero values are omitted when the tag says omitempty.
func EncodeQuery(params any) (url.Values, error) {
	q := url.Values{}
	if params == nil {
		return q, nil
	}
	if v, ok := params.(url.Values); ok {
		for k, vs := range v {
			q[k] = append([]string(nil), vs...)
		}
		return q, nil
	}
	v := reflect.ValueOf(params)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return q, nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil, fmt.Errorf("medspa: query params must be a struct, got %s", v.Type())
	}
	return q, encodeStruct(q, v)
}

func encodeStruct(q url.Values, v reflect.Value) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		fv := v.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if err := encodeStruct(q, fv); err != nil {
				return err
			}
			continue
		}
		tag := f.Tag.Get("url")
		if tag == "" || tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		omitEmpty := strings.Contains(opts, "omitempty")
		repeat := strings.Contains(opts, "repeat")
		if omitEmpty && fv.IsZero() {
			continue
		}
		for fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				break
			}
			fv = fv.Elem()
		}
		if fv.Kind() == reflect.Pointer {
			continue // a nil pointer is always "not set"
		}
		if fv.Kind() == reflect.Slice {
			parts := make([]string, fv.Len())
			for j := range parts {
				s, err := formatValue(fv.Index(j))
				if err != nil {
					return fmt.Errorf("medspa: query field %s: %w", f.Name, err)
				}
				parts[j] = s
			}
			if repeat {
				q[name] = append(q[name], parts...)
			} else if len(parts) > 0 || !omitEmpty {
				q.Set(name, strings.Join(parts, ","))
			}
			continue
		}
		s, err := formatValue(fv)
		if err != nil {
			return fmt.Errorf("medspa: query field %s: %w", f.Name, err)
		}
		q.Set(name, s)
	}
	return nil
}

func formatValue(v reflect.Value) (string, error) {
	if t, ok := v.Interface().(time.Time); ok {
		return wire.FormatTime(t), nil
	}
	if m, ok := v.Interface().(encoding.TextMarshaler); ok {
		b, err := m.MarshalText()
		return string(b), err
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), nil
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'f', -1, 64), nil
	}
	return "", fmt.Errorf("unsupported type %s", v.Type())
}
