package oapitest

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
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
	{"POST", "/api/v1/invoices/{id}/void", "voidInvoice"},
	{"GET", "/api/v1/payments", "listPayments"},
	{"POST", "/api/v1/payments", "createPayment"},
	{"GET", "/api/v1/payments/{id}", "getPayment"},
	{"GET", "/api/v1/refunds", "listRefunds"},
	{"POST", "/api/v1/refunds", "createRefund"},
	{"GET", "/api/v1/refunds/{id}", "getRefund"},
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
	{"PATCH", "/api/v1/webhooks/{id}", "updateWebhook"},
	{"DELETE", "/api/v1/webhooks/{id}", "deleteWebhook"},
	{"POST", "/api/v1/webhooks/{id}/test", "testWebhook"},
	{"POST", "/api/v1/webhooks/{id}/rotate-secret", "rotateWebhookSecret"},
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
				// Request schemas are closed (unknown fields are 422 unknown_field); PATCH
				// also takes application/merge-patch+json (docs/protocol.md §1).
				content := op.RequestBody.Value.Content
				wantTypes := []string{"application/json"}
				if o.method == "PATCH" {
					wantTypes = append(wantTypes, "application/merge-patch+json")
				}
				if len(content) != len(wantTypes) {
					t.Errorf("request media types = %v, want %v", slices.Sorted(maps.Keys(content)), wantTypes)
				}
				for _, mt := range wantTypes {
					if content.Get(mt) == nil {
						t.Errorf("request body does not take %s", mt)
						continue
					}
					if ap := content.Get(mt).Schema.Value.AdditionalProperties; ap.Has == nil || *ap.Has {
						t.Errorf("%s request schema is open, want additionalProperties: false", mt)
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

// Ids of the billing and webhook extensions (docs/protocol.md §9), for the exchanges below.
const (
	invID = "inv_0193a1b2c3d4e5f60718293a4b5c6d7e"
	payID = "pay_0193a1b2c3d4e5f60718293a4b5c6d7e"
	refID = "ref_0193a1b2c3d4e5f60718293a4b5c6d7e"
	whkID = "whk_0193a1b2c3d4e5f60718293a4b5c6d7e"
)

const (
	voidedInvoice = `{"id":"` + invID + `","patientId":"` + patID + `","lineItems":[{"description":"Botox","quantity":1,"unitAmount":5000,"amount":5000}],
"currency":"usd","status":"void","subtotal":5000,"tax":0,"total":5000,"amountPaid":0,"amountDue":5000,"amountRefunded":0,
"voidedAt":"2026-11-22T15:00:00Z","voidReason":"raised in error","createdAt":"2026-11-22T14:03:00Z","updatedAt":"2026-11-22T15:00:00Z"}`
	refundedPayment = `{"id":"` + payID + `","invoiceId":"` + invID + `","amount":5000,"amountRefunded":2500,"currency":"usd",
"method":"card","status":"succeeded","card":{"brand":"visa","last4":"4242"},"createdAt":"2026-11-22T14:03:00Z"}`
	// legacyPayment is a payment from a server without the refund extension: no amountRefunded.
	legacyPayment = `{"id":"` + payID + `","invoiceId":"` + invID + `","amount":5000,"currency":"usd","method":"cash","status":"succeeded","createdAt":"2026-11-22T14:03:00Z"}`
	refund        = `{"id":"` + refID + `","paymentId":"` + payID + `","invoiceId":"` + invID + `","amount":2500,"currency":"usd",
"reason":"requested_by_customer","notes":null,"status":"succeeded","createdAt":"2026-11-22T15:00:00Z"}`
	webhook = `{"id":"` + whkID + `","url":"https://hooks.example.com/medspa","events":["invoice.voided","refund.created"],
"description":null,"enabled":true,"createdAt":"2026-11-22T14:03:00Z"}`
	rotation = `{"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw","previousSecretExpiresAt":"2026-11-23T14:03:00Z"}`
)

// TestExtensionExchanges pins how the document encodes the billing and webhook extensions of
// docs/protocol.md §9: conforming requests and responses pass, and each rule the document can
// express refuses its violation.
func TestExtensionExchanges(t *testing.T) {
	t.Parallel()
	page := func(item string) string { return `{"data":[` + item + `],"meta":{"total":1,"page":1,"perPage":25}}` }
	cases := []struct {
		name             string
		method, target   string
		contentType      string
		body             string
		status           int
		respBody         string
		wantReq, wantRes string // a fragment of the finding; "" = conforms
	}{
		{name: "void without body", method: "POST", target: "/api/v1/invoices/" + invID + "/void", status: 200, respBody: voidedInvoice},
		{name: "void with reason", method: "POST", target: "/api/v1/invoices/" + invID + "/void", contentType: "application/json",
			body: `{"reason":"raised in error"}`, status: 200, respBody: voidedInvoice},
		{name: "void reason too long", method: "POST", target: "/api/v1/invoices/" + invID + "/void", contentType: "application/json",
			body: `{"reason":"` + strings.Repeat("x", 501) + `"}`, wantReq: "reason"},
		{name: "void unknown field", method: "POST", target: "/api/v1/invoices/" + invID + "/void", contentType: "application/json",
			body: `{"why":"x"}`, wantReq: "why"},
		{name: "void not voidable", method: "POST", target: "/api/v1/invoices/" + invID + "/void", status: 409,
			respBody: problem(409, "invoice_not_voidable")},
		{name: "invoice status filter void", method: "GET", target: "/api/v1/invoices?status=open,void", status: 200, respBody: page(voidedInvoice)},
		{name: "invoice unknown status", method: "GET", target: "/api/v1/invoices/" + invID, status: 200,
			respBody: strings.Replace(voidedInvoice, `"void"`, `"voided"`, 1), wantRes: "status"},
		{name: "payments list", method: "GET", target: "/api/v1/payments?invoiceId=" + invID + "&status=succeeded,failed&method=card,cash" +
			"&createdFrom=2026-11-01T00:00:00Z&createdTo=2026-12-01T00:00:00Z&sort=-createdAt&page=1&perPage=10", status: 200, respBody: page(refundedPayment)},
		{name: "payments list without amountRefunded", method: "GET", target: "/api/v1/payments", status: 200, respBody: page(legacyPayment)},
		{name: "payments bad method filter", method: "GET", target: "/api/v1/payments?method=card,barter", wantReq: "method"},
		{name: "payments bad invoiceId filter", method: "GET", target: "/api/v1/payments?invoiceId=pat_0193a1b2c3d4e5f60718293a4b5c6d7e", wantReq: "invoiceId"},
		{name: "create refund", method: "POST", target: "/api/v1/refunds", contentType: "application/json",
			body: `{"paymentId":"` + payID + `","amount":2500,"reason":"duplicate","notes":"double charge"}`, status: 201, respBody: refund},
		{name: "create refund, defaults", method: "POST", target: "/api/v1/refunds", contentType: "application/json",
			body: `{"paymentId":"` + payID + `"}`, status: 201, respBody: refund},
		{name: "refund amount zero", method: "POST", target: "/api/v1/refunds", contentType: "application/json",
			body: `{"paymentId":"` + payID + `","amount":0}`, wantReq: "amount"},
		{name: "refund unknown reason", method: "POST", target: "/api/v1/refunds", contentType: "application/json",
			body: `{"paymentId":"` + payID + `","reason":"changed_mind"}`, wantReq: "reason"},
		{name: "refund without payment", method: "POST", target: "/api/v1/refunds", contentType: "application/json",
			body: `{"amount":100}`, wantReq: "paymentId"},
		{name: "refund notes too long", method: "POST", target: "/api/v1/refunds", contentType: "application/json",
			body: `{"paymentId":"` + payID + `","notes":"` + strings.Repeat("x", 501) + `"}`, wantReq: "notes"},
		{name: "refund exceeds", method: "POST", target: "/api/v1/refunds", contentType: "application/json",
			body: `{"paymentId":"` + payID + `","amount":999999}`, status: 422, respBody: problem(422, "amount_exceeds_refundable")},
		{name: "refund not refundable", method: "POST", target: "/api/v1/refunds", contentType: "application/json",
			body: `{"paymentId":"` + payID + `"}`, status: 409, respBody: problem(409, "payment_not_refundable")},
		{name: "get refund", method: "GET", target: "/api/v1/refunds/" + refID, status: 200, respBody: refund},
		{name: "refund with another status", method: "GET", target: "/api/v1/refunds/" + refID, status: 200,
			respBody: strings.Replace(refund, `"succeeded"`, `"pending"`, 1), wantRes: "status"},
		{name: "refund with a payment id", method: "GET", target: "/api/v1/refunds/" + refID, status: 200,
			respBody: strings.Replace(refund, `"id":"ref_`, `"id":"pay_`, 1), wantRes: "id"},
		{name: "list refunds", method: "GET", target: "/api/v1/refunds?paymentId=" + payID + "&invoiceId=" + invID + "&sort=-createdAt",
			status: 200, respBody: page(refund)},
		{name: "refunds unknown sort", method: "GET", target: "/api/v1/refunds?sort=amount", wantReq: "sort"},
		{name: "patch webhook", method: "PATCH", target: "/api/v1/webhooks/" + whkID, contentType: "application/merge-patch+json",
			body: `{"url":"https://hooks.example.com/v2","events":["*"],"description":null,"enabled":false}`, status: 200, respBody: webhook},
		{name: "patch webhook as json", method: "PATCH", target: "/api/v1/webhooks/" + whkID, contentType: "application/json",
			body: `{"enabled":null}`, status: 200, respBody: webhook},
		{name: "patch webhook url null", method: "PATCH", target: "/api/v1/webhooks/" + whkID, contentType: "application/merge-patch+json",
			body: `{"url":null}`, wantReq: "url"},
		{name: "patch webhook no events", method: "PATCH", target: "/api/v1/webhooks/" + whkID, contentType: "application/json",
			body: `{"events":[]}`, wantReq: "events"},
		{name: "patch webhook secret", method: "PATCH", target: "/api/v1/webhooks/" + whkID, contentType: "application/json",
			body: `{"secret":"whsec_x"}`, wantReq: "secret"},
		{name: "rotate without body", method: "POST", target: "/api/v1/webhooks/" + whkID + "/rotate-secret", status: 200, respBody: rotation},
		{name: "rotate, drop at once", method: "POST", target: "/api/v1/webhooks/" + whkID + "/rotate-secret", contentType: "application/json",
			body: `{"expiresInSeconds":0}`, status: 200, respBody: strings.Replace(rotation, `"2026-11-23T14:03:00Z"`, "null", 1)},
		{name: "rotate, a week", method: "POST", target: "/api/v1/webhooks/" + whkID + "/rotate-secret", contentType: "application/json",
			body: `{"expiresInSeconds":604800}`, status: 200, respBody: rotation},
		{name: "rotate, too long", method: "POST", target: "/api/v1/webhooks/" + whkID + "/rotate-secret", contentType: "application/json",
			body: `{"expiresInSeconds":604801}`, wantReq: "expiresInSeconds"},
		{name: "rotate, negative", method: "POST", target: "/api/v1/webhooks/" + whkID + "/rotate-secret", contentType: "application/json",
			body: `{"expiresInSeconds":-1}`, wantReq: "expiresInSeconds"},
		{name: "rotation without previousSecretExpiresAt", method: "POST", target: "/api/v1/webhooks/" + whkID + "/rotate-secret", status: 200,
			respBody: `{"secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}`, wantRes: "previousSecretExpiresAt"},
		{name: "revenue with refunds", method: "GET", target: "/api/v1/reports/revenue?groupBy=month", status: 200,
			respBody: `{"report":"revenue","from":"2026-11-01T00:00:00Z","to":"2026-12-01T00:00:00Z","timezone":"UTC","groupBy":"month","currency":"usd",
"data":[{"key":"2026-11","collected":1000,"payments":1,"invoiced":5000,"invoices":1,"refunded":2500,"net":-1500}],
"totals":{"collected":1000,"payments":1,"invoiced":5000,"invoices":1,"refunded":2500,"net":-1500}}`},
		{name: "revenue negative refunded", method: "GET", target: "/api/v1/reports/revenue", status: 200,
			respBody: `{"report":"revenue","from":"2026-11-01T00:00:00Z","to":"2026-12-01T00:00:00Z","timezone":"UTC","groupBy":"day","data":[],
"totals":{"collected":0,"payments":0,"invoiced":0,"invoices":0,"refunded":-1,"net":1}}`, wantRes: "refunded"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			req := httptest.NewRequestWithContext(t.Context(), tc.method, "http://localhost"+tc.target, body)
			req.Header.Set("Authorization", "Bearer msk_test_abc")
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			if tc.method == "POST" {
				req.Header.Set("Idempotency-Key", "0b3c6a52-3b9f-4a8e-9d0c-2f7e1f7c9a11")
			}
			checkFinding(t, "request", CheckRequest(req), tc.wantReq)
			if tc.status == 0 {
				return
			}
			rec := httptest.NewRecorder()
			ct := "application/json"
			if tc.status >= 400 {
				ct = "application/problem+json"
			}
			rec.Header().Set("Content-Type", ct)
			rec.Header().Set("X-Request-Id", reqID)
			rec.WriteHeader(tc.status)
			io.WriteString(rec, tc.respBody)
			checkFinding(t, "response", CheckResponse(req, rec.Result()), tc.wantRes)
		})
	}
}

// problem is a problem document with the given status and code.
func problem(status int, code string) string {
	return fmt.Sprintf(`{"type":"https://docs.medspa.dev/errors/%s","title":"x","status":%d,"code":%q,"requestId":%q}`, code, status, code, reqID)
}

// checkFinding fails unless err is nil when want is "", or names want otherwise.
func checkFinding(t *testing.T, what string, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: unexpected finding: %v", what, err)
	case want != "" && err == nil:
		t.Errorf("%s: no finding, want one about %q", what, want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Errorf("%s: finding %v does not name %q", what, err, want)
	}
}

func TestExtensionEvents(t *testing.T) {
	t.Parallel()
	const head = `{"id":"evt_0193a1b2c3d4e5f60718293a4b5c6d7e","createdAt":"2026-11-22T14:03:00Z",`
	for _, good := range []string{
		head + `"type":"invoice.voided","data":{"object":"invoice","id":"` + invID + `","patientId":"` + patID + `","status":"void","currency":"usd","total":5000,"amountPaid":0,"amountDue":5000}}`,
		head + `"type":"refund.created","data":{"object":"refund","id":"` + refID + `","paymentId":"` + payID + `","invoiceId":"` + invID + `","amount":2500,"currency":"usd"}}`,
	} {
		if err := CheckEvent([]byte(good)); err != nil {
			t.Errorf("CheckEvent(%s) = %v", good, err)
		}
	}
	for name, bad := range map[string]string{
		"refund id of a payment": head + `"type":"refund.created","data":{"object":"refund","id":"` + payID + `","amount":2500}}`,
		"refund amount zero":     head + `"type":"refund.created","data":{"object":"refund","id":"` + refID + `","amount":0}}`,
		"unknown invoice status": head + `"type":"invoice.voided","data":{"object":"invoice","id":"` + invID + `","status":"voided"}}`,
		"unknown refund type":    head + `"type":"refund.failed","data":{"object":"refund","id":"` + refID + `"}}`,
	} {
		if CheckEvent([]byte(bad)) == nil {
			t.Errorf("%s: CheckEvent passed", name)
		}
	}
}

// CheckAdminResponse holds admin answers to api/admin-openapi.yaml, and lets paths it does not
// describe pass.
func TestCheckAdminResponse(t *testing.T) {
	t.Parallel()
	answer := func(status int, contentType, body string) *http.Response {
		h := http.Header{}
		if contentType != "" {
			h.Set("Content-Type", contentType)
		}
		return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body))}
	}
	problem := `{"type":"https://docs.medspa.dev/errors/origin_not_allowed","title":"Origin not allowed","status":403,"code":"origin_not_allowed"}`
	revoke := httptest.NewRequest("DELETE", "/__admin/api-keys/key_0193a5b2c3d47e8f9a0b1c2d3e4f5a6b", nil)
	for _, tc := range []struct {
		name string
		req  *http.Request
		resp *http.Response
		ok   bool
	}{
		{"204", revoke, answer(204, "", ""), true},
		{"403 problem", revoke, answer(403, "application/problem+json", problem), true},
		{"undocumented status", revoke, answer(200, "application/json", `{}`), false},
		{"problem without code", revoke, answer(403, "application/problem+json", `{"status":403}`), false},
		{"rotation without the new key", httptest.NewRequest("POST", "/__admin/api-keys/key_0193a5b2c3d47e8f9a0b1c2d3e4f5a6b/rotate", nil),
			answer(200, "application/json", `{"id":"key_0193a5b2c3d47e8f9a0b1c2d3e4f5a6b"}`), false},
		{"undocumented path", httptest.NewRequest("GET", "/__admin/nowhere", nil), answer(404, "application/problem+json", problem), true},
	} {
		if err := CheckAdminResponse(tc.req, tc.resp); (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
