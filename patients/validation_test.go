package patients_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/testing/testenv"
)

// problemBody is the part of a problem document the rule tests check.
type problemBody = testenv.Problem

// TestPatientRules checks every field rule of the protocol (docs/protocol.md §9 Patient), on create and patch:
// each invalid body names exactly the invalid fields with their codes, and changes nothing.
func TestPatientRules(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	valid := `"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com"`
	tomorrow := time.Now().UTC().Add(48 * time.Hour).Format(time.DateOnly)
	long := func(n int) string { return strings.Repeat("x", n) }
	cases := []struct {
		name string
		body string
		want []string // "pointer code"; nil means valid
	}{
		{"minimal valid", `{` + valid + `}`, nil},
		{"all fields valid", `{` + valid + `,"phone":"+442071234567","dateOfBirth":"1990-02-28","gender":"other","address":{"line1":"1 A St","line2":"","city":"Leeds","state":"WY","postalCode":"LS1","country":"GB"},"allergies":["latex","penicillin"],"notes":"n","tags":["vip"]}`, nil},
		{"empty object", `{}`, []string{"/email required", "/firstName required", "/lastName required"}},
		{"blank names after trimming", `{"firstName":"   ","lastName":"\t","email":"a@b.co"}`, []string{"/firstName required", "/lastName required"}},
		{"names 100 chars ok", `{"firstName":"` + long(100) + `","lastName":"` + strings.Repeat("é", 100) + `","email":"a@b.co"}`, nil},
		{"names 101 chars", `{"firstName":"` + long(101) + `","lastName":"` + strings.Repeat("é", 101) + `","email":"a@b.co"}`, []string{"/firstName too_long", "/lastName too_long"}},
		{"wrong types", `{"firstName":1,"lastName":true,"email":["a@b.co"],"tags":"vip","allergies":[1],"address":"x"}`, []string{"/address invalid_value", "/allergies invalid_value", "/email invalid_value", "/firstName invalid_value", "/lastName invalid_value", "/tags invalid_value"}},
		{"email without at", `{"firstName":"A","lastName":"B","email":"ada.example.com"}`, []string{"/email invalid_format"}},
		{"email with display name", `{"firstName":"A","lastName":"B","email":"Ada <ada@example.com>"}`, []string{"/email invalid_format"}},
		{"email too long", `{"firstName":"A","lastName":"B","email":"` + long(250) + `@b.co"}`, []string{"/email too_long"}},
		{"phone not E.164", `{` + valid + `,"phone":"555-1234"}`, []string{"/phone invalid_format"}},
		{"phone leading zero", `{` + valid + `,"phone":"+0123456"}`, []string{"/phone invalid_format"}},
		{"phone too long", `{` + valid + `,"phone":"+1234567890123456"}`, []string{"/phone too_long"}},
		{"dob bad format", `{` + valid + `,"dateOfBirth":"10/12/1990"}`, []string{"/dateOfBirth invalid_format"}},
		{"dob impossible date", `{` + valid + `,"dateOfBirth":"1990-02-30"}`, []string{"/dateOfBirth invalid_format"}},
		{"dob in the future", `{` + valid + `,"dateOfBirth":"` + tomorrow + `"}`, []string{"/dateOfBirth out_of_range"}},
		{"dob before 1900", `{` + valid + `,"dateOfBirth":"1899-12-31"}`, []string{"/dateOfBirth out_of_range"}},
		{"dob 1900-01-01 ok", `{` + valid + `,"dateOfBirth":"1900-01-01"}`, nil},
		{"gender unknown value", `{` + valid + `,"gender":"f"}`, []string{"/gender invalid_value"}},
		{"address country", `{` + valid + `,"address":{"country":"gb"}}`, []string{"/address/country invalid_format"}},
		{"address unknown field", `{` + valid + `,"address":{"zip":"1"}}`, []string{"/address/zip unknown_field"}},
		{"allergies too many", `{` + valid + `,"allergies":[` + strings.TrimSuffix(strings.Repeat(`"a",`, 51), ",") + `]}`, []string{"/allergies too_long"}},
		{"allergy too long", `{` + valid + `,"allergies":["ok","` + long(201) + `"]}`, []string{"/allergies/1 too_long"}},
		{"notes 10000 ok", `{` + valid + `,"notes":"` + long(10000) + `"}`, nil},
		{"notes too long", `{` + valid + `,"notes":"` + long(10001) + `"}`, []string{"/notes too_long"}},
		{"tags too many", `{` + valid + `,"tags":[` + strings.TrimSuffix(strings.Repeat(`"t",`, 21), ",") + `]}`, []string{"/tags too_long"}},
		{"unknown fields", `{` + valid + `,"middleName":"B","id":"pat_1"}`, []string{"/id unknown_field", "/middleName unknown_field"}},
		{"server fields refused", `{` + valid + `,"createdAt":"2026-01-01T00:00:00Z"}`, []string{"/createdAt unknown_field"}},
		{"everything wrong at once", `{"firstName":"","email":"x","phone":"1","gender":"?","notes":5}`, []string{"/email invalid_format", "/firstName required", "/gender invalid_value", "/lastName required", "/notes invalid_value", "/phone invalid_format"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := countPatients(t, env)
			resp, body := env.DoInvalid(t, http.MethodPost, "/api/v1/patients", tc.body)
			if tc.want == nil {
				if resp.StatusCode != http.StatusCreated {
					t.Fatalf("status %d: %s", resp.StatusCode, body)
				}
				return
			}
			testenv.ExpectFields(t, resp, body, tc.want)
			if after := countPatients(t, env); after != before {
				t.Errorf("a rejected create changed the count: %d → %d", before, after)
			}
		})
	}
}

func TestPatientPatchRules(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	resp, body := env.Do(t, http.MethodPost, "/api/v1/patients", `{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com","phone":"+15551234567"}`)
	if resp.StatusCode != 201 {
		t.Fatalf("create: %d %s", resp.StatusCode, body)
	}
	var p struct{ ID string }
	_ = json.Unmarshal(body, &p)
	cases := []struct {
		body string
		want []string
	}{
		{`{"firstName":null,"lastName":null,"email":null}`, []string{"/email required", "/firstName required", "/lastName required"}},
		{`{"firstName":""}`, []string{"/firstName required"}},
		{`{"email":"bad","phone":"123"}`, []string{"/email invalid_format", "/phone invalid_format"}},
		{`{"nickname":"x"}`, []string{"/nickname unknown_field"}},
	}
	for _, tc := range cases {
		resp, body := env.DoInvalid(t, http.MethodPatch, "/api/v1/patients/"+p.ID, tc.body)
		var pb problemBody
		_ = json.Unmarshal(body, &pb)
		if resp.StatusCode != 422 || !slices.Equal(pb.Fields(), tc.want) {
			t.Errorf("%s: %d %v, want 422 %v", tc.body, resp.StatusCode, pb.Fields(), tc.want)
		}
	}
	_, body = env.Do(t, http.MethodGet, "/api/v1/patients/"+p.ID, "")
	if !strings.Contains(string(body), `"phone":"+15551234567"`) || !strings.Contains(string(body), `"email":"ada@example.com"`) {
		t.Errorf("rejected patches changed the patient: %s", body)
	}
}

func countPatients(t *testing.T, env *testenv.Env) int {
	t.Helper()
	return env.Total(t, "/api/v1/patients")
}
