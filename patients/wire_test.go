package patients_test

import (
	"context"
	"errors"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/wiretest"
	"github.com/medspa/medspa-go/patients"
)

// patientJSON is a patient as a server answers it, with a field this SDK does not know yet.
const patientJSON = `{"id":"` + wiretest.PatientID + `","firstName":"Ada","lastName":"Lovelace",` +
	`"email":"ada@example.com","dateOfBirth":"1815-12-10","address":{"city":"London","country":"GB"},` +
	`"tags":["vip"],"createdAt":"2026-11-22T14:03:00Z","updatedAt":"2026-11-22T14:03:00Z","loyaltyTier":"gold"}`

var wantPatient = &patients.Patient{
	ID: wiretest.PatientID, FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com",
	DateOfBirth: client.NewDate(1815, time.December, 10), Address: &patients.Address{City: "London", Country: "GB"},
	Tags: []string{"vip"}, CreatedAt: time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC), UpdatedAt: time.Date(2026, 11, 22, 14, 3, 0, 0, time.UTC),
}

// TestWire holds every method of the patients service to the protocol (docs/protocol.md §2, §3,
// §9): exactly what it sends, and what it makes of the answers.
func TestWire(t *testing.T) {
	t.Parallel()
	path := "/api/v1/patients"
	one := "/api/v1/patients/" + wiretest.PatientID
	wiretest.Run(t, []wiretest.Case{{
		Name: "Create",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com",
				DateOfBirth: client.NewDate(1815, time.December, 10), Address: &patients.Address{City: "London", Country: "GB"}, Tags: []string{"vip"}})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "POST", Path: path, Body: `{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com",` +
				`"dateOfBirth":"1815-12-10","address":{"city":"London","country":"GB"},"tags":["vip"]}`},
			Status: 201, Answer: patientJSON,
		},
		Check: wiretest.Equal(wantPatient),
	}, {
		Name: "Get",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Patients.Get(ctx, wiretest.PatientID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: one}, Answer: patientJSON},
		Check:    wiretest.Equal(wantPatient),
	}, {
		Name: "Update",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Patients.Update(ctx, wiretest.PatientID, &patients.UpdateParams{LastName: client.Set("Byron"), Phone: client.Null[string](),
				DateOfBirth: client.Set(client.NewDate(1815, time.December, 10)), Tags: client.Set([]string{})})
		},
		Exchange: wiretest.Exchange{
			Want:   wiretest.Want{Method: "PATCH", Path: one, Body: `{"lastName":"Byron","phone":null,"dateOfBirth":"1815-12-10","tags":[]}`},
			Answer: patientJSON,
		},
		Check: wiretest.Equal(wantPatient),
	}, {
		// RFC 7396 merges objects member by member: an address patch sends only what changes.
		Name: "Update one member of the address",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Patients.Update(ctx, wiretest.PatientID, &patients.UpdateParams{
				Address: medspa.Set(patients.AddressPatch{City: medspa.Set("Boston")}),
			})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "PATCH", Path: one, Body: `{"address":{"city":"Boston"}}`}, Answer: patientJSON},
	}, {
		Name: "Update clears one member of the address and sets another",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Patients.Update(ctx, wiretest.PatientID, &patients.UpdateParams{
				Address: medspa.Set(patients.AddressPatch{Line2: medspa.Null[string](), PostalCode: medspa.Set("02108"), Country: medspa.Set("US")}),
				Notes:   medspa.Set("moved"),
			})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "PATCH", Path: one,
			Body: `{"address":{"line2":null,"postalCode":"02108","country":"US"},"notes":"moved"}`}, Answer: patientJSON},
	}, {
		Name: "Update removes the whole address",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Patients.Update(ctx, wiretest.PatientID, &patients.UpdateParams{Address: medspa.Null[patients.AddressPatch]()})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "PATCH", Path: one, Body: `{"address":null}`}, Answer: patientJSON},
	}, {
		Name: "Update with an empty address patch",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Patients.Update(ctx, wiretest.PatientID, &patients.UpdateParams{Address: medspa.Set(patients.AddressPatch{})})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "PATCH", Path: one, Body: `{"address":{}}`}, Answer: patientJSON},
	}, {
		Name: "Update empty patch",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Patients.Update(ctx, wiretest.PatientID, &patients.UpdateParams{})
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "PATCH", Path: one, Body: `{}`}, Answer: patientJSON},
	}, {
		Name: "List with every filter",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Patients.List(ctx, &patients.ListParams{ListOptions: client.ListOptions{Page: 2, PerPage: 50}, Q: "love lace",
				Email: "ada+x@example.com", CreatedFrom: wiretest.OddTime, CreatedTo: wiretest.OddTime.Add(time.Hour), Sort: medspa.SortCreatedDesc})
		},
		Exchange: wiretest.Exchange{
			Want: wiretest.Want{Method: "GET", Path: path, Query: "createdFrom=" + wiretest.OddTimeQuery + "&createdTo=2026-11-22T15%3A03%3A00Z" +
				"&email=ada%2Bx%40example.com&page=2&perPage=50&q=love+lace&sort=-createdAt"},
			Answer: wiretest.Page(patientJSON, 51, 2, 50),
		},
		Check: func(t *testing.T, got any) {
			p := got.(*client.Page[patients.Patient])
			if len(p.Data) != 1 || p.Meta != (client.Meta{Total: 51, Page: 2, PerPage: 50}) || p.HasMore() {
				t.Errorf("page %+v", p)
			}
		},
	}, {
		Name: "List without params",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Patients.List(ctx, nil)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: path}, Answer: wiretest.Page("", 0, 1, 25)},
	}, {
		Name:     "All walks the pages",
		Iterates: true,
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			var ids []string
			for p, err := range c.Patients.All(ctx, &patients.ListParams{ListOptions: client.ListOptions{PerPage: 1}, Q: "a"}) {
				if err != nil {
					return nil, nil, err
				}
				ids = append(ids, p.ID)
			}
			return ids, nil, nil
		},
		Exchange: wiretest.Exchange{
			Want:   wiretest.Want{Method: "GET", Path: path, Query: "page=1&perPage=1&q=a"},
			Answer: wiretest.Page(`{"id":"pat_1"}`, 2, 1, 1),
		},
		Then: []wiretest.Exchange{{
			Want:   wiretest.Want{Method: "GET", Path: path, Query: "page=2&perPage=1&q=a"},
			Answer: wiretest.Page(`{"id":"pat_2"}`, 2, 2, 1),
		}},
		Check: wiretest.Equal([]string{"pat_1", "pat_2"}),
	}, {
		// A hostile answer: a date of birth that does not parse. The error names the field,
		// never the value (PHI).
		Name: "Get with an invalid date of birth",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Patients.Get(ctx, wiretest.PatientID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: one},
			Answer: `{"id":"x","email":"ada@example.com","dateOfBirth":"1815-13-45"}`},
		Err: func(t *testing.T, err error) { wiretest.OneLine(t, err, "1815", "ada@") },
	}, {
		Name: "Get with a wrongly typed field",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Patients.Get(ctx, wiretest.PatientID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: one},
			Answer: `{"id":"x","firstName":{"Ada":"Lovelace"}}`},
		Err: func(t *testing.T, err error) { wiretest.OneLine(t, err, "Ada", "Lovelace") },
	}, {
		// A problem whose detail tries to forge a second log line.
		Name: "Get not found",
		Call: func(ctx context.Context, c *medspa.Client) (any, *medspa.Response, error) {
			return c.Patients.Get(ctx, wiretest.PatientID)
		},
		Exchange: wiretest.Exchange{Want: wiretest.Want{Method: "GET", Path: one}, Status: 404,
			Answer: `{"type":"https://docs.medspa.dev/errors/not_found","title":"Not found","status":404,"code":"not_found",` +
				`"detail":"no such patient\nlevel=INFO msg=\"all good\"","requestId":"req_1"}`},
		Err: func(t *testing.T, err error) {
			if !errors.Is(err, medspa.ErrNotFound) {
				t.Errorf("err %v", err)
			}
			if msg := wiretest.OneLine(t, err); msg != `medspa: 404 not_found: no such patient\nlevel=INFO msg="all good" [req_1]` {
				t.Errorf("message %q", msg)
			}
		},
	}})
	wiretest.RunRefused(t, map[string]func(context.Context, *medspa.Client) error{
		"Create an unknown gender": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "A", LastName: "B", Email: "a@example.com", Gender: "F"})
			return err
		},
		"Update to an unknown gender": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Patients.Update(ctx, wiretest.PatientID, &patients.UpdateParams{Gender: medspa.Set[patients.Gender]("none")})
			return err
		},
		"List an unknown sort": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Patients.List(ctx, &patients.ListParams{Sort: "createdAt desc"})
			return err
		},
		"All an unknown sort": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := wiretest.Count(c.Patients.All(ctx, &patients.ListParams{Sort: "name"}))
			return err
		},
		"Get empty id": func(ctx context.Context, c *medspa.Client) error { _, _, err := c.Patients.Get(ctx, ""); return err },
		"Get dot-dot":  func(ctx context.Context, c *medspa.Client) error { _, _, err := c.Patients.Get(ctx, ".."); return err },
		"Get two segments": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Patients.Get(ctx, "pat_1/notes")
			return err
		},
		"Get with a query": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Patients.Get(ctx, "pat_1?x=1")
			return err
		},
		"Get with a newline": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Patients.Get(ctx, "pat_1\n")
			return err
		},
		"Update empty id": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Patients.Update(ctx, "", &patients.UpdateParams{})
			return err
		},
		"Update nil params": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Patients.Update(ctx, wiretest.PatientID, nil)
			return err
		},
		"Create nil params": func(ctx context.Context, c *medspa.Client) error {
			_, _, err := c.Patients.Create(ctx, nil)
			return err
		},
	})
}
