package client_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/medspa/medspa-go/client"
)

// records is a slog.Handler keeping every record, and calling onRecord (if set) on each one
// before it returns: the record exists before the logged action goes on.
type records struct {
	mu       sync.Mutex
	level    slog.Level
	got      []slog.Record
	onRecord func(slog.Record)
}

func (r *records) Enabled(_ context.Context, l slog.Level) bool { return l >= r.level }
func (r *records) WithAttrs([]slog.Attr) slog.Handler           { return r }
func (r *records) WithGroup(string) slog.Handler                { return r }

func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.got = append(r.got, rec.Clone())
	f := r.onRecord
	r.mu.Unlock()
	if f != nil {
		f(rec)
	}
	return nil
}

// named returns the records with message msg, each as its attributes.
func (r *records) named(msg string) []map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]string
	for _, rec := range r.got {
		if rec.Message != msg {
			continue
		}
		attrs := map[string]string{"level": rec.Level.String()}
		rec.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.String(); return true })
		out = append(out, attrs)
	}
	return out
}

// TestWaitLoggedBeforeLongWaits: a wait longer than 1 s is logged at Info before it starts (the
// handler cancels the call when it sees the record, so the test never waits), with method,
// route pattern (ids as {id}, no query), wait, reason and attempt; a wait of 1 s or less is
// not logged.
func TestWaitLoggedBeforeLongWaits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		retryAfter string
		opts       []client.Option
		calls      int // calls made; the last is the one that waits
		want       map[string]string
	}{
		{"Retry-After", "30", nil, 1, map[string]string{"reason": "retry_after", "wait": "30s", "attempt": "1"}},
		{"rate limiter", "", []client.Option{client.WithRateLimit(1, 1)}, 2, map[string]string{"reason": "rate_limit", "attempt": "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			logs := &records{level: slog.LevelInfo, onRecord: func(r slog.Record) {
				if r.Message == "medspa wait" {
					cancel()
				}
			}}
			e, mt := mocked(t, append(tc.opts, client.WithLogger(slog.New(logs)))...)
			mt.RegisterNoResponder(func(*http.Request) (*http.Response, error) {
				if tc.retryAfter == "" {
					return httpmock.NewStringResponse(200, `{"id":"pat_1"}`), nil
				}
				r := httpmock.NewStringResponse(503, `{"status":503,"code":"service_unavailable"}`)
				r.Header.Set("Content-Type", "application/problem+json")
				r.Header.Set("Retry-After", tc.retryAfter)
				return r, nil
			})
			var err error
			for range tc.calls {
				_, _, err = client.Call[obj](ctx, e, http.MethodGet, client.Path("patients", "pat_0193a1b2c3d4e5f60718293a4b5c6d7e"),
					url.Values{"email": {"zen@example.org"}})
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v, want the wait cut short by the handler", err)
			}
			waits := logs.named("medspa wait")
			if len(waits) != 1 {
				t.Fatalf("wait records %v", waits)
			}
			w := waits[0]
			want := map[string]string{"level": "INFO", "method": "GET", "route": "/api/v1/patients/{id}"}
			for k, v := range tc.want {
				want[k] = v
			}
			for k, v := range want {
				if w[k] != v {
					t.Errorf("%s = %q, want %q (record %v)", k, w[k], v, w)
				}
			}
			if d, err := time.ParseDuration(w["wait"]); err != nil || d <= time.Second {
				t.Errorf("wait %q", w["wait"])
			}
			for k, v := range w {
				if strings.Contains(v, "pat_0193") || strings.Contains(v, "zen") {
					t.Errorf("%s = %q holds request data", k, v)
				}
			}
		})
	}

	// One second or less: no record.
	logs := &records{level: slog.LevelDebug}
	e, mt := mocked(t, client.WithLogger(slog.New(logs)))
	n := 0
	mt.RegisterNoResponder(func(*http.Request) (*http.Response, error) {
		n++
		if n == 1 {
			r := httpmock.NewStringResponse(429, `{"status":429,"code":"rate_limited"}`)
			r.Header.Set("Retry-After", "1")
			return r, nil
		}
		return httpmock.NewStringResponse(200, `{"id":"pat_1"}`), nil
	})
	if _, resp, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients"), nil); err != nil || resp.Attempts != 2 {
		t.Fatalf("%v %+v", err, resp)
	}
	if w := logs.named("medspa wait"); len(w) != 0 || len(logs.named("medspa request")) != 2 {
		t.Errorf("a 1 s wait was logged: %v", w)
	}
}

// TestTokenRefreshHookAndLog: every token fetch reaches the hook and the log with why it
// happened — the first token, a lifetime over by the client's clock, a 401 token_expired — and
// a failed fetch with its error; never a token.
func TestTokenRefreshHookAndLog(t *testing.T) {
	t.Parallel()
	hour := 3600
	ts := newTokenServer(t, &hour)
	clock := &fakeClock{now: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
	var mu sync.Mutex
	var seen []client.TokenRefresh
	logs := &records{level: slog.LevelInfo}
	e := engine(t, ts.URL, client.WithClientCredentials("cli_1", "secret"), client.WithClock(clock.Now),
		client.WithLogger(slog.New(logs)), client.WithTokenRefreshHook(func(r client.TokenRefresh) {
			mu.Lock()
			seen = append(seen, r)
			mu.Unlock()
		}))
	get := func() error {
		_, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_1"), nil)
		return err
	}
	if err := get(); err != nil { // first
		t.Fatal(err)
	}
	if err := get(); err != nil { // cached: no fetch
		t.Fatal(err)
	}
	clock.Advance(time.Hour) // past the lifetime (3600 s less a margin)
	if err := get(); err != nil {
		t.Fatal(err)
	}
	ts.expired.Store(true) // the server rejects the token: a renewal, then the resend fails again
	if err := get(); !errors.Is(err, client.ErrTokenExpired) {
		t.Fatal(err)
	}

	mu.Lock()
	defer mu.Unlock()
	var reasons []client.TokenRefreshReason
	for _, r := range seen {
		reasons = append(reasons, r.Reason)
		if r.Grant != "client_credentials" || r.Err != nil || r.RenewAt.IsZero() || r.Took < 0 {
			t.Errorf("refresh %+v", r)
		}
	}
	want := []client.TokenRefreshReason{client.TokenFirst, client.TokenExpiring, client.TokenRejected}
	if len(reasons) != len(want) || reasons[0] != want[0] || reasons[1] != want[1] || reasons[2] != want[2] {
		t.Fatalf("reasons %v, want %v", reasons, want)
	}
	if got := seen[0].RenewAt; !got.Equal(clock.now.Add(-time.Hour).Add(time.Hour - 10*time.Second)) {
		t.Errorf("first token renewed at %v, want 59m50s after the fetch by the client's clock", got)
	}
	logged := logs.named("medspa token refresh")
	if len(logged) != 3 {
		t.Fatalf("%d refresh records: %v", len(logged), logged)
	}
	for i, rec := range logged {
		if rec["reason"] != string(want[i]) || rec["grant"] != "client_credentials" || rec["level"] != "INFO" {
			t.Errorf("record %d: %v", i, rec)
		}
		for k, v := range rec {
			if strings.Contains(v, "mat_") || strings.Contains(v, "secret") {
				t.Errorf("record %d: %s = %q holds a token or secret", i, k, v)
			}
		}
	}

	// A failed fetch is reported with its error.
	var failed []client.TokenRefresh
	bad := engine(t, "http://127.0.0.1:1", client.WithClientCredentials("cli_1", "secret"), client.WithMaxRetries(0),
		client.WithTokenRefreshHook(func(r client.TokenRefresh) { failed = append(failed, r) }))
	_, _, err := client.Call[obj](context.Background(), bad, http.MethodGet, client.Path("patients"), nil)
	var te *client.TokenError
	if !errors.As(err, &te) || len(failed) != 1 || !errors.As(failed[0].Err, &te) || !failed[0].RenewAt.IsZero() {
		t.Fatalf("failed fetch: %v, reported %+v", err, failed)
	}
}

// TestResponseOfEveryOutcome: the *Response describes the last answer, on success and with an
// *Error; it is nil when nothing was sent or no answer came.
func TestResponseOfEveryOutcome(t *testing.T) {
	t.Parallel()
	e, mt := mocked(t)
	mt.RegisterResponder("GET", "https://api.example.test/api/v1/patients/pat_1",
		httpmock.NewStringResponder(200, `{"id":"pat_1"}`).HeaderSet(http.Header{"X-Request-Id": {"req_1"},
			"X-Ratelimit-Limit": {"100"}, "X-Ratelimit-Remaining": {"42"}, "Ratelimit": {`"burst";r=42;t=58, "daily";r=9000;t=100`}}))
	mt.RegisterResponder("GET", "https://api.example.test/api/v1/patients/pat_2",
		httpmock.NewStringResponder(404, `{"status":404,"code":"not_found"}`).HeaderSet(http.Header{"X-Request-Id": {"req_2"},
			"Content-Type": {"application/problem+json"}}))
	mt.RegisterResponder("POST", "https://api.example.test/api/v1/patients",
		httpmock.NewStringResponder(201, `{"id":"pat_3"}`).HeaderSet(http.Header{"Idempotent-Replayed": {"true"}}))
	ctx := context.Background()

	_, resp, err := client.Call[obj](ctx, e, http.MethodGet, client.Path("patients", "pat_1"), nil)
	if err != nil || resp.StatusCode != 200 || resp.RequestID != "req_1" || resp.Attempts != 1 || resp.Replayed ||
		resp.RateLimit.Limit != 100 || resp.RateLimit.Remaining != 42 || resp.RateLimit.DailyRemaining != 9000 {
		t.Errorf("success: %+v %v", resp, err)
	}
	_, resp, err = client.Call[obj](ctx, e, http.MethodGet, client.Path("patients", "pat_2"), nil)
	if !errors.Is(err, client.ErrNotFound) || resp == nil || resp.StatusCode != 404 || resp.RequestID != "req_2" {
		t.Errorf("*Error: %+v %v", resp, err)
	}
	_, resp, err = client.Call[obj](ctx, e, http.MethodPost, client.Path("patients"), &obj{})
	if err != nil || resp.StatusCode != 201 || !resp.Replayed {
		t.Errorf("replay: %+v %v", resp, err)
	}
	_, resp, err = client.Call[obj](ctx, e, http.MethodGet, client.Path("patients", ""), nil)
	if !errors.Is(err, client.ErrInvalidArgument) || resp != nil {
		t.Errorf("refused: %+v %v", resp, err)
	}
	mt.RegisterResponder("GET", "https://api.example.test/api/v1/invoices", httpmock.NewErrorResponder(errors.New("connection reset")))
	_, resp, err = client.Call[obj](ctx, e, http.MethodGet, client.Path("invoices"), nil, client.WithMaxRetries(0))
	if err == nil || resp != nil {
		t.Errorf("transport failure: %+v %v", resp, err)
	}
}

func TestRoutePattern(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		segments []string
		want     string
	}{
		{[]string{"patients"}, "/api/v1/patients"},
		{[]string{"patients", "pat_0193a1b2c3d4e5f60718293a4b5c6d7e"}, "/api/v1/patients/{id}"},
		{[]string{"webhooks", "whk_1", "rotate-secret"}, "/api/v1/webhooks/{id}/rotate-secret"},
		{[]string{"reports", "revenue"}, "/api/v1/reports/revenue"},
		{[]string{"inventory", "adjust"}, "/api/v1/inventory/adjust"},
		{[]string{"patients", "Ada Lovelace"}, "/api/v1/patients/{id}"},
		{[]string{"patients", "ada"}, "/api/v1/patients/ada"},
		{[]string{"patients", "-x"}, "/api/v1/patients/{id}"},
	} {
		if got := client.Path(tc.segments...).Pattern(); got != tc.want {
			t.Errorf("Path(%q).Pattern() = %q, want %q", tc.segments, got, tc.want)
		}
	}
}
