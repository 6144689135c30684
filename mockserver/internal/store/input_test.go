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

// TestTextAllowed: the characters no text field holds, one row per class, each beside a
// neighbour that is allowed; multi-line text (notes) also takes tab and line breaks.
func TestTextAllowed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		r         rune
		oneLine   bool // allowed in a one-line field
		multiline bool // allowed in multi-line text
	}{
		{"NUL", 0x00, false, false},
		{"bell", 0x07, false, false},
		{"backspace", 0x08, false, false},
		{"tab", '\t', false, true},
		{"line feed", '\n', false, true},
		{"vertical tab", 0x0b, false, false},
		{"form feed", 0x0c, false, false},
		{"carriage return", '\r', false, true},
		{"escape", 0x1b, false, false},
		{"unit separator", 0x1f, false, false},
		{"space", ' ', true, true},
		{"tilde", '~', true, true},
		{"DEL", 0x7f, false, false},
		{"C1 padding", 0x80, false, false},
		{"C1 next line", 0x85, false, false},
		{"C1 CSI", 0x9b, false, false},
		{"C1 APC", 0x9f, false, false},
		{"no-break space", 0xa0, true, true},
		{"soft hyphen", 0xad, true, true},
		{"é", 'é', true, true},
		{"zero-width space", 0x200b, false, false},
		{"zero-width non-joiner (Persian)", 0x200c, true, true},
		{"zero-width joiner (emoji)", 0x200d, true, true},
		{"left-to-right mark", 0x200e, true, true},
		{"right-to-left mark", 0x200f, true, true},
		{"Arabic letter mark", 0x061c, true, true},
		{"LRE", 0x202a, false, false},
		{"RLE", 0x202b, false, false},
		{"PDF", 0x202c, false, false},
		{"LRO", 0x202d, false, false},
		{"RLO", 0x202e, false, false},
		{"narrow no-break space", 0x202f, true, true},
		{"word joiner", 0x2060, false, false},
		{"invisible plus", 0x2064, false, false},
		{"LRI", 0x2066, false, false},
		{"RLI", 0x2067, false, false},
		{"FSI", 0x2068, false, false},
		{"PDI", 0x2069, false, false},
		{"nominal digit shapes", 0x206f, false, false},
		{"BOM", 0xfeff, false, false},
		{"interlinear annotation anchor", 0xfff9, false, false},
		{"interlinear annotation terminator", 0xfffb, false, false},
		{"object replacement", 0xfffc, true, true},
		{"replacement character", 0xfffd, true, true},
		{"tag letter (flag emoji)", 0xe0067, true, true},
		{"Hebrew letter", 'א', true, true},
		// Issue 32: line breaks other than the ASCII ones, and invisible fillers.
		{"line separator", 0x2028, false, true},
		{"paragraph separator", 0x2029, false, true},
		{"Hangul filler", 0x3164, false, false},
		{"Hangul choseong filler", 0x115f, false, false},
		{"Hangul jungseong filler", 0x1160, false, false},
		{"halfwidth Hangul filler", 0xffa0, false, false},
		{"Hangul syllable", '한', true, true},
		{"ideographic space", 0x3000, true, true},
	} {
		s := "a" + string(tc.r) + "b"
		if got := TextAllowed(s, false); got != tc.oneLine {
			t.Errorf("%s (U+%04X) one-line: %t, want %t", tc.name, tc.r, got, tc.oneLine)
		}
		if got := TextAllowed(s, true); got != tc.multiline {
			t.Errorf("%s (U+%04X) multi-line: %t, want %t", tc.name, tc.r, got, tc.multiline)
		}
	}
}

// TestCheckerControlCharacters: a one-line member holding a control character is
// invalid_format (after trimming: surrounding blanks are not part of the value); text takes
// line breaks; list items are checked one by one.
func TestCheckerControlCharacters(t *testing.T) {
	t.Parallel()
	detail := "invalid_format must not contain control, bidirectional-override or invisible characters"
	for _, tc := range []struct {
		name string
		in   string
		text bool
		errs []string
	}{
		{"NUL in a name", "Ada\x00", false, []string{"/x " + detail}},
		{"newline in a name", "Ada\nLovelace", false, []string{"/x " + detail}},
		{"tab inside a name", "Ada\tLovelace", false, []string{"/x " + detail}},
		{"tabs around a name are trimmed", "\tAda\t", false, nil},
		{"RLO in a name", "\u202eecilA", false, []string{"/x " + detail}},
		{"DEL in a name", "Ad\x7fa", false, []string{"/x " + detail}},
		{"C1 in a name", "Ad\u0090a", false, []string{"/x " + detail}},
		{"Persian name with ZWNJ", "\u0639\u0644\u06cc\u200c\u0631\u0636\u0627", false, nil},
		{"lines in notes", "line one\r\nline two\tindented", true, nil},
		{"NUL in notes", "a\x00b", true, []string{"/x " + detail}},
		{"escape sequence in notes", "\x1b[2Jcleared", true, []string{"/x " + detail}},
		{"control and too long: one error", strings.Repeat("x", 10) + "\x00", false, []string{"/x " + detail}},
	} {
		c := newChecker()
		if tc.text {
			c.text("x", Given(tc.in), false, 0, 5000)
		} else {
			c.str("x", Given(tc.in), false, 0, 10)
		}
		if diff := cmp.Diff(tc.errs, fields(t, c.done())); diff != "" {
			t.Errorf("%s: errors (-want +got):\n%s", tc.name, diff)
		}
	}
	c := newChecker()
	c.strings("tags", Given([]string{"ok", "bad\x00", "\u2066x"}), 5, 10)
	if diff := cmp.Diff([]string{"/tags/1 " + detail, "/tags/2 " + detail}, fields(t, c.done())); diff != "" {
		t.Errorf("list items (-want +got):\n%s", diff)
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

// TestJoinFindings: an outer validator's findings (strict mode's) join the store's own after
// them, except at a field the store refused or inside it; a body with any is invalid.
func TestJoinFindings(t *testing.T) {
	t.Parallel()
	own := FieldErrors{{"/email", "invalid_format", "own"}, {"/lineItems", "too_long", "own"}}
	extra := FieldErrors{{"/email", "format", "doc"}, {"/lineItems/3/quantity", "out_of_range", "doc"},
		{"/phone", "invalid_format", "doc"}, {"/emailAddress", "unknown_field", "doc"}}
	got := JoinFindings(own, extra)
	want := FieldErrors{own[0], own[1], extra[2], extra[3]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JoinFindings (-want +got):\n%s", diff)
	}
	if len(own) != 2 {
		t.Error("JoinFindings changed own")
	}
	// Through a check: findings of the document alone make a valid body invalid.
	in := PatientInputOf(patients.Patient{FirstName: "Ada", LastName: "L", Email: "a@b.co"})
	in.Extra = FieldErrors{{"/phone", "invalid_format", "does not match the OpenAPI document"}}
	if _, err := checkPatient(in, false, client.DateOf(time.Now())); !cmp.Equal(fields(t, err), []string{"/phone invalid_format does not match the OpenAPI document"}) {
		t.Errorf("extra only: %v", err)
	}
	in.FirstName = Given("")
	in.Extra = FieldErrors{{"/firstName", "too_short", "doc"}, {"/phone", "invalid_format", "doc"}}
	if _, err := checkPatient(in, false, client.DateOf(time.Now())); !cmp.Equal(fields(t, err), []string{"/firstName required is required", "/phone invalid_format doc"}) {
		t.Errorf("own and extra: %v", fields(t, err))
	}
}
