package patients_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/oapitest"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/patients"
)

var ctx = context.Background()

// badCtx marks calls that break the OpenAPI document on purpose, so only responses are validated.
var badCtx = oapitest.WithoutRequestValidation(ctx)

func newEnv(t *testing.T) *testenv.Env {
	t.Helper()
	return testenv.New(t, nil)
}

func mustCreate(t *testing.T, c *medspa.Client, p patients.CreateParams) *patients.Patient {
	t.Helper()
	got, _, err := c.Patients.Create(ctx, &p)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	return got
}

func TestCreateGetRoundTrip(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	in := patients.CreateParams{
		FirstName: "  Ada ", LastName: "Lovelace", Email: "ada@example.com", Phone: "+15551234567",
		DateOfBirth: client.NewDate(1915, time.December, 10), Gender: patients.GenderFemale,
		Address:   &patients.Address{Line1: "1 Analytical Way", City: "London", Country: "GB"},
		Allergies: []string{"latex"}, Notes: "prefers mornings", Tags: []string{"vip"},
	}
	created := mustCreate(t, env.Client, in)
	if !strings.HasPrefix(created.ID, "pat_") || len(created.ID) != 36 {
		t.Errorf("id %q: want pat_ + 32 hex", created.ID)
	}
	if created.FirstName != "Ada" {
		t.Errorf("firstName %q: want trimmed Ada", created.FirstName)
	}
	if created.CreatedAt.IsZero() || !created.CreatedAt.Equal(created.UpdatedAt) || created.CreatedAt.Nanosecond() != 0 {
		t.Errorf("timestamps %v / %v: want equal, second precision", created.CreatedAt, created.UpdatedAt)
	}
	got, _, err := env.Client.Patients.Get(ctx, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(created, got); diff != "" {
		t.Errorf("Get differs from Create (-create +get):\n%s", diff)
	}
	want := &patients.Patient{
		ID: created.ID, FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com", Phone: "+15551234567",
		DateOfBirth: client.NewDate(1915, time.December, 10), Gender: patients.GenderFemale,
		Address:   &patients.Address{Line1: "1 Analytical Way", City: "London", Country: "GB"},
		Allergies: []string{"latex"}, Notes: "prefers mornings", Tags: []string{"vip"},
		CreatedAt: created.CreatedAt, UpdatedAt: created.UpdatedAt,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stored patient (-want +got):\n%s", diff)
	}
}

func TestUpdateMergePatch(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	p := mustCreate(t, env.Client, patients.CreateParams{
		FirstName: "Grace", LastName: "Hopper", Email: "grace@example.com", Phone: "+15550000001",
		Notes: "n1", Tags: []string{"a"},
	})
	env.Server.SetTime(env.Key.Account, time.Now().Add(time.Hour)) // updatedAt must move

	// Unset fields stay, set fields change, null clears.
	got, _, err := env.Client.Patients.Update(ctx, p.ID, &patients.UpdateParams{
		LastName: client.Set("Murray Hopper"),
		Phone:    client.Null[string](),
		Tags:     client.Set([]string{"a", "b"}),
		Address:  client.Set(patients.AddressPatch{City: client.Set("Arlington"), Country: client.Set("US")}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.FirstName != "Grace" || got.LastName != "Murray Hopper" || got.Phone != "" || got.Notes != "n1" ||
		!slices.Equal(got.Tags, []string{"a", "b"}) || got.Address == nil || got.Address.City != "Arlington" {
		t.Errorf("after patch: %+v", got)
	}
	if !got.UpdatedAt.After(p.UpdatedAt) {
		t.Errorf("updatedAt %v did not move past %v", got.UpdatedAt, p.UpdatedAt)
	}
	// An empty patch changes nothing, not even updatedAt.
	env.Server.AdvanceTime(env.Key.Account, time.Hour)
	same, _, err := env.Client.Patients.Update(ctx, p.ID, &patients.UpdateParams{})
	if err != nil {
		t.Fatal(err)
	}
	if !same.UpdatedAt.Equal(got.UpdatedAt) {
		t.Errorf("no-op patch moved updatedAt: %v → %v", got.UpdatedAt, same.UpdatedAt)
	}
	// Clearing the address and notes.
	cleared, _, err := env.Client.Patients.Update(ctx, p.ID, &patients.UpdateParams{Address: client.Null[patients.AddressPatch](), Notes: client.Null[string]()})
	if err != nil {
		t.Fatal(err)
	}
	if cleared.Address != nil || cleared.Notes != "" {
		t.Errorf("not cleared: %+v", cleared)
	}
	// merge-patch+json is accepted too.
	resp, body := env.Do(t, http.MethodPatch, "/api/v1/patients/"+p.ID, `{"notes":"via merge patch"}`, "Content-Type: application/merge-patch+json")
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "via merge patch") {
		t.Errorf("merge-patch+json: %d %s", resp.StatusCode, body)
	}
}

func TestUpdateRejectsNullOnRequiredAndChangesNothing(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	p := mustCreate(t, env.Client, patients.CreateParams{FirstName: "Alan", LastName: "Turing", Email: "alan@example.com"})
	_, _, err := env.Client.Patients.Update(badCtx, p.ID, &patients.UpdateParams{
		FirstName: client.Null[string](), Email: client.Set("nope"), Notes: client.Set("should not be stored"),
	})
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Status != 422 || !errors.Is(err, client.ErrValidation) {
		t.Fatalf("want 422 validation_error, got %v", err)
	}
	pointers := fieldPointers(apiErr)
	if !slices.Equal(pointers, []string{"/email", "/firstName"}) {
		t.Errorf("fields %v: want /email and /firstName", pointers)
	}
	got, _, _ := env.Client.Patients.Get(ctx, p.ID)
	if diff := cmp.Diff(p, got); diff != "" {
		t.Errorf("a rejected patch changed the patient:\n%s", diff)
	}
}

func fieldPointers(e *client.Error) []string {
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.Pointer)
	}
	slices.Sort(out)
	return out
}

func TestGetUnknownAndMalformedIDs(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	for _, id := range []string{"pat_00000000000000000000000000000000", "pat_x", "apt_00000000000000000000000000000000", "PAT_0000", "pat_0000000000000000000000000000000G"} {
		_, _, err := env.Client.Patients.Get(badCtx, id)
		if !errors.Is(err, client.ErrNotFound) {
			t.Errorf("Get(%q): want not_found, got %v", id, err)
		}
	}
	// An id that is not one path segment never leaves the SDK (issue 16); the server answers
	// 404 to one sent anyway.
	if _, _, err := env.Client.Patients.Get(badCtx, "../patients"); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf(`Get("../patients"): want ErrInvalidArgument, got %v`, err)
	}
	if resp, body := env.DoInvalid(t, "GET", "/api/v1/patients/..%2Fpatients", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("raw ..%%2Fpatients: %d %s", resp.StatusCode, body)
	}
}

func TestListFiltersSortAndPaging(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	acct := env.Key.Account
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	people := []patients.CreateParams{
		{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"},
		{FirstName: "Grace", LastName: "Hopper", Email: "grace@navy.mil"},
		{FirstName: "Alan", LastName: "Turing", Email: "alan@example.com"},
		{FirstName: "Katherine", LastName: "Johnson", Email: "kj@nasa.gov"},
		{FirstName: "Margaret", LastName: "Hamilton", Email: "ADA@Example.com"},
	}
	var ids []string
	for i, p := range people {
		env.Server.SetTime(acct, base.Add(time.Duration(i)*time.Hour))
		ids = append(ids, mustCreate(t, env.Client, p).ID)
	}
	list := func(p patients.ListParams) []string {
		t.Helper()
		return testenv.Collect(t, env.Client.Patients.All(ctx, &p), func(p patients.Patient) string { return p.ID })
	}
	rev := slices.Clone(ids)
	slices.Reverse(rev)
	cases := []struct {
		name   string
		params patients.ListParams
		want   []string
	}{
		{"all ascending", patients.ListParams{}, ids},
		{"descending", patients.ListParams{Sort: medspa.SortCreatedDesc}, rev},
		{"q first name case-insensitive", patients.ListParams{Q: "GRAC"}, ids[1:2]},
		{"q last name", patients.ListParams{Q: "ham"}, ids[4:5]},
		{"q email", patients.ListParams{Q: "nasa"}, ids[3:4]},
		{"q matches several", patients.ListParams{Q: "a"}, ids},
		{"email exact case-insensitive", patients.ListParams{Email: "ada@example.com"}, []string{ids[0], ids[4]}},
		{"email is not substring", patients.ListParams{Email: "example.com"}, nil},
		{"createdFrom inclusive", patients.ListParams{CreatedFrom: base.Add(2 * time.Hour)}, ids[2:]},
		{"createdTo exclusive", patients.ListParams{CreatedTo: base.Add(2 * time.Hour)}, ids[:2]},
		{"window and q", patients.ListParams{CreatedFrom: base.Add(time.Hour), CreatedTo: base.Add(4 * time.Hour), Q: "a"}, ids[1:4]},
		{"paged by 2", patients.ListParams{ListOptions: client.ListOptions{PerPage: 2}}, ids},
		{"paged by 1 descending", patients.ListParams{ListOptions: client.ListOptions{PerPage: 1}, Sort: medspa.SortCreatedDesc}, rev},
		{"starting at page 2", patients.ListParams{ListOptions: client.ListOptions{Page: 2, PerPage: 2}}, ids[2:]},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := list(tc.params); !slices.Equal(got, tc.want) {
				t.Errorf("got %v\nwant %v", got, tc.want)
			}
		})
	}

	// Page edges: meta, a page past the end, the last partial page.
	page, _, err := env.Client.Patients.List(ctx, &patients.ListParams{ListOptions: client.ListOptions{Page: 3, PerPage: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if page.Meta != (client.Meta{Total: 5, Page: 3, PerPage: 2}) || len(page.Data) != 1 || page.HasMore() {
		t.Errorf("last page: meta %+v, %d items", page.Meta, len(page.Data))
	}
	page, _, err = env.Client.Patients.List(ctx, &patients.ListParams{ListOptions: client.ListOptions{Page: 99}})
	if err != nil {
		t.Fatal(err)
	}
	if page.Meta != (client.Meta{Total: 5, Page: 99, PerPage: 25}) || len(page.Data) != 0 {
		t.Errorf("past the end: meta %+v, %d items", page.Meta, len(page.Data))
	}
	resp, body := env.Do(t, http.MethodGet, "/api/v1/patients?page=99", "")
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"data":[]`) {
		t.Errorf("empty page must be data: [] — %s", body)
	}
}

func TestAllStopsWhenCallerBreaks(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	for i := range 5 {
		mustCreate(t, env.Client, patients.CreateParams{FirstName: "P", LastName: fmt.Sprint(i), Email: "p@example.com"})
	}
	before := len(env.Server.Requests(env.Key.Account))
	n := 0
	for _, err := range env.Client.Patients.All(ctx, &patients.ListParams{ListOptions: client.ListOptions{PerPage: 2}}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 {
		t.Fatalf("n=%d", n)
	}
	// Only two pages were fetched: the request journal shows it.
	var pages []int
	for _, r := range env.Server.Requests(env.Key.Account)[before:] {
		if r.Method == "GET" && r.Path == "/api/v1/patients" {
			pages = append(pages, r.Status)
		}
	}
	if !slices.Equal(pages, []int{200, 200}) {
		t.Errorf("list requests answered %v, want two pages", pages)
	}
}

func TestListParamErrors(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	cases := []struct {
		query string
		want  []string
	}{
		{"perPage=0", []string{"perPage"}},
		{"perPage=101", []string{"perPage"}},
		{"page=0", []string{"page"}},
		{"page=x", []string{"page"}},
		{"sort=name", []string{"sort"}},
		{"createdFrom=yesterday", []string{"createdFrom"}},
		{"colour=red&perPage=500", []string{"colour", "perPage"}},
		{"page=1&page=2", []string{"page"}},
	}
	for _, tc := range cases {
		resp, body := env.DoInvalid(t, http.MethodGet, "/api/v1/patients?"+tc.query, "")
		if resp.StatusCode != 422 {
			t.Errorf("%s: status %d %s", tc.query, resp.StatusCode, body)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(string(body), `"pointer":"`+w+`"`) {
				t.Errorf("%s: %s not named in %s", tc.query, w, body)
			}
		}
	}
}
