package mockserver_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// syncBuffer is a log sink written from many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestNoPHIOrSecretsAnywhere runs a full session (patients with every PHI field, appointments
// and invoices with notes, payments, webhook deliveries, PHI in query strings, rejected
// requests carrying PHI, an injected fault and an OAuth token) with the server's and the SDK's
// debug logs captured, then scans every log line, error body, event, webhook delivery, journal
// entry and audit event for the seeded PHI, and the logs, journal, events and audit log for the
// API key, OAuth secret and token and webhook secret. The saved state is scanned for PHI too
// (it is sealed at rest).
func TestNoPHIOrSecretsAnywhere(t *testing.T) {
	t.Parallel()
	var serverLog, sdkLog syncBuffer
	debug := &slog.HandlerOptions{Level: slog.LevelDebug}
	env := testenv.New(t, []mockserver.Option{mockserver.WithLogger(slog.New(slog.NewJSONHandler(&serverLog, debug)))},
		medspa.WithLogger(slog.New(slog.NewJSONHandler(&sdkLog, debug))), medspa.WithMaxRetries(3))
	ctx := context.Background()
	c := env.Client
	phi := []string{"Zelda", "Quixotic", "zelda.quixotic", "5550001234", "1971-03-04", "Evergreen", "Springfieldia",
		"Hemangioma", "penicillin", "Cheekfiller", "Latexallergy", "Zygomatic"}

	var deliveries syncBuffer
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_, _ = deliveries.Write(append(b, '\n'))
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(recv.Close)
	hook, _, err := c.Webhooks.Create(ctx, &webhooks.CreateParams{URL: recv.URL + "/hook", Events: []webhooks.EventType{webhooks.EventAll}})
	if err != nil {
		t.Fatal(err)
	}
	rec := env.Server.RecordEvents(env.Key.Account)

	// A fault on the first create: the retry path logs too.
	if err := env.Server.InjectFault(mockserver.Fault{Method: "POST", Path: "/api/v1/patients", Status: 503, Times: 1}); err != nil {
		t.Fatal(err)
	}
	pat, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Zelda", LastName: "Quixotic", Email: "zelda.quixotic@phi.example",
		Phone: "+15550001234", DateOfBirth: client.NewDate(1971, time.March, 4), Gender: patients.GenderFemale,
		Address:   &patients.Address{Line1: "742 Evergreen Terrace", City: "Springfieldia", Country: "US"},
		Allergies: []string{"penicillin"}, Notes: "Hemangioma on left cheek", Tags: []string{"vip"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Patients.Update(ctx, pat.ID, &patients.UpdateParams{Notes: medspa.Set("Latexallergy noted")}); err != nil {
		t.Fatal(err)
	}
	start := env.Server.Now(env.Key.Account).Add(72 * time.Hour).Truncate(time.Hour)
	apt, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{PatientID: pat.ID, ProviderID: "prv_1", Service: "consult",
		StartAt: start, EndAt: start.Add(time.Hour), Notes: "Zygomatic assessment"})
	if err != nil {
		t.Fatal(err)
	}
	inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: pat.ID, AppointmentID: apt.ID, Notes: "Cheekfiller follow-up",
		LineItems: []billing.LineItemParams{{Description: "consult", Quantity: 1, UnitAmount: medspa.Ptr[int64](5000)}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 5000, Method: billing.MethodCard, CardToken: "tok_visa"}); err != nil {
		t.Fatal(err)
	}
	// A refund with notes (PHI) and a rotated webhook secret, over raw HTTP.
	var pays struct{ Data []struct{ ID string } }
	if _, b := env.Do(t, "GET", "/api/v1/payments?invoiceId="+inv.ID, ""); json.Unmarshal(b, &pays) != nil || len(pays.Data) != 1 {
		t.Fatalf("payments: %s", b)
	}
	var refund struct{ ID string }
	if r, b := env.Do(t, "POST", "/api/v1/refunds", `{"paymentId":"`+pays.Data[0].ID+`","amount":100,"notes":"Cheekfiller refund"}`); r.StatusCode != 201 || json.Unmarshal(b, &refund) != nil {
		t.Fatalf("refund: %d %s", r.StatusCode, b)
	}
	if r, _ := env.Do(t, "GET", "/api/v1/refunds/"+refund.ID, ""); r.StatusCode != 200 {
		t.Fatalf("GET refund: %d", r.StatusCode)
	}
	var rotated struct{ Secret string }
	if r, b := env.Do(t, "POST", "/api/v1/webhooks/"+hook.ID+"/rotate-secret", `{"expiresInSeconds":60}`); r.StatusCode != 200 || json.Unmarshal(b, &rotated) != nil {
		t.Fatalf("rotate: %d %s", r.StatusCode, b)
	}
	// PHI in query strings, and rejected requests carrying PHI.
	if _, _, err := c.Patients.List(ctx, &patients.ListParams{Q: "Quixotic", Email: "zelda.quixotic@phi.example"}); err != nil {
		t.Fatal(err)
	}
	var errorBodies []string
	for _, r := range []struct{ method, path, body string }{
		{"POST", "/api/v1/patients", `{"firstName":"Zelda","lastName":"Quixotic","email":"zelda.quixotic-at-phi","phone":"5550001234","dateOfBirth":"1971-03-04x"}`},
		{"PATCH", "/api/v1/patients/" + pat.ID, `{"notes":"Hemangioma","address":{"city":"Springfieldia","country":"Evergreen"}}`},
		{"POST", "/api/v1/appointments", `{"patientId":"` + pat.ID + `","notes":"Zygomatic"}`},
		{"GET", "/api/v1/patients?q=Zelda&bogus=Quixotic", ``},
		{"GET", "/api/v1/patients/zelda.quixotic", ``},
		{"POST", "/api/v1/refunds", `{"paymentId":"Zelda","notes":"Zygomatic","reason":"Quixotic"}`},
		{"POST", "/api/v1/invoices/" + inv.ID + "/void", `{"reason":"Hemangioma"}`},
	} {
		_, b := env.DoInvalid(t, r.method, r.path, r.body)
		errorBodies = append(errorBodies, string(b))
	}
	if _, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Zelda", LastName: "Quixotic", Email: "zelda.quixotic"}); err == nil {
		t.Fatal("an invalid email was accepted")
	} else {
		errorBodies = append(errorBodies, err.Error())
	}

	// An OAuth client and token, used once.
	oc, err := env.Server.CreateOAuthClient(mockserver.OAuthClientParams{Plan: "starter", Scopes: []string{"patients:read"}, Account: env.Key.Account})
	if err != nil {
		t.Fatal(err)
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {oc.ClientID}, "client_secret": {oc.ClientSecret}}
	resp, err := env.HTTP.Post(env.URL+"/oauth/token", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if tok.AccessToken == "" {
		t.Fatal("no access token")
	}
	if r, _ := env.Do(t, "GET", "/api/v1/patients/"+pat.ID, "", "Authorization: Bearer "+tok.AccessToken); r.StatusCode != 200 {
		t.Fatalf("token GET: %d", r.StatusCode)
	}

	// Every event delivered (the dispatcher is asynchronous).
	events, err := rec.Wait(ctx, 6)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && strings.Count(deliveries.String(), "\n") < len(events) {
		time.Sleep(10 * time.Millisecond)
	}
	evJSON, _ := json.Marshal(rec.Events())
	journal, _ := json.Marshal(env.Server.Requests(""))
	audit, _ := json.Marshal(env.Server.AuditEvents(env.Key.Account))
	dels, _ := json.Marshal(env.Server.Deliveries(env.Key.Account))
	var saved bytes.Buffer
	if err := env.Server.SaveState(&saved); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(serverLog.String(), "/api/v1/patients") || !strings.Contains(sdkLog.String(), "medspa request") {
		t.Fatalf("the logs are not captured:\nserver %.300s\nsdk %.300s", serverLog.String(), sdkLog.String())
	}
	if !strings.Contains(string(journal), "\"fault\"") || len(events) < 6 || !strings.Contains(deliveries.String(), pat.ID) {
		t.Fatal("the session did not exercise faults, events and deliveries")
	}

	sinks := map[string]string{
		"server log": serverLog.String(), "SDK log": sdkLog.String(), "error bodies": strings.Join(errorBodies, "\n"),
		"events": string(evJSON), "webhook deliveries": deliveries.String(), "delivery log": string(dels),
		"journal": string(journal), "audit log": string(audit),
	}
	for name, s := range sinks {
		for _, p := range phi {
			if strings.Contains(strings.ToLower(s), strings.ToLower(p)) {
				i := strings.Index(strings.ToLower(s), strings.ToLower(p))
				t.Errorf("%s contains PHI %q: …%s…", name, p, s[max(0, i-120):min(len(s), i+60)])
			}
		}
		for what, secret := range map[string]string{"API key": env.Key.Key, "OAuth client secret": oc.ClientSecret,
			"access token": tok.AccessToken, "webhook secret": hook.Secret, "rotated webhook secret": rotated.Secret} {
			if strings.Contains(s, secret) {
				t.Errorf("%s contains the %s", name, what)
			}
		}
	}
	// Byte fields are base64 in JSON, so the state is scanned with every such value decoded too:
	// a stored answer body (idempotency replays) would hide PHI there.
	state := saved.String() + "\n" + decodedBase64Strings(t, saved.Bytes())
	for _, p := range phi {
		if strings.Contains(strings.ToLower(state), strings.ToLower(p)) {
			t.Errorf("the saved state holds PHI %q in the clear", p)
		}
	}
}

// decodedBase64Strings returns every string value in the JSON document b that decodes as
// standard base64, decoded, one per line.
func decodedBase64Strings(t *testing.T, b []byte) string {
	t.Helper()
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("saved state: %v", err)
	}
	var out strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			if d, err := base64.StdEncoding.DecodeString(v); err == nil && len(d) > 0 {
				out.Write(d)
				out.WriteByte('\n')
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(doc)
	if out.Len() == 0 {
		t.Fatal("the saved state holds no byte fields: the scan of decoded values checks nothing")
	}
	return out.String()
}
