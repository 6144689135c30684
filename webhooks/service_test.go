package webhooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/oapitest"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// delivery is one request a test receiver got.
type delivery struct {
	header http.Header
	body   []byte
	at     time.Time
}

// testReceiver is a loopback webhook receiver whose answers a test scripts.
type testReceiver struct {
	URL     string
	mu      sync.Mutex
	got     []delivery
	answer  func(n int, w http.ResponseWriter, r *http.Request) // n counts from 1
	release chan struct{}                                       // closed at cleanup: hanging handlers return
}

func newTestReceiver(t *testing.T, answer func(n int, w http.ResponseWriter, r *http.Request)) *testReceiver {
	t.Helper()
	rc := &testReceiver{answer: answer, release: make(chan struct{})}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, delivery{header: r.Header.Clone(), body: b, at: time.Now()})
		n := len(rc.got)
		rc.mu.Unlock()
		if rc.answer != nil {
			rc.answer(n, w, r)
		}
	}))
	rc.URL = ts.URL + "/hook"
	t.Cleanup(func() { close(rc.release); ts.Close() })
	return rc
}

func (rc *testReceiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.got)
}

// answer answers code to every delivery.
func answer(code int) func(int, http.ResponseWriter, *http.Request) {
	return func(_ int, w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// settle gives the dispatcher a moment to do something it must not do.
func settle() { time.Sleep(50 * time.Millisecond) }

func attempts(env *testenv.Env) []mockserver.Delivery { return env.Server.Deliveries(env.Key.Account) }

func waitAttempts(t *testing.T, env *testenv.Env, n int) []mockserver.Delivery {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d delivery attempts", n), func() bool { return len(attempts(env)) >= n })
	return attempts(env)
}

func register(t *testing.T, env *testenv.Env, url string, events ...webhooks.EventType) *webhooks.Endpoint {
	t.Helper()
	e, _, err := env.Client.Webhooks.Create(context.Background(), &webhooks.CreateParams{URL: url, Events: events})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

var ada = patients.CreateParams{
	FirstName: "Adalind", LastName: "Quixotica", Email: "adalind.quixotica@example.com", Phone: "+15557654321",
	Notes: "Allergic to penicillin", Address: &patients.Address{Line1: "12 Hidden Lane", City: "Springfield"},
}

// phi are the seeded values that must never appear in a delivery.
var phi = []string{"Adalind", "Quixotica", "adalind.quixotica", "5557654321", "penicillin", "Hidden Lane", "Springfield"}

func createPatient(t *testing.T, env *testenv.Env) *patients.Patient {
	t.Helper()
	p, _, err := env.Client.Patients.Create(context.Background(), &ada)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestEndpointCRUD(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	ctx := context.Background()
	rc := newTestReceiver(t, answer(200))
	on := false
	e, _, err := env.Client.Webhooks.Create(ctx, &webhooks.CreateParams{
		URL: rc.URL, Events: []webhooks.EventType{webhooks.EventPatientCreated, webhooks.EventPatientUpdated},
		Description: "CRM sync", Enabled: &on,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(e.ID, "whk_") || !strings.HasPrefix(e.Secret, webhooks.SecretPrefix) || e.Enabled ||
		e.Description != "CRM sync" || e.URL != rc.URL || len(e.Events) != 2 || e.CreatedAt.IsZero() {
		t.Fatalf("created endpoint = %+v", e)
	}
	got, _, err := env.Client.Webhooks.Get(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Secret != "" || got.ID != e.ID || got.Enabled {
		t.Fatalf("got %+v", got)
	}
	// The secret is never returned after creation, not even as a key.
	for _, path := range []string{"/api/v1/webhooks/" + e.ID, "/api/v1/webhooks"} {
		resp, body := env.Do(t, "GET", path, "")
		if resp.StatusCode != 200 || strings.Contains(string(body), "secret") || strings.Contains(string(body), "whsec_") {
			t.Fatalf("GET %s = %d %s", path, resp.StatusCode, body)
		}
	}
	e2 := register(t, env, rc.URL, webhooks.EventAll)
	if !e2.Enabled {
		t.Fatal("enabled should default to true")
	}
	page, _, err := env.Client.Webhooks.List(ctx, &webhooks.ListParams{ListOptions: client.ListOptions{PerPage: 1}})
	if err != nil || page.Meta.Total != 2 || len(page.Data) != 1 || page.Data[0].ID != e.ID {
		t.Fatalf("list = %+v, %v", page, err)
	}
	var ids []string
	for w, err := range env.Client.Webhooks.All(ctx, &webhooks.ListParams{ListOptions: client.ListOptions{PerPage: 1}}) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, w.ID)
	}
	if !slices.Equal(ids, []string{e.ID, e2.ID}) {
		t.Fatalf("all = %v", ids)
	}
	if _, err := env.Client.Webhooks.Delete(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := env.Client.Webhooks.Get(ctx, e.ID); !errors.Is(err, medspa.ErrNotFound) {
		t.Fatalf("get after delete: %v", err)
	}
	if _, err := env.Client.Webhooks.Delete(ctx, e.ID); !errors.Is(err, medspa.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	for _, id := range []string{"whk_nope", "pat_0193a6b0c1d27e3f8a9b0c1d2e3f4a5b"} {
		if _, _, err := env.Client.Webhooks.Get(oapitest.WithoutRequestValidation(ctx), id); !errors.Is(err, medspa.ErrNotFound) {
			t.Fatalf("get %q: %v", id, err)
		}
	}
	// An id that is not one path segment never leaves the SDK (issue 16); the server answers
	// 404 to one sent anyway.
	if _, _, err := env.Client.Webhooks.Get(ctx, "../x"); !errors.Is(err, medspa.ErrInvalidArgument) {
		t.Fatalf(`get "../x": %v`, err)
	}
	if resp, _ := env.DoInvalid(t, "GET", "/api/v1/webhooks/..%2Fx", ""); resp.StatusCode != 404 {
		t.Fatalf("raw ..%%2Fx: %d", resp.StatusCode)
	}
	if resp, _ := env.DoInvalid(t, "GET", "/api/v1/webhooks?foo=1", ""); resp.StatusCode != 422 {
		t.Fatalf("unknown parameter: %d", resp.StatusCode)
	}

	// Another account sees none of it.
	other := env.ClientFor(t, env.NewKey(t, mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}}).Key)
	if _, _, err := other.Webhooks.Get(ctx, e2.ID); !errors.Is(err, medspa.ErrNotFound) {
		t.Fatalf("other account get: %v", err)
	}
	if _, _, err := other.Webhooks.Test(ctx, e2.ID); !errors.Is(err, medspa.ErrNotFound) {
		t.Fatalf("other account test: %v", err)
	}
	if _, err := other.Webhooks.Delete(ctx, e2.ID); !errors.Is(err, medspa.ErrNotFound) {
		t.Fatalf("other account delete: %v", err)
	}
	if page, _, err := other.Webhooks.List(ctx, nil); err != nil || page.Meta.Total != 0 {
		t.Fatalf("other account list: %+v, %v", page, err)
	}

	// Scopes: webhooks:read may read, not write.
	ro := env.ClientFor(t, env.NewKey(t, mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"webhooks:read"}, Account: env.Key.Account}).Key)
	if _, _, err := ro.Webhooks.List(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ro.Webhooks.Create(ctx, &webhooks.CreateParams{URL: rc.URL, Events: []webhooks.EventType{"*"}}); !errors.Is(err, medspa.ErrInsufficientScope) {
		t.Fatalf("create with webhooks:read: %v", err)
	}
	if _, _, err := ro.Webhooks.Test(ctx, e2.ID); !errors.Is(err, medspa.ErrInsufficientScope) {
		t.Fatalf("test with webhooks:read: %v", err)
	}
}

// TestEventsArriveSignedWithoutPHI: every event kind arrives signed with the endpoint's secret
// at the (moved) account clock, and no delivery carries PHI.
func TestEventsArriveSignedWithoutPHI(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	ctx := context.Background()
	c := env.Client
	at := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	env.Server.SetTime(env.Key.Account, at)
	rc := newTestReceiver(t, answer(204))
	e := register(t, env, rc.URL, webhooks.EventAll)
	rec := env.Server.RecordEvents(env.Key.Account)
	defer rec.Stop()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	// One API call after another, each emitting events (in this order).
	p := createPatient(t, env)
	_, _, err := c.Patients.Update(ctx, p.ID, &patients.UpdateParams{Notes: medspa.Set("Prefers penicillin-free care")})
	must(err)
	apt, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: p.ID, ProviderID: "prv_9", Service: "Botox", StartAt: at.Add(24 * time.Hour), EndAt: at.Add(25 * time.Hour),
		Notes: "Adalind prefers penicillin-free numbing cream",
	})
	must(err)
	_, _, err = c.Appointments.Update(ctx, apt.ID, &appointments.UpdateParams{Status: medspa.Set(appointments.StatusConfirmed)})
	must(err)
	_, _, err = c.Appointments.Cancel(ctx, apt.ID, "")
	must(err)
	prd, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{SKU: "BTX-100", Name: "Botox 100u", Category: inventory.CategoryNeurotoxin, Price: 120000, ReorderPoint: 5})
	must(err)
	in, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: prd.ID, Delta: 10, Reason: inventory.ReasonReceived, Note: "for Adalind Quixotica"})
	must(err)
	out, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: prd.ID, Delta: -6, Reason: inventory.ReasonUsed, Note: "used on Adalind"})
	must(err)
	inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{PatientID: p.ID,
		LineItems: []billing.LineItemParams{{Description: "Consult for Adalind Quixotica", Quantity: 1, UnitAmount: medspa.Ptr[int64](10000)}},
		Notes:     "Hidden Lane, Springfield"})
	must(err)
	_, _, err = c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 10000, Method: billing.MethodCard, CardToken: billing.TokenDecline})
	var declined *medspa.Error
	if !errors.As(err, &declined) || declined.PaymentID == "" {
		t.Fatalf("declined payment: %v", err)
	}
	pay, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{InvoiceID: inv.ID, Amount: 10000, Method: billing.MethodCash})
	must(err)
	// A refund (its notes are PHI) and a voided invoice, over raw HTTP.
	var ref, voided struct{ ID string }
	resp, body := env.Do(t, http.MethodPost, "/api/v1/refunds", `{"paymentId":"`+pay.ID+`","amount":2500,"notes":"Adalind Quixotica changed her mind"}`)
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &ref) != nil {
		t.Fatalf("refund: %d %s", resp.StatusCode, body)
	}
	resp, body = env.Do(t, http.MethodPost, "/api/v1/invoices", `{"patientId":"`+p.ID+`","lineItems":[{"description":"x","quantity":1,"unitAmount":500}]}`)
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &voided) != nil {
		t.Fatalf("invoice: %d %s", resp.StatusCode, body)
	}
	if resp, body := env.Do(t, http.MethodPost, "/api/v1/invoices/"+voided.ID+"/void", `{"reason":"raised in error"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("void: %d %s", resp.StatusCode, body)
	}
	tr, _, err := c.Webhooks.Test(ctx, e.ID)
	if err != nil || !tr.Delivered {
		t.Fatalf("test delivery: %+v, %v", tr, err)
	}

	// Every kind, with the ids of its objects (one entry per expected delivery).
	want := map[webhooks.EventType][]string{
		webhooks.EventPatientCreated:       {p.ID},
		webhooks.EventPatientUpdated:       {p.ID},
		webhooks.EventAppointmentCreated:   {apt.ID},
		webhooks.EventAppointmentUpdated:   {apt.ID},
		webhooks.EventAppointmentCancelled: {apt.ID},
		webhooks.EventProductCreated:       {prd.ID},
		webhooks.EventInventoryAdjusted:    {in.ID, out.ID},
		webhooks.EventInventoryLowStock:    {out.Inventory.ID},
		webhooks.EventInvoiceCreated:       {inv.ID, voided.ID},
		webhooks.EventPaymentFailed:        {declined.PaymentID},
		webhooks.EventPaymentSucceeded:     {pay.ID},
		webhooks.EventInvoicePaid:          {inv.ID},
		webhooks.EventRefundCreated:        {ref.ID},
		webhooks.EventInvoiceVoided:        {voided.ID},
		webhooks.EventWebhookTest:          {e.ID},
	}
	for _, typ := range webhooks.AllEventTypes() {
		if len(want[typ]) == 0 {
			t.Fatalf("the test triggers no %s event", typ)
		}
	}
	total := 0
	for _, ids := range want {
		total += len(ids)
	}
	waitFor(t, "every delivery", func() bool { return len(rc.deliveries()) >= total })
	settle()
	got := rc.deliveries()
	if len(got) != total {
		t.Fatalf("got %d deliveries, want %d", len(got), total)
	}
	for _, d := range got {
		ev, err := webhooks.Verify(e.Secret, d.header, d.body, webhooks.WithNow(func() time.Time { return at }))
		if err != nil {
			t.Fatalf("verify %s: %v", d.body, err)
		}
		// Signed at the account clock, not real time.
		if _, err := webhooks.Verify(e.Secret, d.header, d.body); !errors.Is(err, webhooks.ErrTimestampTooNew) {
			t.Fatalf("verify at real time: %v, want ErrTimestampTooNew", err)
		}
		if ts := d.header.Get("webhook-timestamp"); ts != fmt.Sprint(at.Unix()) {
			t.Fatalf("webhook-timestamp = %s, want %d", ts, at.Unix())
		}
		if d.header.Get("webhook-id") != ev.ID || d.header.Get("User-Agent") != "medspa-webhooks/1" ||
			d.header.Get("Content-Type") != "application/json" {
			t.Fatalf("headers %v", d.header)
		}
		if !ev.CreatedAt.Equal(at) {
			t.Fatalf("createdAt = %v", ev.CreatedAt)
		}
		if _, unknown := ev.Unknown(); unknown {
			t.Fatalf("%s decoded as unknown data", ev.Type)
		}
		ids := want[ev.Type]
		i := slices.IndexFunc(ids, func(id string) bool { return strings.Contains(string(d.body), `"id":"`+id+`"`) })
		if i < 0 {
			t.Fatalf("unexpected delivery %s (still expected for its type: %v)", d.body, ids)
		}
		want[ev.Type] = slices.Delete(ids, i, i+1)
		for _, s := range phi {
			if strings.Contains(string(d.body), s) || strings.Contains(fmt.Sprint(d.header), s) {
				t.Fatalf("delivery of %s carries PHI %q", ev.Type, s)
			}
		}
	}
	// The recorder saw the domain events in emission order (not webhook.test, which is not a
	// domain event).
	evs, err := rec.Wait(ctx, total-1)
	var types []webhooks.EventType
	for _, ev := range evs {
		types = append(types, ev.Type)
	}
	if wantTypes := []webhooks.EventType{
		webhooks.EventPatientCreated, webhooks.EventPatientUpdated,
		webhooks.EventAppointmentCreated, webhooks.EventAppointmentUpdated, webhooks.EventAppointmentCancelled,
		webhooks.EventProductCreated, webhooks.EventInventoryAdjusted, webhooks.EventInventoryAdjusted, webhooks.EventInventoryLowStock,
		webhooks.EventInvoiceCreated, webhooks.EventPaymentFailed, webhooks.EventPaymentSucceeded, webhooks.EventInvoicePaid,
		webhooks.EventRefundCreated, webhooks.EventInvoiceCreated, webhooks.EventInvoiceVoided,
	}; err != nil || !slices.Equal(types, wantTypes) {
		t.Fatalf("recorded %v, %v; want %v", types, err, wantTypes)
	}
}

// TestRetrySchedule: a receiver failing twice then succeeding gets exactly three attempts, at
// the scheduled times on the account clock.
func TestRetrySchedule(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	env.Server.SetTime("", t0) // the server-wide clock this time
	rc := newTestReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n <= 2 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	e := register(t, env, rc.URL, webhooks.EventPatientCreated)
	createPatient(t, env)

	log := waitAttempts(t, env, 1)
	if a := log[0]; a.Attempt != 1 || a.StatusCode != 500 || a.Delivered || !a.At.Equal(t0) ||
		a.NextAttemptAt == nil || !a.NextAttemptAt.Equal(t0.Add(5*time.Second)) || a.EndpointID != e.ID {
		t.Fatalf("attempt 1 = %+v", a)
	}
	env.Server.AdvanceTime("", 4*time.Second)
	settle()
	if n := len(attempts(env)); n != 1 {
		t.Fatalf("retry ran early: %d attempts", n)
	}
	env.Server.AdvanceTime("", time.Second)
	log = waitAttempts(t, env, 2)
	if a := log[1]; a.Attempt != 2 || a.StatusCode != 500 || !a.At.Equal(t0.Add(5*time.Second)) ||
		!a.NextAttemptAt.Equal(t0.Add(5*time.Second+5*time.Minute)) {
		t.Fatalf("attempt 2 = %+v", a)
	}
	env.Server.AdvanceTime("", 5*time.Minute)
	log = waitAttempts(t, env, 3)
	if a := log[2]; a.Attempt != 3 || a.StatusCode != 200 || !a.Delivered || !a.At.Equal(t0.Add(5*time.Second+5*time.Minute)) || a.NextAttemptAt != nil {
		t.Fatalf("attempt 3 = %+v", a)
	}
	env.Server.AdvanceTime("", 48*time.Hour)
	settle()
	got := rc.deliveries()
	if len(got) != 3 || len(attempts(env)) != 3 {
		t.Fatalf("%d deliveries, %d attempts; want exactly 3", len(got), len(attempts(env)))
	}
	for i, d := range got {
		if d.header.Get("webhook-id") != log[0].EventID {
			t.Fatalf("delivery %d has webhook-id %s, want the event id %s", i, d.header.Get("webhook-id"), log[0].EventID)
		}
		ts := log[i].At
		if _, err := webhooks.Verify(e.Secret, d.header, d.body, webhooks.WithNow(func() time.Time { return ts })); err != nil {
			t.Fatalf("delivery %d: %v", i, err)
		}
	}
}

// TestRetryGivesUp: ten attempts in all, on the protocol's schedule, then nothing.
func TestRetryGivesUp(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	t0 := time.Date(2030, 1, 2, 0, 0, 0, 0, time.UTC)
	acct := env.Key.Account
	env.Server.SetTime(acct, t0)
	rc := newTestReceiver(t, answer(500))
	register(t, env, rc.URL, webhooks.EventAll)
	createPatient(t, env)
	schedule := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
		10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour}
	at := t0
	for i, wait := range schedule {
		log := waitAttempts(t, env, i+1)
		if a := log[i]; a.Attempt != i+1 || !a.At.Equal(at) || !a.NextAttemptAt.Equal(at.Add(wait)) {
			t.Fatalf("attempt %d = %+v, want at %v", i+1, a, at)
		}
		at = at.Add(wait)
		env.Server.AdvanceTime(acct, wait)
	}
	log := waitAttempts(t, env, 10)
	if a := log[9]; a.Attempt != 10 || !a.At.Equal(at) || a.NextAttemptAt != nil {
		t.Fatalf("last attempt = %+v", a)
	}
	env.Server.AdvanceTime(acct, 100*time.Hour)
	settle()
	if n := len(rc.deliveries()); n != 10 {
		t.Fatalf("%d deliveries, want 10", n)
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		status     int
		retryAfter string
		wait       time.Duration
	}{
		{429, "120", 120 * time.Second},
		{503, "3600", time.Hour},
		{503, "1", 5 * time.Second},                             // the schedule is longer
		{429, "999999", 24 * time.Hour},                         // capped
		{500, "120", 5 * time.Second},                           // only 429 and 503 carry a meaningful Retry-After
		{429, "soon", 5 * time.Second},                          // unparsable
		{503, "", 5 * time.Second},                              // absent
		{429, "Sun, 06 Nov 1994 08:49:37 GMT", 5 * time.Second}, // in the past
	} {
		t.Run(fmt.Sprintf("%d %s", tc.status, tc.retryAfter), func(t *testing.T) {
			env := testenv.New(t, nil)
			env.Server.SetTime(env.Key.Account, t0)
			rc := newTestReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
				if n == 1 {
					if tc.retryAfter != "" {
						w.Header().Set("Retry-After", tc.retryAfter)
					}
					w.WriteHeader(tc.status)
				}
			})
			register(t, env, rc.URL, webhooks.EventAll)
			createPatient(t, env)
			a := waitAttempts(t, env, 1)[0]
			if a.StatusCode != tc.status || a.NextAttemptAt == nil || !a.NextAttemptAt.Equal(t0.Add(tc.wait)) {
				t.Fatalf("attempt = %+v, want next at +%v", a, tc.wait)
			}
			if tc.wait > time.Second {
				env.Server.AdvanceTime(env.Key.Account, tc.wait-time.Second)
				settle()
				if n := len(attempts(env)); n != 1 {
					t.Fatalf("retried before Retry-After: %d attempts", n)
				}
			}
			env.Server.AdvanceTime(env.Key.Account, time.Second)
			if b := waitAttempts(t, env, 2)[1]; !b.Delivered || !b.At.Equal(t0.Add(tc.wait)) {
				t.Fatalf("retry = %+v", b)
			}
		})
	}
}

func TestGoneDisablesEndpoint(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	ctx := context.Background()
	env.Server.SetTime(env.Key.Account, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	gone := newTestReceiver(t, answer(http.StatusGone))
	ok := newTestReceiver(t, answer(200))
	eg := register(t, env, gone.URL, webhooks.EventAll)
	register(t, env, ok.URL, webhooks.EventAll)
	createPatient(t, env)
	waitAttempts(t, env, 2)
	got, _, err := env.Client.Webhooks.Get(ctx, eg.ID)
	if err != nil || got.Enabled {
		t.Fatalf("endpoint after 410 = %+v, %v", got, err)
	}
	for _, a := range attempts(env) {
		if a.EndpointID == eg.ID && (a.StatusCode != 410 || a.NextAttemptAt != nil) {
			t.Fatalf("410 attempt = %+v", a)
		}
	}
	env.Server.AdvanceTime(env.Key.Account, time.Hour)
	createPatient(t, env)
	waitFor(t, "second delivery to the healthy endpoint", func() bool { return len(ok.deliveries()) == 2 })
	settle()
	if n := len(gone.deliveries()); n != 1 {
		t.Fatalf("disabled endpoint got %d deliveries, want 1", n)
	}
}

func TestDeleteDropsPendingRetries(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	ctx := context.Background()
	env.Server.SetTime(env.Key.Account, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	rc := newTestReceiver(t, answer(500))
	e := register(t, env, rc.URL, webhooks.EventAll)
	createPatient(t, env)
	if a := waitAttempts(t, env, 1)[0]; a.NextAttemptAt == nil {
		t.Fatalf("no retry scheduled: %+v", a)
	}
	if _, err := env.Client.Webhooks.Delete(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	env.Server.AdvanceTime(env.Key.Account, 48*time.Hour)
	settle()
	if n, m := len(rc.deliveries()), len(attempts(env)); n != 1 || m != 1 {
		t.Fatalf("after delete: %d deliveries, %d attempts; want 1", n, m)
	}
}

func TestRedirectIsFailure(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	env.Server.SetTime(env.Key.Account, time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	target := newTestReceiver(t, answer(200))
	rc := newTestReceiver(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	})
	register(t, env, rc.URL, webhooks.EventAll)
	createPatient(t, env)
	a := waitAttempts(t, env, 1)[0]
	if a.Delivered || a.StatusCode != 307 || a.NextAttemptAt == nil || !strings.Contains(a.Error, "redirect") {
		t.Fatalf("attempt = %+v", a)
	}
	settle()
	if n := len(target.deliveries()); n != 0 {
		t.Fatalf("redirect followed: target got %d deliveries", n)
	}
}

// TestHangingReceiverDoesNotSlowAPI: deliveries never run on request goroutines, and a
// receiver that never answers holds up neither API calls nor other endpoints.
func TestHangingReceiverDoesNotSlowAPI(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, []mockserver.Option{mockserver.WithWebhookTimeout(time.Minute)})
	hang := newTestReceiver(t, nil)
	hang.answer = func(_ int, _ http.ResponseWriter, r *http.Request) {
		select {
		case <-hang.release:
		case <-r.Context().Done():
		}
	}
	good := newTestReceiver(t, answer(200))
	register(t, env, hang.URL, webhooks.EventAll)
	register(t, env, good.URL, webhooks.EventAll)
	const n = 30
	var slowest time.Duration
	for range n {
		start := time.Now()
		createPatient(t, env)
		slowest = max(slowest, time.Since(start))
	}
	waitFor(t, "every event at the healthy endpoint", func() bool { return len(good.deliveries()) == n })
	if slowest > 500*time.Millisecond {
		t.Fatalf("slowest API call took %v while a receiver hangs", slowest)
	}
	// The hanging endpoint holds at most its per-endpoint share of the workers.
	if n := len(hang.deliveries()); n == 0 || n > 2 {
		t.Fatalf("hanging endpoint has %d deliveries in flight, want 1–2 (bounded per endpoint)", n)
	}
}

// TestDeliveryTimeout: an attempt that exceeds the timeout fails with the error class "timeout".
func TestDeliveryTimeout(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, []mockserver.Option{mockserver.WithWebhookTimeout(100 * time.Millisecond)})
	ctx := context.Background()
	rc := newTestReceiver(t, nil)
	rc.answer = func(_ int, _ http.ResponseWriter, r *http.Request) {
		select {
		case <-rc.release:
		case <-r.Context().Done():
		}
	}
	e := register(t, env, rc.URL, webhooks.EventAll)
	tr, _, err := env.Client.Webhooks.Test(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Delivered || tr.StatusCode != nil || tr.Error == nil || *tr.Error != "timeout" || tr.DurationMs < 100 {
		t.Fatalf("test result = %+v (error %v)", tr, deref(tr.Error))
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// TestManyEventsManyEndpoints: 1,000 events to 5 healthy endpoints arrive exactly once each.
func TestManyEventsManyEndpoints(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	ctx := context.Background()
	key := env.NewKey(t, mockserver.APIKeyParams{Plan: "custom", RatePerMinute: 1e6, Burst: 1e6, Scopes: []string{"*"}, Account: env.Key.Account})
	// A plain client: the bulk load needs no OpenAPI validation (other tests cover the shapes).
	c, err := medspa.New(medspa.WithBaseURL(env.URL), medspa.WithAPIKey(key.Key))
	if err != nil {
		t.Fatal(err)
	}
	const events, endpoints = 1000, 5
	rcs := make([]*testReceiver, endpoints)
	for i := range rcs {
		rcs[i] = newTestReceiver(t, answer(200))
		register(t, env, rcs[i].URL, webhooks.EventPatientCreated)
	}
	var wg sync.WaitGroup
	errs := make(chan error, events)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < events; i += 8 {
				_, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "P", LastName: fmt.Sprint(i), Email: fmt.Sprintf("p%d@example.com", i)})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, rc := range rcs {
		waitFor(t, fmt.Sprintf("receiver %d", i), func() bool { return len(rc.deliveries()) >= events })
	}
	settle()
	for i, rc := range rcs {
		count := map[string]int{}
		for _, d := range rc.deliveries() {
			count[d.header.Get("webhook-id")]++
		}
		if len(count) != events {
			t.Fatalf("receiver %d got %d distinct events, want %d", i, len(count), events)
		}
		for id, n := range count {
			if n != 1 {
				t.Fatalf("receiver %d got event %s %d times", i, id, n)
			}
		}
	}
	if n := len(attempts(env)); n != events*endpoints {
		t.Fatalf("%d attempts logged, want %d", n, events*endpoints)
	}
}

func TestTestEndpoint(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	ctx := context.Background()
	ok := newTestReceiver(t, answer(200))
	failing := newTestReceiver(t, answer(500))
	eOK := register(t, env, ok.URL, webhooks.EventPatientCreated)
	eFail := register(t, env, failing.URL, webhooks.EventPatientCreated)
	eDown := register(t, env, "http://127.0.0.1:1/hook", webhooks.EventPatientCreated)

	tr, _, err := env.Client.Webhooks.Test(ctx, eOK.ID)
	if err != nil || !tr.Delivered || tr.StatusCode == nil || *tr.StatusCode != 200 || tr.Error != nil || !strings.HasPrefix(tr.EventID, "evt_") {
		t.Fatalf("ok: %+v, %v", tr, err)
	}
	d := ok.deliveries()
	if len(d) != 1 {
		t.Fatalf("%d deliveries", len(d))
	}
	ev, err := webhooks.Verify(eOK.Secret, d[0].header, d[0].body)
	if err != nil || ev.ID != tr.EventID || ev.Type != webhooks.EventWebhookTest {
		t.Fatalf("verify: %+v, %v", ev, err)
	}
	if td, isTest := ev.Test(); !isTest || td.ID != eOK.ID {
		t.Fatalf("test data = %+v", ev.Data)
	}

	tr, _, err = env.Client.Webhooks.Test(ctx, eFail.ID)
	if err != nil || tr.Delivered || tr.StatusCode == nil || *tr.StatusCode != 500 || tr.Error == nil {
		t.Fatalf("failing: %+v, %v", tr, err)
	}

	resp, body := env.Do(t, "POST", "/api/v1/webhooks/"+eDown.ID+"/test", "")
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil || resp.StatusCode != 200 {
		t.Fatalf("down: %d %s", resp.StatusCode, body)
	}
	if sc, present := raw["statusCode"]; !present || sc != nil || raw["delivered"] != false {
		t.Fatalf("down: statusCode must be null: %s", body)
	}
	msg, _ := raw["error"].(string)
	if msg == "" || strings.Contains(msg, "127.0.0.1") || strings.Contains(msg, "hook") {
		t.Fatalf("down: error %q should describe the failure without quoting the URL", msg)
	}
	if _, isNum := raw["durationMs"].(float64); !isNum {
		t.Fatalf("durationMs missing: %s", body)
	}

	// No retries for test deliveries, even failed ones; and no domain event was recorded.
	env.Server.AdvanceTime(env.Key.Account, 48*time.Hour)
	settle()
	if n := len(failing.deliveries()); n != 1 {
		t.Fatalf("failed test delivery retried: %d deliveries", n)
	}
	if _, _, err := env.Client.Webhooks.Test(ctx, "whk_0193a6b0c1d27e3f8a9b0c1d2e3f4a5b"); !errors.Is(err, medspa.ErrNotFound) {
		t.Fatalf("unknown endpoint: %v", err)
	}
}

func TestAdminDeliveries(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	rc := newTestReceiver(t, answer(200))
	register(t, env, rc.URL, webhooks.EventAll)
	p := createPatient(t, env)
	waitAttempts(t, env, 1)
	resp, body := env.Do(t, "GET", "/__admin/deliveries?account="+env.Key.Account, "")
	var out struct {
		Deliveries []mockserver.Delivery `json:"deliveries"`
	}
	if err := json.Unmarshal(body, &out); err != nil || resp.StatusCode != 200 || len(out.Deliveries) != 1 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if d := out.Deliveries[0]; !d.Delivered || d.StatusCode != 200 || d.EventType != webhooks.EventPatientCreated || d.URL != rc.URL {
		t.Fatalf("delivery %+v (patient %s)", d, p.ID)
	}
	// Other accounts see nothing of it.
	if n := len(env.Server.Deliveries("acct_other")); n != 0 {
		t.Fatalf("other account sees %d deliveries", n)
	}
	if _, body := env.Do(t, "GET", "/__admin/deliveries?account=acct_other", ""); string(body) != `{"deliveries":[]}` {
		t.Fatalf("empty log = %s", body)
	}
}

func TestURLValidation(t *testing.T) {
	t.Parallel()
	long := "https://example.com/" + strings.Repeat("a", 2049-len("https://example.com/"))
	cases := []struct {
		name, body string
		private    bool   // with WithPrivateWebhookURLs
		want       int    // status
		pointers   string // invalid fields, comma-separated
	}{
		{"https public", `{"url":"https://93.184.216.34/hook","events":["*"]}`, false, 201, ""},
		{"http loopback v4", `{"url":"http://127.0.0.1:8080/hook","events":["patient.created"]}`, false, 201, ""},
		{"http loopback 127/8", `{"url":"http://127.9.9.9/hook","events":["patient.created"]}`, false, 201, ""},
		{"http loopback v6", `{"url":"http://[::1]:8080/hook","events":["patient.created"]}`, false, 201, ""},
		{"http localhost", `{"url":"http://localhost:8080/hook","events":["patient.created"]}`, false, 201, ""},
		{"http public", `{"url":"http://93.184.216.34/hook","events":["*"]}`, false, 422, "/url"},
		{"http name", `{"url":"http://example.com/hook","events":["*"]}`, false, 422, "/url"},
		{"private 10/8", `{"url":"https://10.1.2.3/hook","events":["*"]}`, false, 422, "/url"},
		{"private 192.168", `{"url":"https://192.168.0.10/hook","events":["*"]}`, false, 422, "/url"},
		{"private 172.16", `{"url":"https://172.16.5.4/hook","events":["*"]}`, false, 422, "/url"},
		{"link-local metadata", `{"url":"https://169.254.169.254/latest","events":["*"]}`, false, 422, "/url"},
		{"link-local v6", `{"url":"https://[fe80::1]/hook","events":["*"]}`, false, 422, "/url"},
		{"unique local v6", `{"url":"https://[fd00::1]/hook","events":["*"]}`, false, 422, "/url"},
		{"mapped private", `{"url":"https://[::ffff:10.0.0.1]/hook","events":["*"]}`, false, 422, "/url"},
		{"unspecified", `{"url":"https://0.0.0.0/hook","events":["*"]}`, false, 422, "/url"},
		{"private allowed", `{"url":"https://10.1.2.3/hook","events":["*"]}`, true, 201, ""},
		{"link-local allowed", `{"url":"http://169.254.1.1/hook","events":["*"]}`, true, 201, ""},
		{"ftp", `{"url":"ftp://example.com/x","events":["*"]}`, false, 422, "/url"},
		{"relative", `{"url":"/hook","events":["*"]}`, false, 422, "/url"},
		{"not a url", `{"url":"not a url","events":["*"]}`, false, 422, "/url"},
		{"no host", `{"url":"https:///path","events":["*"]}`, false, 422, "/url"},
		{"too long", `{"url":"` + long + `","events":["*"]}`, false, 422, "/url"},
		{"missing both", `{}`, false, 422, "/events,/url"},
		{"wrong types", `{"url":5,"events":"*","enabled":"yes"}`, false, 422, "/enabled,/events,/url"},
		{"empty events", `{"url":"https://93.184.216.34/","events":[]}`, false, 422, "/events"},
		{"unknown event", `{"url":"https://93.184.216.34/","events":["patient.created","patient.deleted"]}`, false, 422, "/events/1"},
		{"duplicate event", `{"url":"https://93.184.216.34/","events":["patient.created","patient.created"]}`, false, 422, "/events/1"},
		{"star not alone", `{"url":"https://93.184.216.34/","events":["*","patient.created"]}`, false, 422, "/events/0"},
		{"description too long", `{"url":"https://93.184.216.34/","events":["*"],"description":"` + strings.Repeat("d", 501) + `"}`, false, 422, "/description"},
		{"description 500", `{"url":"https://93.184.216.34/","events":["*"],"description":"` + strings.Repeat("d", 500) + `"}`, false, 201, ""},
		{"unknown field", `{"url":"https://93.184.216.34/","events":["*"],"secret":"whsec_x"}`, false, 422, "/secret"},
		{"everything wrong", `{"url":"http://10.0.0.1/","events":["nope","nope"],"description":` + `"` + strings.Repeat("d", 501) + `","x":1}`, false, 422, "/description,/events/0,/events/1,/url,/x"},
		{"not an object", `[]`, false, 400, ""},
	}
	envs := map[bool]*testenv.Env{
		false: testenv.New(t, nil),
		true:  testenv.New(t, []mockserver.Option{mockserver.WithPrivateWebhookURLs()}),
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := envs[tc.private]
			do := env.Do
			if tc.want != 201 {
				do = env.DoInvalid // some break the OpenAPI document on purpose
			}
			resp, body := do(t, "POST", "/api/v1/webhooks", tc.body)
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.want, body)
			}
			if tc.want != 422 {
				return
			}
			var p struct {
				Errors []struct{ Pointer, Detail string } `json:"errors"`
			}
			if err := json.Unmarshal(body, &p); err != nil {
				t.Fatal(err)
			}
			var ptrs []string
			for _, e := range p.Errors {
				ptrs = append(ptrs, e.Pointer)
				if strings.Contains(e.Detail, "10.0.0.1") || strings.Contains(e.Detail, "93.184") {
					t.Fatalf("detail echoes the URL: %q", e.Detail)
				}
			}
			slices.Sort(ptrs)
			if strings.Join(ptrs, ",") != tc.pointers {
				t.Fatalf("invalid fields %v, want %s (%s)", ptrs, tc.pointers, body)
			}
		})
	}
	// Rejected requests change nothing.
	page, _, err := envs[false].Client.Webhooks.List(context.Background(), nil)
	if err != nil || page.Meta.Total != 6 {
		t.Fatalf("endpoints after the table: %+v, %v", page, err)
	}
}

func TestCloseIsSafe(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	rc := newTestReceiver(t, answer(500))
	register(t, env, rc.URL, webhooks.EventAll)
	createPatient(t, env)
	waitAttempts(t, env, 1)
	env.Server.Close()
	env.Server.Close()
	createPatient(t, env) // the API still answers; nothing is delivered
	env.Server.AdvanceTime(env.Key.Account, time.Hour)
	settle()
	if n := len(rc.deliveries()); n != 1 {
		t.Fatalf("%d deliveries after Close, want 1", n)
	}
}

// TestTLSFailuresDescribed: an https receiver with an untrusted certificate, or a plain-HTTP
// server behind an https URL, fails with the error class "tls".
func TestTLSFailuresDescribed(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	ctx := context.Background()
	tlsSrv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the failed handshakes are expected
	tlsSrv.StartTLS()
	defer tlsSrv.Close()
	plain := newTestReceiver(t, answer(200))
	for url, want := range map[string]string{
		tlsSrv.URL + "/hook": "tls",
		"https://" + strings.TrimPrefix(plain.URL, "http://"): "tls",
	} {
		e := register(t, env, url, webhooks.EventAll)
		tr, _, err := env.Client.Webhooks.Test(ctx, e.ID)
		if err != nil || tr.Delivered || tr.StatusCode != nil || tr.Error == nil || *tr.Error != want {
			t.Fatalf("%s: %+v (%s), %v", url, tr, deref(tr.Error), err)
		}
	}
}

// TestAdminClockRunsRetries: moving an account's clock through POST /__admin/clock runs the
// retries that fall due, as the Go methods do.
func TestAdminClockRunsRetries(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	acct := env.Key.Account
	admin := func(body string) {
		t.Helper()
		if resp, b := env.Do(t, "POST", "/__admin/clock", body); resp.StatusCode != 200 {
			t.Fatalf("admin clock %s: %d %s", body, resp.StatusCode, b)
		}
	}
	admin(`{"account":"` + acct + `","now":"2030-05-06T07:08:09Z"}`)
	rc := newTestReceiver(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 1 {
			w.WriteHeader(http.StatusBadGateway)
		}
	})
	register(t, env, rc.URL, webhooks.EventAll)
	createPatient(t, env)
	waitAttempts(t, env, 1)
	admin(`{"account":"` + acct + `","advance":"5s"}`)
	if a := waitAttempts(t, env, 2)[1]; !a.Delivered || !a.At.Equal(time.Date(2030, 5, 6, 7, 8, 14, 0, time.UTC)) {
		t.Fatalf("retry = %+v", a)
	}
}
