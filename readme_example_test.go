package medspa_test

// The README's snippets, compiled (and, where they need no real API, run) so that they stay true.

import (
	"context"
	"errors"
	"expvar"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"
	"testing"
	"time"

	"golang.org/x/oauth2"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/billing"
	"github.com/medspa/medspa-go/inventory"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/reports"
	"github.com/medspa/medspa-go/webhooks"
)

// TestREADMETour runs the README's tour against the in-process mock server.
func TestREADMETour(t *testing.T) {
	t.Parallel()
	c := mockserver.NewTest(t).Client
	tour(t, c)
}

func tour(t *testing.T, c *medspa.Client) {
	ctx := context.Background()
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var apiErr *medspa.Error
	from, to := time.Now().AddDate(0, 0, -7), time.Now().Add(time.Minute)
	p, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com", Phone: "+15551234567"})
	check(err)

	// Patients
	p, _, err = c.Patients.Update(ctx, p.ID, &patients.UpdateParams{
		Notes:   medspa.Set("Prefers mornings."),
		Phone:   medspa.Null[string](),
		Address: medspa.Set(patients.AddressPatch{City: medspa.Set("Boston")}), // sends {"address":{"city":"Boston"}}
	})
	check(err)
	if p.Address == nil || p.Address.City != "Boston" {
		t.Fatalf("address %+v", p.Address)
	}
	page, _, err := c.Patients.List(ctx, &patients.ListParams{
		ListOptions: medspa.ListOptions{PerPage: 50}, Sort: medspa.SortCreatedDesc,
	})
	check(err)
	if p.Phone != "" || page.Meta.Total != 1 {
		t.Fatalf("patient %+v, total %d", p, page.Meta.Total)
	}

	// Appointments
	start := time.Date(2030, time.January, 7, 9, 0, 0, 0, time.UTC)
	apt, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: p.ID, ProviderID: "prv_9", Service: "Hydrafacial",
		StartAt: start, EndAt: start.Add(time.Hour),
	})
	check(err)
	_, _, err = c.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: p.ID, ProviderID: "prv_9", Service: "Hydrafacial",
		StartAt: start, EndAt: start.Add(time.Hour),
	})
	if errors.Is(err, medspa.ErrAppointmentConflict) && errors.As(err, &apiErr) {
		t.Log("slot taken by", apiErr.ConflictingID)
	} else {
		t.Fatalf("conflict: %v", err)
	}
	apt, _, err = c.Appointments.Update(ctx, apt.ID, &appointments.UpdateParams{
		Status: medspa.Set(appointments.StatusConfirmed),
	})
	check(err)

	// Billing
	inv, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: p.ID, AppointmentID: apt.ID, TaxRateBps: 825, // 8.25%
		LineItems: []billing.LineItemParams{{Description: "Hydrafacial", Quantity: 1, UnitAmount: medspa.Ptr[int64](19900)}},
	})
	check(err)
	_, _, err = c.Payments.Create(ctx, &billing.PaymentCreateParams{
		InvoiceID: inv.ID, Amount: inv.AmountDue, Method: billing.MethodCard, CardToken: billing.TokenInsufficientFunds,
	})
	if errors.Is(err, medspa.ErrCardDeclined) && errors.As(err, &apiErr) {
		t.Log("declined:", apiErr.DeclineCode, "payment", apiErr.PaymentID)
	} else {
		t.Fatalf("decline: %v", err)
	}
	pay, _, err := c.Payments.Create(ctx, &billing.PaymentCreateParams{
		InvoiceID: inv.ID, Amount: inv.AmountDue, Method: billing.MethodCard, CardToken: billing.TokenVisa,
	})
	check(err)
	if pay.Status != billing.PaymentSucceeded {
		t.Fatalf("payment %+v", pay)
	}
	ref, _, err := c.Refunds.Create(ctx, &billing.RefundCreateParams{
		PaymentID: pay.ID, Amount: medspa.Ptr[int64](5000), Reason: billing.RefundRequestedByCustomer, // Amount nil: all that is left
	})
	check(err)
	_, _, err = c.Refunds.Create(ctx, &billing.RefundCreateParams{PaymentID: pay.ID, Amount: medspa.Ptr(pay.Amount)})
	if !errors.Is(err, medspa.ErrAmountExceedsRefundable) {
		t.Fatalf("over-refund: %v", err)
	}
	failed := 0
	for p, err := range c.Payments.All(ctx, &billing.PaymentListParams{Status: []billing.PaymentStatus{billing.PaymentFailed}}) {
		check(err)
		if p.Status != billing.PaymentFailed {
			t.Fatalf("payment %+v", p)
		}
		failed++
	}
	other, _, err := c.Invoices.Create(ctx, &billing.InvoiceCreateParams{
		PatientID: p.ID, LineItems: []billing.LineItemParams{{Description: "Peel", Quantity: 1, UnitAmount: medspa.Ptr[int64](9900)}},
	})
	check(err)
	inv, _, err = c.Invoices.Void(ctx, other.ID, &billing.InvoiceVoidParams{Reason: "raised in error"})
	check(err)
	if ref.Amount != 5000 || failed != 1 || inv.Status != billing.InvoiceVoid {
		t.Fatalf("refund %+v, %d failed payments, void %+v", ref, failed, inv)
	}
	apt, _, err = c.Appointments.Cancel(ctx, apt.ID, "Patient asked to rebook")
	check(err)
	if apt.Status != appointments.StatusCancelled || apt.CancellationReason != "Patient asked to rebook" {
		t.Fatalf("cancelled %+v", apt)
	}

	// Inventory
	prod, _, err := c.Products.Create(ctx, &inventory.ProductCreateParams{
		SKU: "JUV-VOL", Name: "Juvederm Voluma", Category: inventory.CategoryFiller,
		Unit: inventory.UnitSyringe, Price: 85000, TrackLots: true, ReorderPoint: 2,
	})
	check(err)
	adj, _, err := c.Inventory.Adjust(ctx, &inventory.AdjustParams{
		ProductID: prod.ID, Delta: 4, Reason: inventory.ReasonReceived,
		LotNumber: "V-77", ExpiresOn: medspa.NewDate(2028, time.June, 30),
	})
	check(err)
	_, _, err = c.Inventory.Adjust(ctx, &inventory.AdjustParams{ProductID: prod.ID, Delta: -9, Reason: inventory.ReasonUsed})
	if errors.Is(err, medspa.ErrInsufficientStock) && errors.As(err, &apiErr) {
		t.Log("only", *apiErr.Available, "on hand")
	} else {
		t.Fatalf("stock: %v", err)
	}
	low := false
	n := 0
	for rec, err := range c.Inventory.All(ctx, &inventory.StockListParams{LowStock: &low}) {
		check(err)
		if rec.OnHand != adj.OnHandAfter {
			t.Fatalf("stock %+v", rec)
		}
		n++
	}
	if n != 1 {
		t.Fatalf("%d stock records", n)
	}

	// Reports
	rev, _, err := c.Reports.Revenue(ctx, &reports.RevenueParams{
		From: from, To: to, Timezone: "America/New_York", GroupBy: reports.GroupByWeek,
	})
	check(err)
	if rev.Totals.Collected != pay.Amount {
		t.Fatalf("revenue %+v", rev.Totals)
	}
	custom, _, err := c.Reports.Custom(ctx, &reports.CustomParams{
		From: from, To: to, Source: reports.SourcePayments,
		GroupBy: []reports.Dimension{"method"}, Metrics: []reports.Metric{"count", "sum:amount"},
		Filters: []reports.Filter{reports.Where("status", "succeeded")},
	})
	check(err)
	type row struct {
		Method string
		Count  int64
		Sum    int64 `report:"sum:amount"`
	}
	rows, err := reports.Decode[row](custom)
	check(err)
	if len(rows) != 1 || rows[0] != (row{"card", 1, pay.Amount}) {
		t.Fatalf("custom %+v", rows)
	}
	body, _, err := c.Reports.CSV(ctx, reports.NameRevenue, &reports.RevenueParams{From: from, To: to})
	check(err)
	check(body.Close())

	// Webhook endpoints (https endpoints are not reachable from the test: no delivery is awaited)
	ep, _, err := c.Webhooks.Create(ctx, &webhooks.CreateParams{
		URL:    "https://hooks.example.com/medspa",
		Events: []webhooks.EventType{webhooks.EventAppointmentCreated, webhooks.EventPaymentSucceeded},
	})
	check(err)
	if ep.Secret == "" {
		t.Fatal("no secret")
	}
	ep, _, err = c.Webhooks.Update(ctx, ep.ID, &webhooks.UpdateParams{
		Events: []webhooks.EventType{webhooks.EventAll}, Description: medspa.Null[string](), // null clears it
	})
	check(err)
	rot, _, err := c.Webhooks.RotateSecret(ctx, ep.ID, &webhooks.RotateSecretParams{PreviousSecretExpiresIn: medspa.Ptr(time.Hour)})
	check(err)
	if len(ep.Events) != 1 || rot.Secret == "" || rot.PreviousSecretExpiresAt == nil {
		t.Fatalf("endpoint %+v, rotation %+v", ep, rot)
	}

	// Errors and retries
	_, _, err = c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", Email: "not-an-email"})
	if !errors.Is(err, medspa.ErrValidation) || !errors.As(err, &apiErr) || len(apiErr.Fields) != 2 {
		t.Fatalf("validation: %v", err)
	}
	_, _, err = c.Patients.Get(ctx, p.ID, medspa.WithMaxRetries(0))
	check(err)
	var doc map[string]any // the API's own OpenAPI document, GET /api/v1/openapi.json
	resp, err := c.Do(ctx, http.MethodGet, medspa.Path("openapi.json"), nil, &doc)
	check(err)
	if resp.StatusCode != http.StatusOK || doc["openapi"] != "3.0.3" {
		t.Fatalf("raw call: %d, openapi %v", resp.StatusCode, doc["openapi"])
	}
	if _, _, err := c.Patients.Get(ctx, ""); !errors.Is(err, medspa.ErrInvalidArgument) {
		t.Fatalf("empty id: %v", err)
	}
}

// TestREADMEMockServer runs the README's mock-server test.
func TestREADMEMockServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := mockserver.NewTest(t)
	c, key, err := srv.NewClient() // NewClient also returns the key, for its account
	if err != nil {
		t.Fatal(err)
	}
	srv.Server.SetTime(key.Account, time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)) // freeze the clock
	rec := srv.Server.RecordEvents(key.Account)                                    // domain events, in process

	p, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	events, err := rec.Wait(ctx, 1)
	if err != nil || len(events) != 1 || events[0].Type != webhooks.EventPatientCreated {
		t.Fatalf("events %v, %v", events, err)
	}
	srv.Server.AdvanceTime(key.Account, 25*time.Hour)
	if !p.CreatedAt.Equal(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)) || !srv.Server.Now(key.Account).Equal(p.CreatedAt.Add(25*time.Hour)) {
		t.Fatalf("clock: created %v, now %v", p.CreatedAt, srv.Server.Now(key.Account))
	}
}

// The README's receiver during a secret rotation (compiled, not run).
func Example_webhookReceiverRotation() {
	handle := func(ctx context.Context, e *webhooks.Event) error { return nil }
	h := webhooks.NewHandler(os.Getenv("MEDSPA_WEBHOOK_SECRET"), handle,
		webhooks.WithSecrets(os.Getenv("MEDSPA_WEBHOOK_PREVIOUS_SECRET"))) // empty once the rotation is over: skipped
	http.Handle("POST /medspa/webhooks", h)
}

// The README's webhook receiver (compiled, not run).
func Example_webhookReceiver() {
	h := webhooks.NewHandler(os.Getenv("MEDSPA_WEBHOOK_SECRET"), func(ctx context.Context, e *webhooks.Event) error {
		if p, ok := e.Payment(); ok {
			log.Println(e.Type, p.ID, p.InvoiceID, p.Amount, p.Currency) // ids and amounts only: events carry no PHI
		}
		return nil // an error answers 500 and the API retries later
	})
	http.Handle("POST /medspa/webhooks", h)
	log.Fatal(http.ListenAndServe(":8000", nil))
}

// The README's authorization-code flow with PKCE in a web app (compiled, not run; see
// ExampleWithOAuth2 for a run against the mock server).
func Example_oauthAuthorizationCode() {
	clientID, clientSecret := os.Getenv("MEDSPA_CLIENT_ID"), os.Getenv("MEDSPA_CLIENT_SECRET")
	cfg := &oauth2.Config{
		ClientID: clientID, ClientSecret: clientSecret,
		RedirectURL: "https://app.example/callback", Scopes: []string{"patients:read"},
		Endpoint: medspa.OAuthEndpoint(medspa.DefaultBaseURL), // /oauth/authorize, /oauth/token
	}
	const state = "per-session-random-state"
	verifier := oauth2.GenerateVerifier() // keep it in the user's session
	http.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, cfg.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier)), http.StatusFound)
	})
	http.HandleFunc("GET /callback", func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		if r.URL.Query().Get("state") != state {
			http.Error(w, "bad state", http.StatusBadRequest)
			return
		}
		tok, err := cfg.Exchange(ctx, r.URL.Query().Get("code"), oauth2.VerifierOption(verifier))
		if err != nil {
			http.Error(w, "login failed", http.StatusBadGateway)
			return
		}
		c, err := medspa.New(medspa.WithOAuth2(cfg, tok)) // refreshes (and keeps rotated refresh tokens)
		if err != nil {
			http.Error(w, "login failed", http.StatusInternalServerError)
			return
		}
		page, _, err := c.Patients.List(ctx, nil)
		if err != nil {
			http.Error(w, "API call failed", http.StatusBadGateway)
			return
		}
		fmt.Fprintln(w, page.Meta.Total, "patients")
	})
	log.Fatal(http.ListenAndServe(":8000", nil))
}

// The README's client set-ups (compiled, not run).
func Example_configuration() {
	ctx := context.Background()
	key := os.Getenv("MEDSPA_API_KEY")

	// Client credentials, with a count of token fetches by reason.
	refreshes := expvar.NewMap("medspa_token_refreshes") // by reason: first, expiring, token_expired
	_, err := medspa.New(
		medspa.WithClientCredentials(os.Getenv("MEDSPA_CLIENT_ID"), os.Getenv("MEDSPA_CLIENT_SECRET"), "patients:read", "appointments:write"),
		medspa.WithTokenRefreshHook(func(r medspa.TokenRefresh) { refreshes.Add(string(r.Reason), 1) }),
	)
	if err != nil {
		log.Fatal(err)
	}

	// Request signing.
	_, err = medspa.New(
		medspa.WithAPIKey(os.Getenv("MEDSPA_API_KEY")),
		medspa.WithSigning(os.Getenv("MEDSPA_KEY_ID"), os.Getenv("MEDSPA_SIGNING_SECRET")), // key_…, mss_…
	)
	if err != nil {
		log.Fatal(err)
	}

	// Plans, rate-limit state, debug logs.
	c, err := medspa.New(medspa.WithAPIKey(key), medspa.WithPlan(medspa.PlanStarter), medspa.WithLogger(slog.Default()))
	if err != nil {
		log.Fatal(err)
	}
	_, resp, err := c.Patients.List(ctx, nil) // every call returns it
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.RateLimit.Remaining, resp.RateLimit.Reset, resp.RateLimit.DailyRemaining, resp.RequestID)
}
