package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/medspa/medspa-go/client"
)

// mocked returns a client whose transport is an httpmock responder set (no network at all).
func mocked(t *testing.T, opts ...client.Option) (*client.Engine, *httpmock.MockTransport) {
	t.Helper()
	mt := httpmock.NewMockTransport()
	c, err := client.NewEngine(append([]client.Option{
		client.WithBaseURL("https://api.example.test"), client.WithAPIKey("msk_test_secretvalue"),
		client.WithHTTPClient(&http.Client{Transport: mt}), client.WithRetryWait(0, 0),
	}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c, mt
}

func TestBaseURLRules(t *testing.T) {
	t.Parallel()
	cases := []struct {
		url string
		ok  bool
	}{
		{"https://api.medspa.dev", true},
		{"http://127.0.0.1:8080", true},
		{"http://[::1]:8080", true},
		{"http://localhost", true},
		{"http://api.medspa.dev", false},
		{"http://10.0.0.1", false},
		{"ftp://api.medspa.dev", false},
		{"not a url", false},
		{"https://", false},
	}
	for _, tc := range cases {
		_, err := client.NewEngine(client.WithBaseURL(tc.url), client.WithAPIKey("msk_test_x"))
		if (err == nil) != tc.ok {
			t.Errorf("%q: err %v, want ok=%v", tc.url, err, tc.ok)
		}
	}
}

func TestEnvironmentDefaults(t *testing.T) {
	t.Setenv("MEDSPA_API_KEY", "msk_test_fromenv")
	t.Setenv("MEDSPA_BASE_URL", "https://env.example.test/")
	mt := httpmock.NewMockTransport()
	var auth, host string
	mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		auth, host = r.Header.Get("Authorization"), r.URL.Host
		return httpmock.NewStringResponse(200, `{}`), nil
	})
	c, err := client.NewEngine(client.WithHTTPClient(&http.Client{Transport: mt}))
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL() != "https://env.example.test" {
		t.Errorf("base %q", c.BaseURL())
	}
	_, _ = c.Do(context.Background(), http.MethodGet, client.Path("patients"), nil, nil)
	if auth != "Bearer msk_test_fromenv" || host != "env.example.test" {
		t.Errorf("auth %q host %q", auth, host)
	}
}

func TestRequestHeaders(t *testing.T) {
	t.Parallel()
	c, mt := mocked(t, client.WithUserAgent("myapp/1.2"))
	var got *http.Request
	mt.RegisterResponder("POST", "https://api.example.test/api/v1/patients", func(r *http.Request) (*http.Response, error) {
		got = r
		return httpmock.NewStringResponse(201, `{"id":"pat_1"}`), nil
	})
	if _, _, err := client.Call[obj](context.Background(), c, http.MethodPost, client.Path("patients"), map[string]string{"firstName": "A"},
		client.WithHeader("X-Trace", "t1")); err != nil {
		t.Fatal(err)
	}
	ua := regexp.MustCompile(`^medspa-go/` + regexp.QuoteMeta(client.Version) + ` go/\d+\.\d+(\.\d+)?\S* myapp/1\.2$`)
	if !ua.MatchString(got.Header.Get("User-Agent")) {
		t.Errorf("User-Agent %q", got.Header.Get("User-Agent"))
	}
	for k, want := range map[string]string{"Authorization": "Bearer msk_test_secretvalue", "Content-Type": "application/json", "Accept": "application/json", "X-Trace": "t1"} {
		if got.Header.Get(k) != want {
			t.Errorf("%s: %q, want %q", k, got.Header.Get(k), want)
		}
	}
	// Per-call options override the client's for that call only.
	mt.RegisterResponder("GET", "https://api.example.test/api/v1/patients/pat_1", func(r *http.Request) (*http.Response, error) {
		got = r
		return httpmock.NewStringResponse(200, `{"id":"pat_1"}`), nil
	})
	_, _, _ = client.Call[obj](context.Background(), c, http.MethodGet, client.Path("patients", "pat_1"), nil, client.WithAPIKey("msk_test_other"))
	if got.Header.Get("Authorization") != "Bearer msk_test_other" || got.Header.Get("Idempotency-Key") != "" {
		t.Errorf("per-call key: %q, idempotency key on GET %q", got.Header.Get("Authorization"), got.Header.Get("Idempotency-Key"))
	}
	_, _, _ = client.Call[obj](context.Background(), c, http.MethodGet, client.Path("patients", "pat_1"), nil)
	if got.Header.Get("Authorization") != "Bearer msk_test_secretvalue" {
		t.Errorf("per-call option leaked into the client: %q", got.Header.Get("Authorization"))
	}
}

// TestPathSegments pins what Path sends for a segment, and which segments it refuses: an id
// that is empty or not one segment would name another resource on the way to the server
// (issue 16: "a/b?c" used to be sent escaped as one segment; it is refused now).
func TestPathSegments(t *testing.T) {
	t.Parallel()
	for seg, want := range map[string]string{
		"pat_1":       "/api/v1/patients/pat_1",
		"a b%c":       "/api/v1/patients/a%20b%25c",
		"café":        "/api/v1/patients/caf%C3%A9",
		"a.b":         "/api/v1/patients/a.b",
		"...":         "/api/v1/patients/...",
		"key:1@x;y=z": "/api/v1/patients/key:1@x%3By=z",
	} {
		r := client.Path("patients", seg)
		if r.Err() != nil || r.String() != want {
			t.Errorf("Path(%q) = %q, %v; want %q", seg, r.String(), r.Err(), want)
		}
	}
	for _, seg := range []string{"", ".", "..", "a/b", "/", "a?b", "a#b", `a\b`, "a\nb", "a\x00", "a\x7f", "\xff", "a\u0085"} {
		r := client.Path("patients", seg)
		if !errors.Is(r.Err(), client.ErrInvalidArgument) || r.String() != "" {
			t.Errorf("Path(%q) = %q, %v; want ErrInvalidArgument", seg, r.String(), r.Err())
		}
		if len(seg) > 2 && strings.Contains(r.Err().Error(), seg) {
			t.Errorf("the error quotes the segment: %v", r.Err())
		}
	}
	if r := client.Path("webhooks", "whk_1", "test"); r.String() != "/api/v1/webhooks/whk_1/test" {
		t.Errorf("Path = %q", r.String())
	}
}

func TestErrorDecoding(t *testing.T) {
	t.Parallel()
	c, mt := mocked(t, client.WithMaxRetries(0))
	mt.RegisterResponder("POST", "https://api.example.test/api/v1/appointments", httpmock.NewStringResponder(409,
		`{"type":"https://docs.medspa.dev/errors/appointment_conflict","title":"Appointment conflict","status":409,"detail":"overlaps","code":"appointment_conflict","requestId":"req_1","conflictingId":"apt_9","future":"ignored"}`).
		HeaderSet(http.Header{"Content-Type": {"application/problem+json"}}))
	mt.RegisterResponder("POST", "https://api.example.test/api/v1/payments", httpmock.NewStringResponder(402,
		`{"type":"https://docs.medspa.dev/errors/card_declined","title":"Card declined","status":402,"code":"card_declined","requestId":"req_2","paymentId":"pay_1","declineCode":"insufficient_funds"}`).
		HeaderSet(http.Header{"Content-Type": {"application/problem+json"}}))
	mt.RegisterResponder("POST", "https://api.example.test/api/v1/patients", httpmock.NewStringResponder(422,
		`{"type":"https://docs.medspa.dev/errors/validation_error","title":"Validation failed","status":422,"detail":"2 fields are invalid","code":"validation_error","requestId":"req_3","errors":[{"pointer":"/email","code":"invalid_format","detail":"must be an email address"},{"pointer":"/lastName","code":"required","detail":"is required"}]}`).
		HeaderSet(http.Header{"Content-Type": {"application/problem+json"}}))
	mt.RegisterResponder("GET", "https://api.example.test/api/v1/patients", httpmock.NewStringResponder(502, `<html>bad gateway</html>`).
		HeaderSet(http.Header{"Content-Type": {"text/html"}, "X-Request-Id": {"req_4"}}))
	ctx := context.Background()

	_, _, err := client.Call[obj](ctx, c, http.MethodPost, client.Path("appointments"), struct{}{})
	var e *client.Error
	if !errors.As(err, &e) || !errors.Is(err, client.ErrAppointmentConflict) || !errors.Is(err, client.ErrAPI) || errors.Is(err, client.ErrNotFound) ||
		e.ConflictingID != "apt_9" || e.RequestID != "req_1" || e.Status != 409 {
		t.Errorf("conflict: %#v", e)
	}
	_, _, err = client.Call[obj](ctx, c, http.MethodPost, client.Path("payments"), struct{}{})
	if !errors.As(err, &e) || !errors.Is(err, client.ErrCardDeclined) || e.PaymentID != "pay_1" || e.DeclineCode != "insufficient_funds" {
		t.Errorf("decline: %#v", e)
	}
	_, _, err = client.Call[obj](ctx, c, http.MethodPost, client.Path("patients"), struct{}{})
	if !errors.As(err, &e) || len(e.Fields) != 2 || e.Fields[0] != (client.FieldError{Pointer: "/email", Code: "invalid_format", Detail: "must be an email address"}) {
		t.Errorf("validation: %#v", e)
	}
	if msg := err.Error(); msg != "medspa: 422 validation_error: 2 fields are invalid (/email invalid_format, /lastName required) [req_3]" {
		t.Errorf("message %q", msg)
	}
	_, _, err = client.Call[obj](ctx, c, http.MethodGet, client.Path("patients"), nil)
	if !errors.As(err, &e) || e.Status != 502 || e.Code != "" || e.Title != "Bad Gateway" || e.RequestID != "req_4" {
		t.Errorf("non-problem body: %#v", e)
	}
}

// TestDebugLogsCarryMetadataOnly sends PHI in a body and a query, with a key, and checks that
// none of it reaches the log while the metadata does.
func TestDebugLogsCarryMetadataOnly(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, mt := mocked(t, client.WithLogger(logger))
	mt.RegisterNoResponder(httpmock.NewStringResponder(200, `{"id":"pat_1","firstName":"Zenobia"}`).HeaderSet(http.Header{"X-Request-Id": {"req_77"}}))
	ctx := context.Background()
	_, _, _ = client.Call[obj](ctx, c, http.MethodPost, client.Path("patients"), map[string]string{"firstName": "Zenobia", "email": "zen@example.org"})
	_, _, _ = client.Call[obj](ctx, c, http.MethodGet, client.Path("patients"), url.Values{"email": {"zen@example.org"}})
	out := buf.String()
	for _, secret := range []string{"Zenobia", "zen@example.org", "zen%40example.org", "msk_test_secretvalue", "Bearer"} {
		if strings.Contains(out, secret) {
			t.Errorf("log contains %q:\n%s", secret, out)
		}
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &rec); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"method", "route", "status", "request_id", "attempt", "duration"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("log record lacks %q: %v", k, rec)
		}
	}
}

func TestEncodeQuery(t *testing.T) {
	t.Parallel()
	yes := true
	type params struct {
		client.ListOptions
		Q       string    `url:"q,omitempty"`
		Status  []string  `url:"status,omitempty"`
		Filter  []string  `url:"filter,repeat"`
		From    time.Time `url:"from,omitempty"`
		Active  *bool     `url:"active,omitempty"`
		Date    client.Date
		When    client.Date `url:"when,omitempty"`
		Ignored string
	}
	q, err := client.EncodeQuery(&params{
		ListOptions: client.ListOptions{Page: 2, PerPage: 50}, Status: []string{"open", "paid"}, Filter: []string{"a:1", "b:2"},
		From: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)), Active: &yes, When: client.NewDate(2026, 2, 3),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "active=true&filter=a%3A1&filter=b%3A2&from=2026-01-02T02%3A04%3A05Z&page=2&perPage=50&status=open%2Cpaid&when=2026-02-03"
	if q.Encode() != want {
		t.Errorf("got  %s\nwant %s", q.Encode(), want)
	}
	if q, _ := client.EncodeQuery((*params)(nil)); len(q) != 0 {
		t.Errorf("nil params: %v", q)
	}
	if _, err := client.EncodeQuery(42); err == nil {
		t.Error("a non-struct was accepted")
	}
}

func TestOptionalMarshalsMergePatch(t *testing.T) {
	t.Parallel()
	type patch struct {
		A client.Optional[string]      `json:"a,omitzero"`
		B client.Optional[string]      `json:"b,omitzero"`
		C client.Optional[[]string]    `json:"c,omitzero"`
		D client.Optional[client.Date] `json:"d,omitzero"`
	}
	b, err := json.Marshal(patch{A: client.Set("x"), B: client.Null[string](), D: client.Set(client.NewDate(2000, 1, 2))})
	if err != nil || string(b) != `{"a":"x","b":null,"d":"2000-01-02"}` {
		t.Errorf("%s %v", b, err)
	}
	var back patch
	if err := json.Unmarshal([]byte(`{"a":"y","b":null}`), &back); err != nil {
		t.Fatal(err)
	}
	if v, ok := back.A.Get(); !ok || v != "y" || !back.B.IsNull() || !back.C.IsZero() {
		t.Errorf("%+v", back)
	}
}

func TestDateRejectsImpossibleDates(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"2026-02-30", "2026-13-01", "26-01-01", "2026-1-1", ""} {
		if _, err := client.ParseDate(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
	if d, err := client.ParseDate("2024-02-29"); err != nil || d.String() != "2024-02-29" {
		t.Errorf("leap day: %v %v", d, err)
	}
}

// TestTimesOnTheWire: every time the SDK writes, in a query or a merge patch, is UTC with "Z"
// and whole seconds (docs/protocol.md §2), whatever the caller's zone and precision.
func TestTimesOnTheWire(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 9, 3, 0, 999_999_999, time.FixedZone("EST", -5*3600))
	q, err := client.EncodeQuery(&struct {
		From time.Time  `url:"from"`
		To   *time.Time `url:"to"`
	}{From: at, To: &at})
	if err != nil || q.Get("from") != "2026-11-22T14:03:00Z" || q.Get("to") != "2026-11-22T14:03:00Z" {
		t.Errorf("query %v, %v", q, err)
	}
	b, err := json.Marshal(struct {
		At client.Optional[time.Time] `json:"at,omitzero"`
	}{client.Set(at)})
	if err != nil || string(b) != `{"at":"2026-11-22T14:03:00Z"}` {
		t.Errorf("patch %s, %v", b, err)
	}
	var back client.Optional[time.Time]
	if err := json.Unmarshal([]byte(`"2026-11-22T14:03:00Z"`), &back); err != nil {
		t.Fatal(err)
	}
	if v, ok := back.Get(); !ok || !v.Equal(at.Truncate(time.Second)) {
		t.Errorf("read back %v", v)
	}
	if p := client.Ptr(int64(7)); *p != 7 {
		t.Error("Ptr")
	}
}
