package oapitest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/jarcoal/httpmock"
)

// fakeTB captures Errorf reports; every other method goes to the real test.
type fakeTB struct {
	testing.TB
	mu   sync.Mutex
	msgs []string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}

func (f *fakeTB) reports() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.msgs...)
}

func TestDocumentValidates(t *testing.T) {
	doc := Document(t)
	if err := doc.Validate(t.Context()); err != nil {
		t.Fatalf("doc.Validate: %v", err)
	}
	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi = %q, want 3.0.3", doc.OpenAPI)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "{baseUrl}" ||
		doc.Servers[0].Variables["baseUrl"].Default != "http://127.0.0.1:8080" {
		t.Errorf("servers = %+v, want one {baseUrl} defaulting to http://127.0.0.1:8080", doc.Servers)
	}
}

// contractOperations lists every endpoint of docs/protocol.md.
var contractOperations = []struct{ method, path, opID string }{
	{"GET", "/api/v1/patients", "listPatients"},
	{"POST", "/api/v1/patients", "createPatient"},
	{"GET", "/api/v1/patients/{id}", "getPatient"},
	{"PATCH", "/api/v1/patients/{id}", "updatePatient"},
	{"GET", "/api/v1/appointments", "listAppointments"},
	{"POST", "/api/v1/appointments", "createAppointment"},
	{"GET", "/api/v1/appointments/{id}", "getAppointment"},
	{"PATCH", "/api/v1/appointments/{id}", "updateAppointment"},
	{"DELETE", "/api/v1/appointments/{id}", "cancelAppointment"},
	{"GET", "/api/v1/invoices", "listInvoices"},
	{"POST", "/api/v1/invoices", "createInvoice"},
	{"GET", "/api/v1/invoices/{id}", "getInvoice"},
	{"POST", "/api/v1/payments", "createPayment"},
	{"GET", "/api/v1/payments/{id}", "getPayment"},
	{"GET", "/api/v1/products", "listProducts"},
	{"POST", "/api/v1/products", "createProduct"},
	{"GET", "/api/v1/products/{id}", "getProduct"},
	{"PATCH", "/api/v1/products/{id}", "updateProduct"},
	{"GET", "/api/v1/inventory", "listInventory"},
	{"POST", "/api/v1/inventory/adjust", "adjustInventory"},
	{"GET", "/api/v1/reports/revenue", "getRevenueReport"},
	{"GET", "/api/v1/reports/appointments", "getAppointmentsReport"},
	{"GET", "/api/v1/reports/patients", "getPatientsReport"},
	{"GET", "/api/v1/reports/custom", "getCustomReport"},
	{"GET", "/api/v1/webhooks", "listWebhooks"},
	{"POST", "/api/v1/webhooks", "createWebhook"},
	{"GET", "/api/v1/webhooks/{id}", "getWebhook"},
	{"DELETE", "/api/v1/webhooks/{id}", "deleteWebhook"},
	{"POST", "/api/v1/webhooks/{id}/test", "testWebhook"},
	{"GET", "/oauth/authorize", "authorize"},
	{"POST", "/oauth/token", "createToken"},
	{"POST", "/oauth/revoke", "revokeToken"},
	{"GET", "/api/v1/openapi.yaml", "getOpenAPIYAML"},
	{"GET", "/api/v1/openapi.json", "getOpenAPIJSON"},
}

func TestContractOperations(t *testing.T) {
	doc := Document(t)
	want := map[string]bool{}
	for _, o := range contractOperations {
		want[o.method+" "+o.path] = true
		t.Run(o.method+" "+o.path, func(t *testing.T) {
			item := doc.Paths.Find(o.path)
			if item == nil {
				t.Fatalf("path %s missing", o.path)
			}
			op := item.GetOperation(o.method)
			if op == nil {
				t.Fatalf("%s %s missing", o.method, o.path)
			}
			if op.OperationID != o.opID {
				t.Errorf("operationId = %q, want %q", op.OperationID, o.opID)
			}
			if len(op.Tags) == 0 {
				t.Error("no tags")
			}
			if !strings.HasPrefix(o.path, "/api/v1/") || strings.HasPrefix(o.path, "/api/v1/openapi.") {
				return
			}
			// Every authenticated operation names its scope and documents the common errors.
			if op.Security == nil || len(*op.Security) != 2 {
				t.Errorf("security = %v, want bearerAuth and oauth2 with a scope", op.Security)
			}
			for _, code := range []int{401, 403, 422, 429, 500, 503} {
				if op.Responses.Status(code) == nil {
					t.Errorf("response %d not documented", code)
				}
			}
			if strings.Contains(o.path, "{id}") && op.Responses.Status(404) == nil {
				t.Error("response 404 not documented")
			}
			if op.RequestBody != nil {
				for _, code := range []int{400, 413, 415} {
					if op.Responses.Status(code) == nil {
						t.Errorf("response %d not documented", code)
					}
				}
			}
			if o.method == "POST" {
				found := false
				for _, p := range op.Parameters {
					if p.Value != nil && p.Value.Name == "Idempotency-Key" && p.Value.In == "header" {
						found = true
					}
				}
				if !found {
					t.Error("POST without Idempotency-Key header parameter")
				}
			}
		})
	}
	// And nothing undocumented by the protocol.
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if !want[method+" "+path] {
				t.Errorf("%s %s is in the document but not in the contract table", method, path)
			}
		}
	}
}

const (
	patID = "pat_0193a1b2c3d4e5f60718293a4b5c6d7e"
	reqID = "req_0193a1b2c3d4e5f60718293a4b5c6d7f"
)

// mockClient returns a client whose transport is Transport(tb, httpmock) and the mock.
func mockClient(tb testing.TB) (*http.Client, *httpmock.MockTransport) {
	mock := httpmock.NewMockTransport()
	return &http.Client{Transport: Transport(tb, mock)}, mock
}

func jsonResponder(status int, contentType, body string, hdr map[string]string) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) {
		r := httpmock.NewStringResponse(status, body)
		r.Header.Set("Content-Type", contentType)
		r.Header.Set("X-Request-Id", reqID)
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		return r, nil
	}
}

const goodPatient = `{"id":"` + patID + `","firstName":"Jane","lastName":"Doe","email":"jane@example.com",
"phone":null,"gender":"female","tags":["vip"],"createdAt":"2026-11-22T14:03:00Z","updatedAt":"2026-11-22T14:03:00Z","futureField":1}`

func TestTransportAcceptsConformingTraffic(t *testing.T) {
	ftb := &fakeTB{TB: t}
	hc, mock := mockClient(ftb)
	mock.RegisterResponder("GET", "=~^http://127\\.0\\.0\\.1:\\d+/api/v1/patients/pat_", jsonResponder(200, "application/json", goodPatient,
		map[string]string{"RateLimit": `"burst";r=57;t=43`, "X-RateLimit-Remaining": "57"}))
	mock.RegisterResponder("POST", "http://localhost/api/v1/patients", jsonResponder(201, "application/json", goodPatient,
		map[string]string{"Idempotent-Replayed": "true"}))
	mock.RegisterResponder("GET", "http://localhost/v1/patients", jsonResponder(200, "application/json",
		`{"data":[`+goodPatient+`],"meta":{"total":1,"page":1,"perPage":25}}`, nil))
	mock.RegisterResponder("GET", "http://localhost/api/v1/reports/revenue", jsonResponder(200, "text/csv; charset=utf-8",
		"key,collected,payments,invoiced,invoices\n2026-11-22,100,1,100,1\n", nil))
	mock.RegisterResponder("GET", "http://localhost/api/v1/patients/pat_nothex", jsonResponder(404, "application/problem+json",
		`{"type":"https://docs.medspa.dev/errors/not_found","title":"Not found","status":404,"code":"not_found","requestId":"`+reqID+`"}`, nil))
	mock.RegisterResponder("POST", "http://localhost/__admin/reset", httpmock.NewStringResponder(204, ""))

	do := func(ctx context.Context, method, url, ct, body string) string {
		req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer msk_test_abc")
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ctx := t.Context()
	if got := do(ctx, "GET", "http://127.0.0.1:43123/api/v1/patients/"+patID, "", ""); got != goodPatient {
		t.Errorf("response body not re-readable: %q", got)
	}
	do(ctx, "POST", "http://localhost/api/v1/patients", "application/json", `{"firstName":"Jane","lastName":"Doe","email":"jane@example.com","tags":["vip"]}`)
	do(ctx, "GET", "http://localhost/v1/patients?perPage=10&sort=-createdAt", "", "")
	do(ctx, "GET", "http://localhost/api/v1/reports/revenue?groupBy=day", "", "")
	do(ctx, "GET", "http://localhost/api/v1/patients/pat_nothex", "", "") // malformed id → 404: the request breaks the pattern on purpose
	do(ctx, "POST", "http://localhost/__admin/reset", "application/json", `{}`)
	reports := ftb.reports()
	// The malformed-id request itself is reported (its path parameter breaks the pattern);
	// nothing else is.
	if len(reports) != 1 || !strings.Contains(reports[0], "GET /api/v1/patients/pat_nothex: request") {
		t.Errorf("reports = %q, want exactly the malformed-id request", reports)
	}

	ftb2 := &fakeTB{TB: t}
	hc2 := &http.Client{Transport: Transport(ftb2, mock)}
	hc = hc2
	do(WithoutRequestValidation(ctx), "GET", "http://localhost/api/v1/patients/pat_nothex", "", "")
	if r := ftb2.reports(); len(r) != 0 {
		t.Errorf("WithoutRequestValidation: reports = %q", r)
	}
}

func TestTransportReportsNonConformingTraffic(t *testing.T) {
	cases := []struct {
		name          string
		method, url   string
		body          string
		respStatus    int
		respType      string
		respBody      string
		respHdr       map[string]string
		wantFragments []string
	}{
		{
			name: "patient missing id", method: "GET", url: "http://localhost/api/v1/patients/" + patID,
			respStatus: 200, respType: "application/json",
			respBody:      `{"firstName":"Jane","lastName":"Doe","email":"jane@example.com","createdAt":"2026-11-22T14:03:00Z","updatedAt":"2026-11-22T14:03:00Z"}`,
			wantFragments: []string{"GET /api/v1/patients/" + patID + " → 200", `"id"`},
		},
		{
			name: "problem as application/json", method: "GET", url: "http://localhost/api/v1/patients/" + patID,
			respStatus: 404, respType: "application/json",
			respBody:      `{"type":"https://docs.medspa.dev/errors/not_found","title":"Not found","status":404,"code":"not_found","requestId":"` + reqID + `"}`,
			wantFragments: []string{"→ 404", "application/json"},
		},
		{
			name: "missing X-Request-Id", method: "GET", url: "http://localhost/api/v1/patients/" + patID,
			respStatus: 200, respType: "application/json", respBody: goodPatient, respHdr: map[string]string{"X-Request-Id": ""},
			wantFragments: []string{"X-Request-Id"},
		},
		{
			name: "undocumented status", method: "GET", url: "http://localhost/api/v1/patients",
			respStatus: 201, respType: "application/json", respBody: `{"data":[],"meta":{"total":0,"page":1,"perPage":25}}`,
			wantFragments: []string{"→ 201"},
		},
		{
			name: "request with unknown field", method: "POST", url: "http://localhost/api/v1/patients",
			body:       `{"firstName":"Jane","lastName":"Doe","email":"jane@example.com","nickname":"JD"}`,
			respStatus: 201, respType: "application/json", respBody: goodPatient,
			wantFragments: []string{"POST /api/v1/patients: request", "nickname"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ftb := &fakeTB{TB: t}
			hc, mock := mockClient(ftb)
			mock.RegisterResponder(tc.method, tc.url, func(*http.Request) (*http.Response, error) {
				r := httpmock.NewStringResponse(tc.respStatus, tc.respBody)
				r.Header.Set("Content-Type", tc.respType)
				r.Header.Set("X-Request-Id", reqID)
				for k, v := range tc.respHdr {
					if v == "" {
						r.Header.Del(k)
					} else {
						r.Header.Set(k, v)
					}
				}
				return r, nil
			})
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req, _ := http.NewRequestWithContext(t.Context(), tc.method, tc.url, body)
			req.Header.Set("Authorization", "Bearer mat_token")
			if tc.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != tc.respBody {
				t.Errorf("body changed: %q", b)
			}
			reports := ftb.reports()
			if len(reports) == 0 {
				t.Fatal("no report")
			}
			all := strings.Join(reports, "\n")
			for _, f := range tc.wantFragments {
				if !strings.Contains(all, f) {
					t.Errorf("report lacks %q:\n%s", f, all)
				}
			}
		})
	}
}

// TestTransportOverTCP checks a real server on a random loopback port, concurrently, with
// the request body reaching the server intact.
func TestTransportOverTCP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(b), "Jane") {
			w.Header().Set("Content-Type", "application/problem+json")
			w.Header().Set("X-Request-Id", reqID)
			w.WriteHeader(400)
			fmt.Fprintf(w, `{"type":"https://docs.medspa.dev/errors/malformed_json","title":"x","status":400,"code":"malformed_json","requestId":%q}`, reqID)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", reqID)
		w.WriteHeader(201)
		io.WriteString(w, goodPatient)
	}))
	defer srv.Close()
	ftb := &fakeTB{TB: t}
	hc := &http.Client{Transport: Transport(ftb, srv.Client().Transport)}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			var body io.Reader = strings.NewReader(`{"firstName":"Jane","lastName":"Doe","email":"jane@example.com"}`)
			if i%2 == 1 {
				body = io.NopCloser(body) // no GetBody: the transport must send a copy
			}
			req, _ := http.NewRequestWithContext(t.Context(), "POST", srv.URL+"/api/v1/patients", body)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", "0b3c6a52-3b9f-4a8e-9d0c-2f7e1f7c9a11")
			resp, err := hc.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 201 {
				t.Errorf("status %d: body did not reach the server", resp.StatusCode)
			}
		})
	}
	wg.Wait()
	if r := ftb.reports(); len(r) != 0 {
		t.Errorf("reports = %q", r)
	}
}

func TestValidateRawCalls(t *testing.T) {
	req := httptest.NewRequestWithContext(t.Context(), "PATCH", "http://localhost/api/v1/patients/"+patID,
		strings.NewReader(`{"phone":null,"firstName":null}`))
	req.Header.Set("Content-Type", "application/merge-patch+json")
	ftb := &fakeTB{TB: t}
	ValidateRequest(ftb, req) // firstName is required: null is not allowed
	if r := ftb.reports(); len(r) != 1 || !strings.Contains(r[0], "firstName") {
		t.Errorf("reports = %q, want one about firstName", r)
	}
	if b, _ := io.ReadAll(req.Body); string(b) != `{"phone":null,"firstName":null}` {
		t.Errorf("request body not re-readable: %q", b)
	}

	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/problem+json")
	rec.Header().Set("X-Request-Id", reqID)
	rec.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="patients:write"`)
	rec.WriteHeader(403)
	io.WriteString(rec, `{"type":"https://docs.medspa.dev/errors/insufficient_scope","title":"Forbidden","status":403,"code":"insufficient_scope","requestId":"`+reqID+`"}`)
	resp := rec.Result()
	ftb = &fakeTB{TB: t}
	ValidateResponse(ftb, req, resp)
	if r := ftb.reports(); len(r) != 0 {
		t.Errorf("reports = %q", r)
	}
	if b, _ := io.ReadAll(resp.Body); !strings.Contains(string(b), "insufficient_scope") {
		t.Errorf("response body not re-readable: %q", b)
	}

	// Undocumented paths are not checked.
	adm := httptest.NewRequestWithContext(t.Context(), "POST", "http://localhost/__admin/api-keys", strings.NewReader(`{`))
	if err := CheckRequest(adm); err != nil {
		t.Errorf("CheckRequest(/__admin) = %v", err)
	}
}

func TestOAuthForms(t *testing.T) {
	req := httptest.NewRequestWithContext(t.Context(), "POST", "http://127.0.0.1:9/oauth/token",
		strings.NewReader("grant_type=client_credentials&scope=patients%3Aread"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("cli_1", "secret")
	if err := CheckRequest(req); err != nil {
		t.Errorf("token request: %v", err)
	}
	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/json")
	rec.Header().Set("Cache-Control", "no-store")
	rec.Header().Set("X-Request-Id", reqID)
	io.WriteString(rec, `{"access_token":"mat_x","token_type":"Bearer","expires_in":3600,"scope":"patients:read"}`)
	if err := CheckResponse(req, rec.Result()); err != nil {
		t.Errorf("token response: %v", err)
	}
	bad := httptest.NewRequestWithContext(t.Context(), "POST", "http://127.0.0.1:9/oauth/token",
		strings.NewReader("grant_type=password"))
	bad.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if err := CheckRequest(bad); err == nil {
		t.Error("grant_type=password passed")
	}
}

func TestEvents(t *testing.T) {
	good := `{"id":"evt_0193a1b2c3d4e5f60718293a4b5c6d7e","type":"appointment.created","createdAt":"2026-11-22T14:03:00Z",
"data":{"object":"appointment","id":"apt_0193a1b2c3d4e5f60718293a4b5c6d7e","patientId":"` + patID + `","providerId":"prv_9","status":"scheduled","startAt":"2026-11-22T15:00:00Z"}}`
	if err := CheckEvent([]byte(good)); err != nil {
		t.Errorf("good event: %v", err)
	}
	for name, bad := range map[string]string{
		"unknown object": `{"id":"evt_0193a1b2c3d4e5f60718293a4b5c6d7e","type":"patient.created","createdAt":"2026-11-22T14:03:00Z","data":{"object":"person","id":"x"}}`,
		"bad status":     `{"id":"evt_0193a1b2c3d4e5f60718293a4b5c6d7e","type":"appointment.updated","createdAt":"2026-11-22T14:03:00Z","data":{"object":"appointment","id":"apt_0193a1b2c3d4e5f60718293a4b5c6d7e","status":"late"}}`,
		"bad type":       `{"id":"evt_0193a1b2c3d4e5f60718293a4b5c6d7e","type":"patient.deleted","createdAt":"2026-11-22T14:03:00Z","data":{"object":"patient","id":"` + patID + `"}}`,
	} {
		ftb := &fakeTB{TB: t}
		ValidateEvent(ftb, []byte(bad))
		if len(ftb.reports()) != 1 {
			t.Errorf("%s: reports = %q, want one", name, ftb.reports())
		}
	}
}
