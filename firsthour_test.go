package medspa_test

// The first hour of a Go developer, as the README leads them: the quickstart, a test with
// mockserver.NewTest, a test that moves the mock's clock with signing and OAuth, and a webhook
// receiver test. This file imports only the facade, the area packages, mockserver and the
// standard library (TestFirstHourImportsOnlyThePublicSurface holds it to that), which is the
// point: that is all a new user needs.

import (
	"context"
	"errors"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/appointments"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// TestFirstHourQuickstart runs the README's first call as written — medspa.New() reading
// MEDSPA_API_KEY and MEDSPA_BASE_URL — against the mock server on a loopback listener, as the
// README says to run it without an API key.
func TestFirstHourQuickstart(t *testing.T) {
	ts := mockserver.NewTest(t, mockserver.WithLoopbackListener())
	t.Setenv("MEDSPA_API_KEY", ts.Key.Key)
	t.Setenv("MEDSPA_BASE_URL", ts.BaseURL)

	// From here on, the README's program.
	ctx := context.Background()
	c, err := medspa.New()
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := c.Patients.Create(ctx, &patients.CreateParams{
		FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com",
	})
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for p, err := range c.Patients.All(ctx, &patients.ListParams{Q: "love"}) {
		if err != nil {
			t.Fatal(err)
		}
		found = append(found, p.ID)
	}
	_, resp, err := c.Patients.Get(ctx, "pat_00000000000000000000000000000000")
	var apiErr *medspa.Error
	if !errors.As(err, &apiErr) || !errors.Is(err, medspa.ErrNotFound) || apiErr.Status != 404 ||
		!strings.HasPrefix(apiErr.RequestID, "req_") || resp.RequestID != apiErr.RequestID {
		t.Fatalf("not found: %v, %+v", err, resp)
	}
	if !slices.Equal(found, []string{p.ID}) || c.BaseURL() != ts.BaseURL {
		t.Fatalf("found %v, want %s; base %s", found, p.ID, c.BaseURL())
	}
}

// TestFirstHourWithNewTest is an integration test as a user writes one: NewTest gives the
// client, the key and the account; the controls (faults, journal) act on that account; every
// call says what the server answered.
func TestFirstHourWithNewTest(t *testing.T) {
	t.Parallel()
	ts := mockserver.NewTest(t)
	ctx := context.Background()
	c := ts.Client

	p, resp, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com",
		Address: &patients.Address{Line1: "12 St James's Square", City: "London", Country: "GB"}})
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatal(err, resp)
	}
	start := time.Now().Add(48 * time.Hour).Truncate(time.Hour)
	apt, _, err := c.Appointments.Create(ctx, &appointments.CreateParams{
		PatientID: p.ID, ProviderID: "prv_9", Service: "Hydrafacial", StartAt: start, EndAt: start.Add(time.Hour),
	})
	if err != nil {
		t.Fatal(err)
	}

	// The server stumbles once; the client retries at once (NewTest's client does not wait) and
	// the caller sees how many attempts it took.
	if err := ts.InjectFault(mockserver.Fault{Account: ts.Account, Method: http.MethodPatch, Path: "/api/v1/appointments/*",
		Status: http.StatusServiceUnavailable, Times: 1}); err != nil {
		t.Fatal(err)
	}
	cancelled, resp, err := c.Appointments.Cancel(ctx, apt.ID, "Patient asked to rebook")
	if err != nil || resp.Attempts != 2 || cancelled.Status != appointments.StatusCancelled ||
		cancelled.CancellationReason != "Patient asked to rebook" || cancelled.CancelledAt.IsZero() {
		t.Fatalf("cancel: %v %+v %+v", err, resp, cancelled)
	}

	// Typed values: what cannot be sent as written is refused before the wire.
	journal := len(ts.Requests())
	_, _, err = c.Appointments.List(ctx, &appointments.ListParams{Status: []appointments.Status{"canceled"}})
	if !errors.Is(err, medspa.ErrInvalidArgument) || len(ts.Requests()) != journal {
		t.Fatalf("unknown status: %v", err)
	}

	// A second client, for another key of the same account, and the rate-limit state of a call.
	reader, err := ts.CreateAPIKey(mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"appointments:read"}, Account: ts.Account})
	if err != nil {
		t.Fatal(err)
	}
	rc, err := ts.ClientFor(reader)
	if err != nil {
		t.Fatal(err)
	}
	page, resp, err := rc.Appointments.List(ctx, &appointments.ListParams{PatientID: p.ID})
	if err != nil || page.Meta.Total != 1 || resp.RateLimit.Limit != 100 || resp.RateLimit.DailyRemaining != 9999 {
		t.Fatalf("reader: %v %+v %+v", err, page, resp)
	}
	_, _, err = rc.Patients.Get(ctx, p.ID)
	if !errors.Is(err, medspa.ErrInsufficientScope) {
		t.Fatalf("reader reading patients: %v", err)
	}
}

// TestFirstHourMovedClock: a mock started in 2020 and moved by hours, with a key that
// requires signing and an OAuth client — what used to fail with stale signatures and tokens
// judged by the wall clock. NewTest's and ClientFor's clients run on the mock's clock.
func TestFirstHourMovedClock(t *testing.T) {
	t.Parallel()
	start := time.Date(2020, time.March, 2, 9, 0, 0, 0, time.UTC)
	ts := mockserver.NewTest(t, mockserver.WithStartTime(start))
	ctx := context.Background()

	signed, err := ts.CreateAPIKey(mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}, Account: ts.Account, SigningRequired: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := ts.ClientFor(signed) // signs, on the clock of signed.Account
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	if err != nil || !p.CreatedAt.Equal(start) {
		t.Fatalf("create in 2020: %v %+v", err, p)
	}
	for _, step := range []time.Duration{3 * time.Hour, 7 * time.Hour, 30 * time.Hour} {
		ts.Server.AdvanceTime("", step) // the server-wide clock
		got, resp, err := c.Patients.Get(ctx, p.ID)
		if err != nil || got.ID != p.ID || resp.Header.Get("Signature") == "" {
			t.Fatalf("after +%v: %v", step, err)
		}
	}
	ts.AdvanceTime(90 * time.Minute) // the account's own clock
	if _, _, err := c.Patients.Get(ctx, p.ID); err != nil {
		t.Fatalf("after the account's clock moved: %v", err)
	}
	if want := start.Add(40*time.Hour + 90*time.Minute); !c.Now().Equal(want) {
		t.Fatalf("client clock %v, want %v", c.Now(), want)
	}

	// The same key on the wall clock fails: the mock says its signatures are stale.
	wall, err := medspa.New(medspa.WithAPIKey(signed.Key), medspa.WithSigning(signed.ID, signed.SigningSecret),
		medspa.WithBaseURL(ts.BaseURL), medspa.WithHTTPClient(ts.HTTPClient()))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := wall.Patients.Get(ctx, p.ID); !errors.Is(err, medspa.ErrInvalidSignature) {
		t.Fatalf("wall clock: %v", err)
	}

	// OAuth: a token's lifetime runs on the mock's clock, so two hours on, the client fetches a
	// new one before sending (the hook says why) instead of meeting a 401.
	oc, err := ts.CreateOAuthClient(mockserver.OAuthClientParams{Plan: "enterprise", Scopes: []string{"*"}, Account: ts.Account})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var refreshes []medspa.TokenRefreshReason
	oauth, err := ts.ClientFor(ts.Key, medspa.WithClientCredentials(oc.ClientID, oc.ClientSecret),
		medspa.WithTokenRefreshHook(func(r medspa.TokenRefresh) {
			mu.Lock()
			refreshes = append(refreshes, r.Reason)
			mu.Unlock()
		}))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, resp, err := oauth.Patients.Get(ctx, p.ID); err != nil || resp.Attempts != 1 {
			t.Fatalf("oauth: %v %+v", err, resp)
		}
		ts.AdvanceTime(2 * time.Hour)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(refreshes, []medspa.TokenRefreshReason{medspa.TokenFirst, medspa.TokenExpiring}) {
		t.Fatalf("token refreshes %v", refreshes)
	}
}

// TestFirstHourWebhookReceiver: a receiver test as a user writes one — an httptest server with
// the handler built from the client, the endpoint registered with the mock, events delivered
// by the mock over loopback — on a mock whose clock is in 2020: the client's receiver checks
// timestamps on the client's clock, the mock's.
func TestFirstHourWebhookReceiver(t *testing.T) {
	t.Parallel()
	ts := mockserver.NewTest(t, mockserver.WithStartTime(time.Date(2020, time.March, 2, 9, 0, 0, 0, time.UTC)))
	ctx := context.Background()
	c := ts.Client

	received := make(chan *webhooks.Event, 8)
	recv := httptest.NewUnstartedServer(nil)
	t.Cleanup(recv.Close)
	ep, _, err := c.Webhooks.Create(ctx, &webhooks.CreateParams{
		URL:    "http://" + recv.Listener.Addr().String() + "/medspa/webhooks",
		Events: []webhooks.EventType{webhooks.EventPatientCreated, webhooks.EventAppointmentCancelled},
	})
	if err != nil {
		t.Fatal(err)
	}
	recv.Config.Handler = c.Webhooks.NewHandler(ep.Secret, func(_ context.Context, e *webhooks.Event) error {
		received <- e
		return nil
	})
	recv.Start()

	p, _, err := c.Patients.Create(ctx, &patients.CreateParams{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-received:
		d, ok := e.Data.(*webhooks.PatientData)
		if e.Type != webhooks.EventPatientCreated || !ok || d.ID != p.ID {
			t.Fatalf("event %+v", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no delivery within 10 s")
	}
	res, _, err := c.Webhooks.Test(ctx, ep.ID)
	if err != nil || !res.Delivered || res.StatusCode == nil || *res.StatusCode != http.StatusNoContent {
		t.Fatalf("test delivery: %v %+v", err, res)
	}
	if e := <-received; e.Type != webhooks.EventWebhookTest {
		t.Fatalf("test event %+v", e)
	}

	// The same delivery checked on the wall clock is six years late.
	body := []byte(`{"id":"evt_01","type":"webhook.test","createdAt":"2020-03-02T09:00:00Z","data":{"object":"webhook","id":"` + ep.ID + `"}}`)
	header, err := webhooks.SignHeaders(ep.Secret, "evt_01", c.Now(), body)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Webhooks.Verify(ep.Secret, header, body); err != nil {
		t.Fatalf("client clock: %v", err)
	}
	if _, err := webhooks.Verify(ep.Secret, header, body); !errors.Is(err, webhooks.ErrTimestampTooOld) {
		t.Fatalf("wall clock: %v", err)
	}
}

// TestFirstHourImportsOnlyThePublicSurface holds this file to what a new user imports: the
// facade, the area packages, mockserver and the standard library — never package client or
// anything internal.
func TestFirstHourImportsOnlyThePublicSurface(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "firsthour_test.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	allowed := []string{"github.com/medspa/medspa-go", "github.com/medspa/medspa-go/mockserver"}
	for _, area := range []string{"patients", "appointments", "billing", "inventory", "reports", "webhooks"} {
		allowed = append(allowed, "github.com/medspa/medspa-go/"+area)
	}
	if len(f.Imports) == 0 {
		t.Fatal("no imports parsed")
	}
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(path, "/")
		std := !strings.Contains(first, ".")
		if !std && !slices.Contains(allowed, path) {
			t.Errorf("imports %s: a new user should not need it", path)
		}
	}
}
