package appointments_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
)

// problemBody is the part of a problem document the rule tests check.
type problemBody = testenv.Problem

func (e *env) count(t *testing.T) int {
	t.Helper()
	page, _, err := e.c.Appointments.List(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return page.Meta.Total
}

// TestCreateRules checks every field rule of the protocol (docs/protocol.md §9 Appointment) on create: each
// invalid body names exactly the invalid fields with their codes, and creates nothing.
func TestCreateRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pid := e.patient(t, "ada")
	long := func(n int) string { return strings.Repeat("x", n) }
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	body := func(fields ...string) string { return "{" + strings.Join(fields, ",") + "}" }
	slot := 0
	// Each valid case gets its own provider and later slot so none conflicts with another.
	valid := func(extra ...string) string {
		slot++
		start, end := at(slot*60), at(slot*60+30)
		return body(append([]string{`"patientId":` + q(pid), `"providerId":"prv_` + long(slot%3) + `"`, `"service":"Facial"`,
			`"startAt":` + q(start.Format("2006-01-02T15:04:05Z07:00")), `"endAt":` + q(end.Format("2006-01-02T15:04:05Z07:00"))}, extra...)...)
	}
	base := []string{`"patientId":` + q(pid), `"providerId":"prv"`, `"service":"s"`}
	times := func(start, end string) []string {
		return append(slices.Clone(base), `"startAt":`+q(start), `"endAt":`+q(end))
	}
	cases := []struct {
		name string
		body string
		want []string // "pointer code"; nil means valid
	}{
		{"minimal valid", valid(), nil},
		{"all fields valid", valid(`"roomId":"`+long(64)+`"`, `"notes":"`+long(10000)+`"`, `"status":"confirmed"`), nil},
		{"status scheduled", valid(`"status":"scheduled"`), nil},
		{"offset and fraction normalized", body(times("2031-03-01T10:00:00.75+02:00", "2031-03-01T10:05:00+02:00")...), nil},
		{"empty object", `{}`, []string{"/endAt required", "/patientId required", "/providerId required", "/service required", "/startAt required"}},
		{"nulls on required", `{"patientId":null,"providerId":null,"service":null,"startAt":null,"endAt":null}`, []string{"/endAt required", "/patientId required", "/providerId required", "/service required", "/startAt required"}},
		{"blank strings", body(`"patientId":" "`, `"providerId":""`, `"service":"  "`, `"startAt":"2031-01-01T00:00:00Z"`, `"endAt":"2031-01-01T01:00:00Z"`), []string{"/patientId required", "/providerId required", "/service required"}},
		{"wrong types", `{"patientId":1,"providerId":true,"service":[],"startAt":0,"endAt":{},"roomId":5,"notes":false,"status":1}`, []string{"/endAt invalid_value", "/notes invalid_value", "/patientId invalid_value", "/providerId invalid_value", "/roomId invalid_value", "/service invalid_value", "/startAt invalid_value", "/status invalid_value"}},
		{"unknown patient", body(append(times("2031-01-01T00:00:00Z", "2031-01-01T01:00:00Z"), `"patientId":"pat_00000000000000000000000000000000"`)[1:]...), []string{"/patientId not_found"}},
		{"malformed patient id", body(append(times("2031-01-01T00:00:00Z", "2031-01-01T01:00:00Z"), `"patientId":"ada"`)[1:]...), []string{"/patientId invalid_format"}},
		{"providerId too long", body(`"patientId":`+q(pid), `"providerId":"`+long(65)+`"`, `"service":"s"`, `"startAt":"2031-01-01T00:00:00Z"`, `"endAt":"2031-01-01T01:00:00Z"`), []string{"/providerId too_long"}},
		{"service too long", body(`"patientId":`+q(pid), `"providerId":"p"`, `"service":"`+long(201)+`"`, `"startAt":"2031-01-01T00:00:00Z"`, `"endAt":"2031-01-01T01:00:00Z"`), []string{"/service too_long"}},
		{"roomId too long", body(append(times("2031-01-01T00:00:00Z", "2031-01-01T01:00:00Z"), `"roomId":"`+long(65)+`"`)...), []string{"/roomId too_long"}},
		{"notes too long", body(append(times("2031-01-01T00:00:00Z", "2031-01-01T01:00:00Z"), `"notes":"`+long(10001)+`"`)...), []string{"/notes too_long"}},
		{"not RFC 3339", body(times("2031-01-01 10:00", "tomorrow")...), []string{"/endAt invalid_format", "/startAt invalid_format"}},
		{"date only", body(times("2031-01-01", "2031-01-02")...), []string{"/endAt invalid_format", "/startAt invalid_format"}},
		{"end before start", body(times("2031-01-01T10:00:00Z", "2031-01-01T09:00:00Z")...), []string{"/endAt out_of_range"}},
		{"end equals start", body(times("2031-01-01T10:00:00Z", "2031-01-01T10:00:00Z")...), []string{"/endAt out_of_range"}},
		{"4m59s", body(times("2031-01-01T10:00:00Z", "2031-01-01T10:04:59Z")...), []string{"/endAt out_of_range"}},
		{"5 minutes ok", body(times("2031-01-02T10:00:00Z", "2031-01-02T10:05:00Z")...), nil},
		{"720 minutes ok", body(times("2031-01-03T00:00:00Z", "2031-01-03T12:00:00Z")...), nil},
		{"720m1s", body(times("2031-01-04T00:00:00Z", "2031-01-04T12:00:01Z")...), []string{"/endAt out_of_range"}},
		{"status not initial", valid(`"status":"checked_in"`), []string{"/status invalid_value"}},
		{"status unknown", valid(`"status":"done"`), []string{"/status invalid_value"}},
		{"server and patch-only fields refused", valid(`"id":"apt_1"`, `"createdAt":"2031-01-01T00:00:00Z"`, `"cancellationReason":"x"`, `"cancelledAt":null`), []string{"/cancellationReason unknown_field", "/cancelledAt unknown_field", "/createdAt unknown_field", "/id unknown_field"}},
		{"everything wrong at once", `{"patientId":"pat_00000000000000000000000000000000","service":"","startAt":"x","endAt":"2031-01-01T00:00:00Z","roomId":"` + long(65) + `","notes":7,"status":"no_show","extra":1}`, []string{"/extra unknown_field", "/notes invalid_value", "/patientId not_found", "/providerId required", "/roomId too_long", "/service required", "/startAt invalid_format", "/status invalid_value"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := e.count(t)
			resp, b := e.DoInvalid(t, http.MethodPost, "/api/v1/appointments", tc.body)
			if tc.want == nil {
				if resp.StatusCode != http.StatusCreated {
					t.Fatalf("status %d: %s", resp.StatusCode, b)
				}
				var ap appointments.Appointment
				_ = json.Unmarshal(b, &ap)
				if d := ap.EndAt.Sub(ap.StartAt); ap.StartAt.Nanosecond() != 0 || d <= 0 {
					t.Errorf("times not normalized: %s", b)
				}
				return
			}
			testenv.ExpectFields(t, resp, b, tc.want)
			if after := e.count(t); after != before {
				t.Errorf("a rejected create changed the count: %d → %d", before, after)
			}
		})
	}
	// Malformed JSON and media type come before validation.
	for _, tc := range []struct{ body, ctype, code string }{
		{`[]`, "application/json", "malformed_json"},
		{`{"a":1,"a":2}`, "application/json", "malformed_json"},
		{`{`, "application/json", "malformed_json"},
		{`{}`, "text/plain", "unsupported_media_type"},
	} {
		_, b := e.DoInvalid(t, http.MethodPost, "/api/v1/appointments", tc.body, "Content-Type: "+tc.ctype)
		var p problemBody
		if _ = json.Unmarshal(b, &p); p.Code != tc.code {
			t.Errorf("%s: %s", tc.body, b)
		}
	}
}

// TestPatchRules checks the merge-patch rules: nulls on required fields, unknown fields, types,
// lengths, times against the stored ones, all reported at once and changing nothing.
func TestPatchRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pid := e.patient(t, "ada")
	ap := e.book(t, appointments.CreateParams{PatientID: pid, ProviderID: "prv", StartAt: at(0), EndAt: at(60), RoomID: "r", Notes: "n"})
	long := func(n int) string { return strings.Repeat("x", n) }
	cases := []struct {
		body string
		want []string
	}{
		{`{"patientId":null,"providerId":null,"service":null,"startAt":null,"endAt":null,"status":null}`, []string{"/endAt required", "/patientId required", "/providerId required", "/service required", "/startAt required", "/status required"}},
		{`{"providerId":"","service":" "}`, []string{"/providerId required", "/service required"}},
		{`{"nickname":"x","id":"apt_1","createdAt":"2031-01-01T00:00:00Z","cancelledAt":null}`, []string{"/cancelledAt unknown_field", "/createdAt unknown_field", "/id unknown_field", "/nickname unknown_field"}},
		{`{"status":"done","roomId":1,"cancellationReason":"` + long(1001) + `"}`, []string{"/cancellationReason too_long", "/roomId invalid_value", "/status invalid_value"}},
		{`{"patientId":"pat_00000000000000000000000000000000","notes":"` + long(10001) + `"}`, []string{"/notes too_long", "/patientId not_found"}},
		{`{"patientId":"bob"}`, []string{"/patientId invalid_format"}},
		{`{"startAt":"soon","endAt":"later"}`, []string{"/endAt invalid_format", "/startAt invalid_format"}},
		{`{"startAt":"` + at(60).Format(time3339) + `"}`, []string{"/startAt out_of_range"}}, // == stored endAt
		{`{"endAt":"` + at(4).Format(time3339) + `"}`, []string{"/endAt out_of_range"}},      // 4 minutes
		{`{"startAt":"` + at(-661).Format(time3339) + `","service":""}`, []string{"/service required", "/startAt out_of_range"}},
		{`{"startAt":"` + at(0).Format(time3339) + `","endAt":"` + at(721).Format(time3339) + `"}`, []string{"/endAt out_of_range"}},
		{`{"cancellationReason":"changed mind"}`, []string{"/cancellationReason invalid_value"}},
	}
	for _, tc := range cases {
		resp, b := e.DoInvalid(t, http.MethodPatch, "/api/v1/appointments/"+ap.ID, tc.body)
		var p problemBody
		_ = json.Unmarshal(b, &p)
		if resp.StatusCode != 422 || !slices.Equal(p.Fields(), tc.want) {
			t.Errorf("%.80s: %d %v, want 422 %v", tc.body, resp.StatusCode, p.Fields(), tc.want)
		}
	}
	if got, _, _ := e.c.Appointments.Get(ctx, ap.ID); *got != *ap {
		t.Fatalf("rejected patches changed the appointment:\n%+v\n%+v", got, ap)
	}
	// Merge-patch media type, and ids: malformed or unknown → 404 (after validation of a valid body).
	resp, b := e.Do(t, http.MethodPatch, "/api/v1/appointments/"+ap.ID, `{"service":"Peel"}`, "Content-Type: application/merge-patch+json")
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"service":"Peel"`) {
		t.Fatalf("merge-patch+json: %d %s", resp.StatusCode, b)
	}
	for _, path := range []string{"apt_00000000000000000000000000000000", "apt_0000", "APT_00000000000000000000000000000000", "pat_00000000000000000000000000000000"} {
		for _, m := range []string{http.MethodGet, http.MethodPatch, http.MethodDelete} {
			body := ""
			if m == http.MethodPatch {
				body = `{"service":"x"}`
			}
			resp, b := e.DoInvalid(t, m, "/api/v1/appointments/"+path, body)
			if resp.StatusCode != 404 {
				t.Errorf("%s %s: %d %s", m, path, resp.StatusCode, b)
			}
		}
	}
}

const time3339 = "2006-01-02T15:04:05Z07:00"

func TestListParamErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cases := []struct {
		query string
		want  []string
	}{
		{"?status=scheduled,done", []string{"status invalid_value"}},
		{"?status=", []string{"status invalid_value"}},
		{"?from=yesterday&to=2031-13-01T00:00:00Z", []string{"from invalid_format", "to invalid_format"}},
		{"?perPage=0&page=0", []string{"page out_of_range", "perPage out_of_range"}},
		{"?perPage=101", []string{"perPage out_of_range"}},
		{"?sort=-createdAt&q=x", []string{"q unknown_parameter", "sort unknown_parameter"}},
		{"?patientId=ada&providerId=" + strings.Repeat("p", 65), []string{"patientId invalid_format", "providerId too_long"}},
	}
	for _, tc := range cases {
		resp, b := e.DoInvalid(t, http.MethodGet, "/api/v1/appointments"+tc.query, "")
		var p problemBody
		_ = json.Unmarshal(b, &p)
		if resp.StatusCode != 422 || !slices.Equal(p.Fields(), tc.want) {
			t.Errorf("%s: %d %v, want 422 %v", tc.query, resp.StatusCode, p.Fields(), tc.want)
		}
	}
	// Dates are accepted for from/to (midnight UTC; the document lists date-time only), and the
	// SDK's status list encodes as a comma list.
	if resp, b := e.DoInvalid(t, http.MethodGet, "/api/v1/appointments?from=2031-01-01&to=2031-01-02", ""); resp.StatusCode != 200 {
		t.Errorf("dates: %d %s", resp.StatusCode, b)
	}
	if _, _, err := e.c.Appointments.List(ctx, &appointments.ListParams{Status: []appointments.Status{"scheduled", "no_show"}}); err != nil {
		t.Error(err)
	}
	// An unknown status is the server's 422 naming the parameter; the SDK refuses it before the
	// wire (it knows the closed set).
	resp, b := e.DoInvalid(t, http.MethodGet, "/api/v1/appointments?status=nope", "")
	var problem struct {
		Code   string              `json:"code"`
		Fields []client.FieldError `json:"errors"`
	}
	if err := json.Unmarshal(b, &problem); err != nil || resp.StatusCode != 422 || problem.Code != "validation_error" ||
		len(problem.Fields) != 1 || problem.Fields[0].Pointer != "status" {
		t.Errorf("%d %s", resp.StatusCode, b)
	}
	before := len(e.Server.Requests(e.Key.Account))
	_, _, err := e.c.Appointments.List(badCtx, &appointments.ListParams{Status: []appointments.Status{"nope"}})
	if !errors.Is(err, client.ErrInvalidArgument) || len(e.Server.Requests(e.Key.Account)) != before {
		t.Errorf("SDK sent an unknown status: %v", err)
	}
}

func TestScopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	pid := e.patient(t, "ada")
	ap := e.book(t, appointments.CreateParams{PatientID: pid, ProviderID: "prv", StartAt: at(0), EndAt: at(30)})
	read := e.NewKey(t, mockserverKey(e, "appointments:read"))
	c := e.ClientFor(t, read.Key)
	if _, _, err := c.Appointments.Get(ctx, ap.ID); err != nil {
		t.Fatalf("read: %v", err)
	}
	if _, _, err := c.Appointments.List(ctx, nil); err != nil {
		t.Fatalf("list: %v", err)
	}
	_, _, err := c.Appointments.Update(ctx, ap.ID, &appointments.UpdateParams{Service: client.Set("x")})
	apiError(t, err, client.ErrInsufficientScope)
	_, _, err = c.Appointments.Cancel(ctx, ap.ID, "")
	apiError(t, err, client.ErrInsufficientScope)
	_, _, err = c.Appointments.Create(ctx, &appointments.CreateParams{PatientID: pid, ProviderID: "p", Service: "s", StartAt: at(60), EndAt: at(90)})
	apiError(t, err, client.ErrInsufficientScope)
	other := e.ClientFor(t, e.NewKey(t, mockserverKey(e, "patients:write")).Key)
	_, _, err = other.Appointments.Get(ctx, ap.ID)
	apiError(t, err, client.ErrInsufficientScope)
}

// mockserverKey asks for a key of the env's account with one scope.
func mockserverKey(e *env, scope string) mockserver.APIKeyParams {
	return mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{scope}, Account: e.Key.Account}
}
