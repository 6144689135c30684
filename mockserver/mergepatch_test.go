package mockserver_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

// TestNestedMergePatch: PATCH merges a patient's address member by member (RFC 7396): a member
// sent sets it, null clears it, the others stay; null on the address removes it; the merged
// result is validated and a refused patch changes nothing. Normal and strict servers agree.
func TestNestedMergePatch(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]mockserver.Option{"normal": nil, "strict": {mockserver.WithStrictValidation()}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			t0 := time.Date(2030, 2, 3, 4, 5, 6, 0, time.UTC)
			c, acct := newWireAPIAt(t, t0, opts...)
			var p patients.Patient
			c.expect(http.StatusCreated, http.MethodPost, "/api/v1/patients", `{"firstName":"Ada","lastName":"L","email":"ada@example.com",`+
				`"address":{"line1":"12 Hidden Lane","line2":"Apt 3","city":"Springfield","postalCode":"01101","country":"US"}}`, &p)
			path := "/api/v1/patients/" + p.ID
			step := func(body string, want *patients.Address, updated time.Time) {
				t.Helper()
				c.env.Server.AdvanceTime(acct, time.Minute)
				var got patients.Patient
				c.expect(http.StatusOK, http.MethodPatch, path, body, &got, "Content-Type: application/merge-patch+json")
				var again patients.Patient
				c.expect(http.StatusOK, http.MethodGet, path, "", &again)
				if !cmp.Equal(got.Address, want) || !cmp.Equal(again.Address, want) {
					t.Fatalf("PATCH %s: address %+v (GET %+v), want %+v", body, got.Address, again.Address, want)
				}
				if !got.UpdatedAt.Equal(updated) || got.FirstName != "Ada" {
					t.Fatalf("PATCH %s: updatedAt %v, want %v; %+v", body, got.UpdatedAt, updated, got)
				}
			}
			step(`{"address":{"city":"Boston"}}`, &patients.Address{Line1: "12 Hidden Lane", Line2: "Apt 3", City: "Boston", PostalCode: "01101", Country: "US"},
				t0.Add(time.Minute))
			step(`{"address":{"line2":null,"postalCode":"02108"}}`, &patients.Address{Line1: "12 Hidden Lane", City: "Boston", PostalCode: "02108", Country: "US"},
				t0.Add(2*time.Minute))
			// The same values again change nothing, not even updatedAt.
			step(`{"address":{"city":"Boston"}}`, &patients.Address{Line1: "12 Hidden Lane", City: "Boston", PostalCode: "02108", Country: "US"},
				t0.Add(2*time.Minute))
			// An invalid member is refused with its pointer, and the address stays.
			var prob struct {
				Code   string
				Errors []struct{ Pointer, Code string }
			}
			c.invalid().expect(http.StatusUnprocessableEntity, http.MethodPatch, path, `{"address":{"country":"U1","city":"Quincy"}}`, &prob)
			if prob.Code != "validation_error" || len(prob.Errors) != 1 || prob.Errors[0].Pointer != "/address/country" {
				t.Fatalf("invalid member: %+v", prob)
			}
			step(`{"lastName":"Lovelace"}`, &patients.Address{Line1: "12 Hidden Lane", City: "Boston", PostalCode: "02108", Country: "US"},
				t0.Add(4*time.Minute))
			step(`{"address":null}`, nil, t0.Add(5*time.Minute))
			step(`{"address":{"city":"Salem"}}`, &patients.Address{City: "Salem"}, t0.Add(6*time.Minute))
			step(`{"address":{"city":null}}`, nil, t0.Add(7*time.Minute)) // nothing left: no address
		})
	}
}
