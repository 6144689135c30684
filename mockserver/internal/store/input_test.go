package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// fields returns the field errors of err as "pointer code detail", in order.
func fields(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want a ValidationError, got %v", err)
	}
	out := make([]string, len(ve.Fields))
	for i, f := range ve.Fields {
		out[i] = f.Pointer + " " + f.Code + " " + f.Detail
	}
	return out
}

func complaint(ptr, want string) *FieldError {
	return &FieldError{Pointer: ptr, Code: "invalid_value", Detail: "must be " + want}
}

func TestCheckerStr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		f        Field[string]
		required bool
		min, max int
		want     string
		state    Presence
		errs     []string
	}{
		{"absent", Field[string]{}, false, 1, 5, "", Absent, nil},
		{"absent required", Field[string]{}, true, 1, 5, "", Absent, []string{"/x required is required"}},
		{"null required", Field[string]{State: Null}, true, 1, 5, "", Null, []string{"/x required is required"}},
		{"null", Field[string]{State: Null}, false, 0, 5, "", Null, nil},
		{"trimmed", Given("  ab  "), true, 1, 5, "ab", Present, nil},
		{"blank is missing", Given("   "), false, 1, 5, "", Invalid, []string{"/x required is required"}},
		{"blank allowed", Given("   "), false, 0, 5, "", Present, nil},
		{"short", Given("a"), false, 2, 5, "a", Invalid, []string{"/x too_short must be at least 2 characters"}},
		{"long in runes", Given("éééééé"), false, 0, 5, "éééééé", Invalid, []string{"/x too_long must be at most 5 characters"}},
		{"five runes", Given("ééééé"), false, 0, 5, "ééééé", Present, nil},
		{"no limit", Given(strings.Repeat("x", 1000)), false, 0, 0, strings.Repeat("x", 1000), Present, nil},
		{"rejected", Field[string]{State: Invalid, Complaint: complaint("/x", "a string")}, true, 1, 5, "", Invalid,
			[]string{"/x invalid_value must be a string"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newChecker()
			got, state := c.str("x", tc.f, tc.required, tc.min, tc.max)
			if got != tc.want || state != tc.state {
				t.Errorf("str = %q, %d; want %q, %d", got, state, tc.want, tc.state)
			}
			if diff := cmp.Diff(tc.errs, fields(t, c.done())); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckerInteger(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    string
		want  int64
		state Presence
		errs  []string
	}{
		{"5", 5, Present, nil},
		{"0", 0, Invalid, []string{"/n out_of_range must be between 1 and 10"}},
		{"11", 11, Invalid, []string{"/n out_of_range must be between 1 and 10"}},
		{"1.5", 0, Invalid, []string{"/n invalid_value must be an integer"}},
		{"1e1", 0, Invalid, []string{"/n invalid_value must be an integer"}},
		{"99999999999999999999", 0, Invalid, []string{"/n out_of_range must be between 1 and 10"}},
		{"-99999999999999999999", 0, Invalid, []string{"/n out_of_range must be between 1 and 10"}},
	} {
		c := newChecker()
		got, state := c.integer("n", Given(json.Number(tc.in)), true, 1, 10)
		if got != tc.want || state != tc.state {
			t.Errorf("%s: integer = %d, %d; want %d, %d", tc.in, got, state, tc.want, tc.state)
		}
		if diff := cmp.Diff(tc.errs, fields(t, c.done())); diff != "" {
			t.Errorf("%s: errors (-want +got):\n%s", tc.in, diff)
		}
	}
	c := newChecker()
	if _, state := c.integer("n", Field[json.Number]{State: Null}, true, 1, 10); state != Null ||
		!cmp.Equal(fields(t, c.done()), []string{"/n required is required"}) {
		t.Errorf("null required: %d %v", state, c.done())
	}
}

func TestCheckerStrings(t *testing.T) {
	t.Parallel()
	c := newChecker()
	got, state := c.strings("tags", Given([]string{" a ", "b"}), 2, 3)
	if state != Present || !cmp.Equal(got, []string{"a", "b"}) || c.done() != nil {
		t.Errorf("valid list: %q %d %v", got, state, c.done())
	}
	c = newChecker()
	if _, state := c.strings("tags", Given([]string{"a", "b", "c"}), 2, 3); state != Invalid ||
		!cmp.Equal(fields(t, c.done()), []string{"/tags too_long must have at most 2 items"}) {
		t.Errorf("too many: %v", c.done())
	}
	c = newChecker()
	c.strings("tags", Given([]string{" ", "long"}), 2, 3)
	if diff := cmp.Diff([]string{"/tags/0 too_short must not be empty", "/tags/1 too_long must be at most 3 characters"}, fields(t, c.done())); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

// Every invalid field is listed at once, in the order of the protocol's field table, the
// decoder's complaints in their places and unknown members first.
func TestCheckPatientListsEveryFieldInOrder(t *testing.T) {
	t.Parallel()
	today := client.NewDate(2026, time.November, 22)
	in := PatientInput{
		Members:     Members{Unknown: FieldErrors{{"/zzz", "unknown_field", "is not a field of this request"}}},
		FirstName:   Given(""),
		LastName:    Field[string]{State: Invalid, Complaint: complaint("/lastName", "a string")},
		Email:       Given("not-an-email"),
		Phone:       Given("+1555123456789012"),
		DateOfBirth: Given("2027-01-01"),
		Gender:      Given("robot"),
		Address: Given(AddressInput{
			Members: Members{Unknown: FieldErrors{{"/address/zip", "unknown_field", "is not a field of this request"}}},
			Line1:   Given(strings.Repeat("x", 201)), Country: Given("usa"),
		}),
		Allergies: Given(make([]string, 51)),
		Tags:      Field[[]string]{State: Invalid, Complaint: complaint("/tags", "an array of strings")},
	}
	_, err := checkPatient(in, false, today)
	want := []string{
		"/zzz unknown_field is not a field of this request",
		"/firstName required is required",
		"/lastName invalid_value must be a string",
		"/email invalid_format must be an email address",
		"/phone too_long must be at most 16 characters",
		"/dateOfBirth out_of_range must not be in the future",
		"/gender invalid_value must be one of female, male, other, unknown",
		"/address/zip unknown_field is not a field of this request",
		"/address/line1 too_long must be at most 200 characters",
		"/address/country too_long must be at most 2 characters",
		"/allergies too_long must have at most 50 items",
		"/tags invalid_value must be an array of strings",
	}
	if diff := cmp.Diff(want, fields(t, err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// In a patch, null on a required field comes first; absent fields are fine.
	_, err = checkPatient(PatientInput{Email: Field[string]{State: Null}, Phone: Given("12")}, true, today)
	want = []string{"/email required is required and cannot be null", "/phone invalid_format must be an E.164 number such as +15551234567"}
	if diff := cmp.Diff(want, fields(t, err)); diff != "" {
		t.Errorf("patch (-want +got):\n%s", diff)
	}
}

// PatientInputOf round-trips a valid patient through validation.
func TestPatientInputOf(t *testing.T) {
	t.Parallel()
	p := patients.Patient{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com", Phone: "+15551234567",
		DateOfBirth: client.NewDate(1980, time.February, 29), Gender: patients.GenderFemale,
		Address:   &patients.Address{Line1: "1 Main", Country: "US"},
		Allergies: []string{"latex"}, Notes: "n", Tags: []string{"vip"}}
	change, err := checkPatient(PatientInputOf(p), false, client.NewDate(2026, time.November, 22))
	if err != nil {
		t.Fatal(err)
	}
	var got patients.Patient
	change(&got)
	if diff := cmp.Diff(p, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCheckInvoiceLineItems(t *testing.T) {
	t.Parallel()
	items := Given([]Field[LineItemInput]{
		{State: Invalid, Complaint: &FieldError{"/lineItems/0", "invalid_value", "must be an object"}},
		Given(LineItemInput{Members: Members{Unknown: FieldErrors{{"/lineItems/1/x", "unknown_field", "is not a field of this request"}}},
			Quantity: Given(json.Number("0"))}),
		Given(LineItemInput{Description: Given("d"), Quantity: Given(json.Number("1")), ProductID: Given("prd_x")}),
	})
	_, err := checkInvoice(InvoiceInput{PatientID: Given("pat_00000000000000000000000000000000"), LineItems: items})
	want := []string{
		"/lineItems/0 invalid_value must be an object",
		"/lineItems/1/x unknown_field is not a field of this request",
		"/lineItems/1/description required is required",
		"/lineItems/1/quantity out_of_range must be between 1 and 10000",
		"/lineItems/1/unitAmount required is required",
		"/lineItems/2/productId invalid_format must be a prd_ id",
	}
	if diff := cmp.Diff(want, fields(t, err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Too many items: the count is the finding, not the items.
	many := make([]Field[LineItemInput], 101)
	_, err = checkInvoice(InvoiceInput{PatientID: Given("pat_00000000000000000000000000000000"), LineItems: Given(many)})
	if diff := cmp.Diff([]string{"/lineItems too_long must have at most 100 items"}, fields(t, err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCheckAdjustmentSigns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		reason, delta string
		errs          []string
	}{
		{"received", "5", nil},
		{"received", "-5", []string{"/delta invalid_value must be positive for reason received"}},
		{"sale", "5", []string{"/delta invalid_value must be negative for reason sale"}},
		{"correction", "-5", nil},
		{"correction", "0", []string{"/delta invalid_value must not be zero"}},
		{"used", "1000001", []string{"/delta out_of_range must be between -1000000 and 1000000"}},
	} {
		_, err := checkAdjustment(AdjustmentInput{ProductID: Given("prd_00000000000000000000000000000000"),
			Reason: Given(tc.reason), Delta: Given(json.Number(tc.delta))})
		if diff := cmp.Diff(tc.errs, fields(t, err)); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tc.reason, tc.delta, diff)
		}
	}
}

func TestCheckWebhookEventsAndURL(t *testing.T) {
	t.Parallel()
	st := New(Options{WebhookURLs: func(_ context.Context, u string) (string, string) {
		if strings.Contains(u, "10.") {
			return "invalid_value", "must not be a private address"
		}
		return "", ""
	}})
	a := st.Account("acct_w")
	for _, tc := range []struct {
		in   WebhookInput
		errs []string
	}{
		{WebhookInputOf(webhooks.Endpoint{URL: "https://127.0.0.1/h", Events: []webhooks.EventType{webhooks.EventAll}}), nil},
		{WebhookInputOf(webhooks.Endpoint{URL: "http://10.0.0.1/h", Events: []webhooks.EventType{"patient.created", "patient.created", "nope", "*"}}),
			[]string{"/url invalid_value must not be a private address", "/events/1 invalid_value is listed twice",
				"/events/2 invalid_value must be a known event type or \"*\"", "/events/3 invalid_value \"*\" must be the only entry"}},
		{WebhookInput{URL: Given(""), Events: Given([]string{})}, []string{"/url required is required", "/events too_short must list at least one event type"}},
		{WebhookInput{}, []string{"/url required is required", "/events required is required"}},
	} {
		_, err := a.checkWebhook(context.Background(), tc.in, false)
		if diff := cmp.Diff(tc.errs, fields(t, err)); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tc.in, diff)
		}
	}
}
