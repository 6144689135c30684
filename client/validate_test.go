package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/medspa/medspa-go/client"
)

// color is a closed set, as the areas' statuses are.
type color string

func (c color) Validate() error { return client.CheckEnum(c, "red", "green") }

// pair is a composite value with its own rule.
type pair struct{ A, B string }

func (p pair) Validate() error {
	if p.A == p.B {
		return fmt.Errorf("%w: pair of equal halves", client.ErrInvalidArgument)
	}
	return nil
}

type inner struct {
	Colors []color `json:"colors,omitempty" url:"colors,omitempty"`
}

type walked struct {
	inner
	Color   color                  `json:"color,omitempty" url:"color,omitempty"`
	Ptr     *color                 `json:"ptr,omitempty" url:"ptr,omitempty"`
	Patch   client.Optional[color] `json:"patch,omitzero"`
	Pairs   []pair                 `json:"pairs,omitempty"`
	Any     any                    `json:"any,omitempty"`
	private color
}

// TestParamsValidatedBeforeTheWire: a Validator anywhere in params — a field, an embedded
// struct's slice, a pointer, an Optional, a slice element, an interface — that fails refuses
// the call with ErrInvalidArgument, naming where, never quoting the value, and sends nothing.
// Zero values, nil pointers, absent Optionals and unexported fields are not checked.
func TestParamsValidatedBeforeTheWire(t *testing.T) {
	t.Parallel()
	blue := color("blue")
	green := color("green")
	for _, tc := range []struct {
		name   string
		params walked
		where  string // "" for a call that goes through
	}{
		{"zero", walked{}, ""},
		{"known values", walked{Color: "red", Ptr: &green, Patch: client.Set(color("green")), Pairs: []pair{{"a", "b"}},
			inner: inner{Colors: []color{"red", "green"}}}, ""},
		{"null patch", walked{Patch: client.Null[color]()}, ""},
		{"unexported", walked{private: "blue"}, ""},
		{"field", walked{Color: "blue"}, "client_test.walked.Color: client_test.color is not one of red, green"},
		{"embedded slice", walked{inner: inner{Colors: []color{"red", "blue"}}}, "client_test.walked.Colors[1]"},
		{"pointer", walked{Ptr: &blue}, "client_test.walked.Ptr"},
		{"optional", walked{Patch: client.Set(color("blue"))}, "client_test.walked.Patch"},
		{"composite", walked{Pairs: []pair{{"a", "b"}, {"c", "c"}}}, "client_test.walked.Pairs[1]: pair of equal halves"},
		{"interface", walked{Any: color("blue")}, "client_test.walked.Any"},
	} {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			t.Run(tc.name+" "+method, func(t *testing.T) {
				t.Parallel()
				e, mt := mocked(t)
				mt.RegisterNoResponder(httpmock.NewStringResponder(200, `{}`))
				_, _, err := client.Call[obj](context.Background(), e, method, client.Path("things"), &tc.params)
				if tc.where == "" {
					if err != nil || mt.GetTotalCallCount() != 1 {
						t.Fatalf("err %v, %d calls", err, mt.GetTotalCallCount())
					}
					return
				}
				if !errors.Is(err, client.ErrInvalidArgument) || mt.GetTotalCallCount() != 0 {
					t.Fatalf("err %v, %d calls; want ErrInvalidArgument before the wire", err, mt.GetTotalCallCount())
				}
				if msg := err.Error(); !strings.HasPrefix(msg, "medspa: invalid argument: ") || !strings.Contains(msg, tc.where) || strings.Contains(msg, "blue") {
					t.Errorf("message %q, want one naming %q without the value", msg, tc.where)
				}
			})
		}
	}

	// All refuses before its first page; url.Values and maps are not walked.
	e, mt := mocked(t)
	mt.RegisterNoResponder(httpmock.NewStringResponder(200, `{"data":[],"meta":{"total":0,"page":1,"perPage":25}}`))
	for _, err := range client.All[obj](context.Background(), e, client.Path("things"), &walked{Color: "blue"}) {
		if !errors.Is(err, client.ErrInvalidArgument) {
			t.Errorf("All: %v", err)
		}
	}
	if _, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("things"), url.Values{"color": {"blue"}}); err != nil {
		t.Errorf("url.Values: %v", err)
	}
	if n := mt.GetTotalCallCount(); n != 1 {
		t.Errorf("%d calls, want only the url.Values one", n)
	}
}

func TestCheckEnumAndSort(t *testing.T) {
	t.Parallel()
	for _, s := range []client.Sort{"", client.SortCreatedAsc, client.SortCreatedDesc} {
		if err := s.Validate(); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []client.Sort{"createdat", "-createdAt ", "name"} {
		err := s.Validate()
		if !errors.Is(err, client.ErrInvalidArgument) || err.Error() != "medspa: invalid argument: client.Sort is not one of createdAt, -createdAt" {
			t.Errorf("%q: %v", s, err)
		}
	}
}
