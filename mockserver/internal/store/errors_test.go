package store

import (
	"errors"
	"net/http"
	"testing"

	"github.com/medspa/medspa-go/internal/wire"
)

// problemView is what the HTTP layer answers for a store error, for assertions: the status
// (from internal/wire's table), the code, the extra members and the field errors.
type problemView struct {
	Status int
	Code   string
	Extra  map[string]any
	Errors []FieldError
}

func (p problemView) String() string { return http.StatusText(p.Status) + " " + p.Code }

// asProblem reads a store error as its problem; it fails t on any other error.
func asProblem(t *testing.T, err error) problemView {
	t.Helper()
	p, ok := viewOf(err)
	if !ok {
		t.Fatalf("want a store error, got %v", err)
	}
	return p
}

func viewOf(err error) (problemView, bool) {
	var (
		nf *NotFoundError
		ve *ValidationError
		re *RuleError
	)
	switch {
	case errors.As(err, &nf):
		return problemView{Status: http.StatusNotFound, Code: "not_found"}, true
	case errors.As(err, &ve):
		return problemView{Status: http.StatusUnprocessableEntity, Code: "validation_error", Errors: ve.Fields}, true
	case errors.As(err, &re):
		c, _ := wire.LookupCode(re.Code)
		return problemView{Status: c.Status, Code: re.Code, Extra: re.Members}, true
	}
	return problemView{}, false
}

// The store's errors match their sentinel and read as what they are, with no request data.
func TestErrors(t *testing.T) {
	t.Parallel()
	nf := NotFound("patient")
	if !errors.Is(nf, ErrNotFound) || nf.Error() != "patient not found" {
		t.Errorf("NotFound: %v, Is %t", nf, errors.Is(nf, ErrNotFound))
	}
	if errors.Is(InvalidField("/x", "required", "is required"), ErrNotFound) {
		t.Error("a validation error matches ErrNotFound")
	}
	var fe FieldErrors
	if fe.Err() != nil {
		t.Error("no field errors, yet an error")
	}
	fe.Add("/a", "required", "is required")
	if got := fe.Err().Error(); got != "1 field is invalid" {
		t.Errorf("one field: %q", got)
	}
	fe.Add("/b", "too_long", "must be at most 5 characters")
	var ve *ValidationError
	if err := fe.Err(); !errors.As(err, &ve) || len(ve.Fields) != 2 || err.Error() != "2 fields are invalid" {
		t.Errorf("two fields: %v", err)
	}
	re := insufficient(3)
	if re.Error() != "insufficient_stock: not enough stock on hand" || re.Members["available"] != int64(3) {
		t.Errorf("rule error: %v %v", re, re.Members)
	}
	for _, code := range []string{"appointment_conflict", "invalid_state_transition", "appointment_locked", "insufficient_stock",
		"duplicate_sku", "invoice_not_payable", "amount_exceeds_balance", "card_declined"} {
		if _, ok := wire.LookupCode(code); !ok {
			t.Errorf("the store's code %s is not in internal/wire's table", code)
		}
	}
}
