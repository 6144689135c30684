package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/medspa/medspa-go/mockserver/internal/auth"
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
}

// FixtureIDs are the ids of the created records, per kind, in input order.
type FixtureIDs struct {
	Patients     []string `json:"patients"`
	Products     []string `json:"products"`
	Adjustments  []string `json:"adjustments"`
	Appointments []string `json:"appointments"`
	Invoices     []string `json:"invoices"`
	Payments     []string `json:"payments"`
}

// fixtureKind is where a kind of fixture is created.
type fixtureKind struct {
	name, path string
	items      []any
	ids        *[]string
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
var fixtureRef = regexp.MustCompile(`(^|[^A-Za-z0-9._%+\-])@(patients|products|adjustments|appointments|invoices|payments)\.([0-9]+)`)

// FixtureCredentialID is the id of the internal credential fixtures are created with (scope *).
// Its requests skip authentication, IP, signature and rate-limit checks (they never pass
// serveAPI), and the audit log leaves them out.
const FixtureCredentialID = "fixtures"

func fixtureCredential(account string) *auth.Credential {
	return &auth.Credential{ID: FixtureCredentialID, Account: account, Plan: auth.Plans["enterprise"], Scopes: []string{"*"}}
}

// LoadFixtures creates fx's records in order through the API's own handlers, so every rule and
// validation applies. A failing item answers its problem, its pointers prefixed with
// /<kind>/<index>, and the account is put back as it was.
func (a *API) LoadFixtures(ctx context.Context, fx Fixtures) (FixtureIDs, error) {
	out := FixtureIDs{Patients: []string{}, Products: []string{}, Adjustments: []string{},
		Appointments: []string{}, Invoices: []string{}, Payments: []string{}}
	acct, err := a.account(fx.Account)
	if err != nil {
		return out, err
	}
	kinds := []fixtureKind{
		{"patients", "/api/v1/patients", fx.Patients, &out.Patients},
		{"products", "/api/v1/products", fx.Products, &out.Products},
		{"adjustments", "/api/v1/inventory/adjust", fx.Adjustments, &out.Adjustments},
		{"appointments", "/api/v1/appointments", fx.Appointments, &out.Appointments},
		{"invoices", "/api/v1/invoices", fx.Invoices, &out.Invoices},
		{"payments", "/api/v1/payments", fx.Payments, &out.Payments},
	}
	made := map[string][]string{}
	a.fixtureMu.Lock() // one load at a time, so a rollback never undoes another load
	defer a.fixtureMu.Unlock()
	before, err := acct.Export()
	if err != nil {
		return out, err
	}
	cred := fixtureCredential(fx.Account)
	for _, k := range kinds {
		for i, item := range k.items {
			id, err := a.loadFixture(ctx, cred, acct, k, i, item, made)
			if err != nil {
				if rerr := acct.Import(before); rerr != nil {
					return out, rerr
				}
				return out, err
			}
			made[k.name] = append(made[k.name], id)
			*k.ids = append(*k.ids, id)
		}
	}
	return out, nil
}

// loadFixture creates one item and returns its id.
func (a *API) loadFixture(ctx context.Context, cred *auth.Credential, acct *store.Account, k fixtureKind, i int, item any, made map[string][]string) (string, error) {
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
		backdate = backdate.UTC().Truncate(time.Second)
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
	status, resp, perr := a.internalCall(ctx, cred, acct, http.MethodPost, k.path, body, backdate)
	if perr != nil {
		return "", perr
	}
	if status != http.StatusCreated {
		return "", fixtureProblem(resp, at)
	}
	var created struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(resp, &created); err != nil || created.ID == "" {
		return "", problem.New("internal_error", "the created record has no id")
	}
	for _, s := range steps {
		b, _ := json.Marshal(map[string]string{"status": s})
		status, resp, perr := a.internalCall(ctx, cred, acct, http.MethodPatch, k.path+"/"+created.ID, b, time.Time{})
		if perr != nil {
			return "", perr
		}
		if status != http.StatusOK {
			return "", fixtureProblem(resp, at+"/status")
		}
	}
	return created.ID, nil
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
		s := fixtureRef.ReplaceAllStringFunc(x, func(m string) string {
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
				ptr.WriteString("/" + escapePointer(p))
			}
			errs.Add(ptr.String(), "not_found", "names no earlier fixture")
		}
		return s
	}
	return v
}

// internalCall runs one request through the API's routes as cred, past authentication, IP,
// signature and rate-limit checks, and returns the answer.
func (a *API) internalCall(ctx context.Context, cred *auth.Credential, acct *store.Account, method, path string, body []byte, backdate time.Time) (int, []byte, error) {
	r, err := http.NewRequestWithContext(ctx, method, path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	r.Header.Set("Content-Type", "application/json")
	if method == http.MethodPatch {
		r.Header.Set("Content-Type", "application/merge-patch+json")
	}
	r.RemoteAddr = "127.0.0.1:0"
	if _, pattern := a.mux.Handler(r); pattern == "" || pattern == unroutedPattern {
		return 0, nil, problem.NotFound("route " + method + " " + path)
	}
	rq := &request{Request: r, id: a.newRequestID(), cred: cred, acct: acct, body: body,
		addr: netip.AddrFrom4([4]byte{127, 0, 0, 1}), backdate: backdate}
	rq.withContext()
	rec := httptest.NewRecorder()
	a.mux.ServeHTTP(rec, rq.Request)
	return rec.Code, rec.Body.Bytes(), nil
}

// fixtureProblem turns a failed item's problem body into the load's problem, with the item's
// pointer in front of every field pointer (or as "pointer" when there are none).
func fixtureProblem(body []byte, at string) error {
	var members map[string]json.RawMessage
	var p struct {
		Status int                  `json:"status"`
		Code   string               `json:"code"`
		Detail string               `json:"detail"`
		Errors []problem.FieldError `json:"errors"`
	}
	if json.Unmarshal(body, &members) != nil || json.Unmarshal(body, &p) != nil || p.Status == 0 {
		return problem.New("internal_error", "a fixture failed without a problem body")
	}
	out := problem.WithStatus(p.Status, p.Code, "fixture "+at+": "+p.Detail)
	for _, e := range p.Errors {
		e.Pointer = at + e.Pointer
		out.Errors = append(out.Errors, e)
	}
	for k, v := range members {
		switch k {
		case "type", "title", "status", "code", "detail", "requestId", "errors":
		default:
			out.With(k, v)
		}
	}
	if len(out.Errors) == 0 {
		out.With("pointer", at)
	}
	return out
}
