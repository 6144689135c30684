package admin

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/medspa/medspa-go/internal/wire"
	"github.com/medspa/medspa-go/mockserver/internal/httpcore"
	"github.com/medspa/medspa-go/mockserver/internal/problem"
	"github.com/medspa/medspa-go/mockserver/internal/store"
)

// Fixtures are records to create in one account (docs/protocol.md §12 "POST /__admin/fixtures"). Each item is
// anything that encodes to a JSON object in the API's create shape (a CreateParams struct, or a
// map); an item may also carry "createdAt" (RFC 3339) to backdate it, and an appointment
// "status" (reached through legal transitions). A string "@<kind>.<index>" anywhere in an item
// names the id of an earlier fixture ("patientId": "@patients.0").
type Fixtures struct {
	Account      string `json:"account"`
	Patients     []any  `json:"patients,omitempty"`
	Products     []any  `json:"products,omitempty"`
	Adjustments  []any  `json:"adjustments,omitempty"`
	Appointments []any  `json:"appointments,omitempty"`
	Invoices     []any  `json:"invoices,omitempty"`
	Payments     []any  `json:"payments,omitempty"`
	// Refunds come after payments: "paymentId": "@payments.0".
	Refunds []any `json:"refunds,omitempty"`
}

// FixtureIDs are the ids of the created records, per kind, in input order.
type FixtureIDs struct {
	Patients     []string `json:"patients"`
	Products     []string `json:"products"`
	Adjustments  []string `json:"adjustments"`
	Appointments []string `json:"appointments"`
	Invoices     []string `json:"invoices"`
	Payments     []string `json:"payments"`
	Refunds      []string `json:"refunds"`
}

// fixtureKind is a kind of fixture (httpapi.API.Create's kind), its items and their ids.
type fixtureKind struct {
	name  string
	items []any
	ids   *[]string
}

// appointmentPath is how a fixture appointment reaches a status from scheduled.
var appointmentPath = map[string][]string{
	"scheduled":   nil,
	"confirmed":   {"confirmed"},
	"checked_in":  {"confirmed", "checked_in"},
	"in_progress": {"confirmed", "checked_in", "in_progress"},
	"completed":   {"confirmed", "checked_in", "in_progress", "completed"},
	"cancelled":   {"cancelled"},
	"no_show":     {"no_show"},
}

// fixtureRef is a reference to an earlier fixture; the first group keeps what precedes it
// (so user@patients.example is no reference).
var fixtureRef = regexp.MustCompile(`(^|[^A-Za-z0-9._%+\-])@(patients|products|adjustments|appointments|invoices|payments|refunds)\.([0-9]+)`)

// LoadFixtures creates fx's records in order, each from its body as the API's POST would
// (decoded as a request body, then validated and stored by the store), so every rule applies.
// The load is one store transaction (store.Account.Batch): a failing item answers its problem,
// its pointers prefixed with /<kind>/<index>, and undoes the load's own items only — the
// account is exactly as before, writes other requests made meanwhile included (they wait for
// the load) — and no event of the load is delivered.
func (s *Surface) LoadFixtures(fx Fixtures) (FixtureIDs, error) {
	out := newFixtureIDs()
	acct, err := s.account(fx.Account)
	if err != nil {
		return out, err
	}
	kinds := []fixtureKind{
		{"patients", fx.Patients, &out.Patients},
		{"products", fx.Products, &out.Products},
		{"adjustments", fx.Adjustments, &out.Adjustments},
		{"appointments", fx.Appointments, &out.Appointments},
		{"invoices", fx.Invoices, &out.Invoices},
		{"payments", fx.Payments, &out.Payments},
		{"refunds", fx.Refunds, &out.Refunds},
	}
	ids := map[string][]string{}
	err = acct.Batch(func(b *store.Account) error {
		for _, k := range kinds {
			for i, item := range k.items {
				id, err := s.loadFixture(b, k, i, item, ids)
				if err != nil {
					return err
				}
				ids[k.name] = append(ids[k.name], id)
				*k.ids = append(*k.ids, id)
			}
		}
		return nil
	})
	if err != nil {
		return newFixtureIDs(), err // none of them exists
	}
	return out, nil
}

func newFixtureIDs() FixtureIDs {
	return FixtureIDs{Patients: []string{}, Products: []string{}, Adjustments: []string{},
		Appointments: []string{}, Invoices: []string{}, Payments: []string{}, Refunds: []string{}}
}

// loadFixture creates one item and returns its id.
func (s *Surface) loadFixture(acct *store.Account, k fixtureKind, i int, item any, made map[string][]string) (string, error) {
	at := "/" + k.name + "/" + strconv.Itoa(i)
	raw, err := json.Marshal(item)
	if err != nil {
		return "", problem.Field(at, "invalid_value", "must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return "", problem.Field(at, "invalid_value", "must be a JSON object")
	}
	var errs store.FieldErrors
	resolved := resolveRefs(obj, []string{k.name, strconv.Itoa(i)}, made, &errs)
	obj = resolved.(map[string]any)
	var backdate time.Time
	if v, ok := obj["createdAt"]; ok {
		delete(obj, "createdAt")
		s, _ := v.(string)
		if backdate, err = time.Parse(time.RFC3339, s); err != nil {
			errs.Add(at+"/createdAt", "invalid_format", "must be an RFC 3339 timestamp")
		}
		backdate = wire.Time(backdate)
	}
	var steps []string
	if v, ok := obj["status"]; ok && k.name == "appointments" {
		delete(obj, "status")
		s, _ := v.(string)
		var known bool
		if steps, known = appointmentPath[s]; !known {
			errs.Add(at+"/status", "invalid_value", "must be one of scheduled, confirmed, checked_in, in_progress, completed, cancelled, no_show")
		}
	}
	if err := errs.Err(); err != nil {
		return "", err
	}
	body, _ := json.Marshal(obj) // decoded JSON: cannot fail
	id, err := s.api.Create(acct, k.name, body, backdate)
	if err != nil {
		return "", fixtureProblem(err, at)
	}
	for _, step := range steps {
		if _, err := acct.UpdateAppointment(id, store.AppointmentInput{Status: store.Given(step)}); err != nil {
			return "", fixtureProblem(err, at+"/status")
		}
	}
	return id, nil
}

// resolveRefs replaces @<kind>.<index> references in every string of v (at path), recording
// unknown ones.
func resolveRefs(v any, path []string, made map[string][]string, errs *store.FieldErrors) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = resolveRefs(e, append(path[:len(path):len(path)], k), made, errs)
		}
	case []any:
		for i, e := range x {
			x[i] = resolveRefs(e, append(path[:len(path):len(path)], strconv.Itoa(i)), made, errs)
		}
	case string:
		if !strings.Contains(x, "@") {
			return x
		}
		bad := false
		out := fixtureRef.ReplaceAllStringFunc(x, func(m string) string {
			sm := fixtureRef.FindStringSubmatch(m)
			n, err := strconv.Atoi(sm[3])
			ids := made[sm[2]]
			if err != nil || n >= len(ids) {
				bad = true
				return m
			}
			return sm[1] + ids[n]
		})
		if bad {
			var ptr strings.Builder
			for _, p := range path {
				ptr.WriteString("/" + store.EscapePointer(p))
			}
			errs.Add(ptr.String(), "not_found", "names no earlier fixture")
		}
		return out
	}
	return v
}

// fixtureProblem is the problem of a failed item: the item's pointer in front of every field
// pointer (or as "pointer" when there are none), and in the detail.
func fixtureProblem(err error, at string) error {
	p := httpcore.ProblemFor(err)
	out := problem.WithStatus(p.Status, p.Code, "fixture "+at+": "+p.Detail)
	for _, e := range p.Errors {
		e.Pointer = at + e.Pointer
		out.Errors = append(out.Errors, e)
	}
	for k, v := range p.Extra {
		out.With(k, v)
	}
	if len(out.Errors) == 0 {
		out.With("pointer", at)
	}
	return out
}
