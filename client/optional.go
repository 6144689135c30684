package client

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
)

// Optional is a field of an update (JSON Merge Patch, RFC 7396): left zero it is absent and the
// field is unchanged; Set(v) sets it; Null() clears an optional field. Tag such fields
// `json:"name,omitzero"`.
type Optional[T any] struct {
	value T
	set   bool
	null  bool
}

// Set returns an Optional that sets the field to v.
func Set[T any](v T) Optional[T] { return Optional[T]{value: v, set: true} }

// Null returns an Optional that clears the field (sends JSON null).
func Null[T any]() Optional[T] { return Optional[T]{null: true} }

// IsZero reports an absent field, so `omitzero` leaves it out of the patch.
func (o Optional[T]) IsZero() bool { return !o.set && !o.null }

// IsNull reports whether the field is to be cleared.
func (o Optional[T]) IsNull() bool { return o.null }

// Get returns the value to set and whether there is one.
func (o Optional[T]) Get() (T, bool) { return o.value, o.set }

// setValue is Get for the params check (validate.go), which cannot name T.
func (o Optional[T]) setValue() (any, bool) { return o.value, o.set }

// MarshalJSON writes the value, or null. A time.Time is written as the protocol writes
// timestamps: UTC, "Z", whole seconds (docs/protocol.md §2).
func (o Optional[T]) MarshalJSON() ([]byte, error) {
	if !o.set {
		return []byte("null"), nil
	}
	if t, ok := any(o.value).(time.Time); ok {
		return json.Marshal(wire.FormatTime(t))
	}
	return json.Marshal(o.value)
}

// UnmarshalJSON reads a value, or null.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*o = Null[T]()
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*o = Set(v)
	return nil
}

// Ptr returns a pointer to v, for optional fields of create params (billing.LineItemParams's
// UnitAmount, inventory.ProductCreateParams's Active, …).
func Ptr[T any](v T) *T { return &v }
