package mockserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
)

// TestJournalEntriesAreBoundedAndPHIFree: a hostile request's entry stays small and keeps no
// query name the route does not know, nor the idempotency key.
func TestJournalEntriesAreBoundedAndPHIFree(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	k := newKey(t, s, "")
	path := "/api/v1/patients?" + strings.Repeat("x=1&", 10) + "q=ann&jane.doe@example.com=1&perPage=2"
	if status, _, body := raw(t, s, k.Key, "GET", path, ""); status != 422 { // unknown parameters
		t.Fatal(status, string(body))
	}
	long := "/api/v1/" + strings.Repeat("a/", 4000) // 8 KiB of one-letter segments: {redacted} each
	raw(t, s, k.Key, "GET", long, "")
	key := "order-" + strings.Repeat("7", 200)
	for range 2 {
		raw(t, s, k.Key, "POST", "/api/v1/patients", `{"firstName":"Ann","lastName":"Lee"}`, "Idempotency-Key: "+key)
	}
	j := s.Requests(k.Account)
	if len(j) != 4 {
		t.Fatalf("%d entries", len(j))
	}
	if got := strings.Join(j[0].QueryParams, ","); got != "other,perPage,q" {
		t.Errorf("query names %q, want the route's known ones and other", got)
	}
	for _, e := range j {
		b, _ := json.Marshal(e)
		if len(b) > 4096 {
			t.Errorf("entry of %d bytes: %.200s…", len(b), b)
		}
		for _, leak := range []string{"jane", "example.com", key, "77777777"} {
			if strings.Contains(string(b), leak) {
				t.Errorf("entry holds %q: %s", leak, b)
			}
		}
	}
	if len(j[1].Path) > 1024 {
		t.Errorf("path of %d bytes", len(j[1].Path))
	}
	if d := j[2].IdempotencyKey; len(d) != 16 || d != j[3].IdempotencyKey {
		t.Errorf("idempotency digests %q %q: want 16 hex digits, equal for equal keys", d, j[3].IdempotencyKey)
	}
}

// TestJournalAccountBounds: past the bound on accounts, the least recently active account's
// journal goes; past the bound on entries, its oldest entries.
func TestJournalAccountBounds(t *testing.T) {
	t.Parallel()
	s := newServer(t, mockserver.WithBounds(mockserver.Bounds{JournalAccounts: 3, JournalTotal: 10}))
	keys := []mockserver.APIKey{newKey(t, s, ""), newKey(t, s, ""), newKey(t, s, ""), newKey(t, s, "")}
	get := func(k mockserver.APIKey, n int) {
		for range n {
			raw(t, s, k.Key, "GET", "/api/v1/patients", "")
		}
	}
	get(keys[0], 2)
	get(keys[1], 2)
	get(keys[2], 2)
	get(keys[0], 1) // account 0 is active again: account 1 is now the least recently active
	get(keys[3], 1)
	if n := len(s.Requests(keys[1].Account)); n != 0 {
		t.Errorf("the least recently active account kept %d entries", n)
	}
	for _, i := range []int{0, 2, 3} {
		if len(s.Requests(keys[i].Account)) == 0 {
			t.Errorf("account %d lost its journal", i)
		}
	}
	get(keys[3], 6) // 3 + 2 + 7 = 12 > 10: account 2's oldest two go
	if n := len(s.Requests("")); n != 10 {
		t.Errorf("%d entries in all, want the bound 10", n)
	}
	if n := len(s.Requests(keys[2].Account)); n != 0 {
		t.Errorf("account 2 keeps %d entries", n)
	}
	if n := len(s.Requests(keys[0].Account)); n != 3 {
		t.Errorf("account 0 keeps %d entries, want 3", n)
	}
}

// TestOAuthCodesAndTokensPurged: codes an hour after their expiry, token families a week after
// their last token's, on the account's clock, leave memory with the periodic sweep.
func TestOAuthCodesAndTokensPurged(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	c := newOAuthClient(t, env, mockserver.OAuthClientParams{RedirectURIs: []string{redirectURI}})
	env.Server.SetTime(c.Account, time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	cfg := authCodeConfig(env, c)
	for range 3 {
		exchange(t, env, cfg)
	}
	counts := env.Server.Counts()
	if counts["oauthTokens"] != 6 || counts["oauthFamilies"] != 3 || counts["oauthCodes"] != 3 {
		t.Fatalf("after 3 authorizations: %v", counts)
	}
	env.Server.AdvanceTime(c.Account, 10*time.Minute+time.Hour) // codes past 10 min + the grace
	env.Server.Sweep()
	if counts := env.Server.Counts(); counts["oauthCodes"] != 0 || counts["oauthTokens"] != 6 {
		t.Fatalf("after the codes' expiry: %v", counts)
	}
	env.Server.AdvanceTime(c.Account, 30*24*time.Hour+6*24*time.Hour) // the families' last tokens, 30 days + a week
	env.Server.Sweep()
	if counts := env.Server.Counts(); counts["oauthTokens"] != 6 {
		t.Fatalf("purged before a week past the refresh tokens' expiry: %v", counts)
	}
	env.Server.AdvanceTime(c.Account, 24*time.Hour)
	env.Server.Sweep()
	if counts := env.Server.Counts(); counts["oauthTokens"] != 0 || counts["oauthFamilies"] != 0 {
		t.Fatalf("after the refresh tokens' expiry: %v", counts)
	}
}

// TestOAuthFamiliesBoundedPerClient: past the bound, a client's oldest authorization is revoked.
func TestOAuthFamiliesBoundedPerClient(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, []mockserver.Option{mockserver.WithBounds(mockserver.Bounds{OAuthFamiliesPerClient: 2})})
	c := newOAuthClient(t, env, mockserver.OAuthClientParams{RedirectURIs: []string{redirectURI}})
	cfg := authCodeConfig(env, c)
	first := exchange(t, env, cfg)
	exchange(t, env, cfg)
	last := exchange(t, env, cfg)
	if resp, _ := getWithToken(t, env, first.AccessToken); resp.StatusCode != 401 {
		t.Errorf("the oldest authorization past the bound: %d, want 401", resp.StatusCode)
	}
	if resp, body := getWithToken(t, env, last.AccessToken); resp.StatusCode != 200 {
		t.Errorf("the newest: %d %s", resp.StatusCode, body)
	}
}

// TestNoncesAndRateLimitStatesSwept: a credential's nonces leave memory after the replay window
// (on its account's clock), and its rate-limit state once at rest.
func TestNoncesAndRateLimitStatesSwept(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	k := env.NewKey(t, mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}, SigningRequired: true})
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	env.Server.SetTime(k.Account, t0)
	for range 3 {
		if resp, body := send(t, env, signedReq(t, env, k, "GET", "/api/v1/patients", "", t0, nil)); resp.StatusCode != 200 {
			t.Fatal(resp.StatusCode, string(body))
		}
	}
	if c := env.Server.Counts(); c["nonceCaches"] != 1 || c["rateLimitStates"] != 1 {
		t.Fatalf("after signed requests: %v", c)
	}
	env.Server.Sweep()
	if c := env.Server.Counts(); c["nonceCaches"] != 1 || c["rateLimitStates"] != 1 {
		t.Fatalf("swept within the window, before the bucket refilled: %v", c)
	}
	env.Server.AdvanceTime(k.Account, 24*time.Hour) // past the window, the bucket full, a new day
	env.Server.Sweep()
	if c := env.Server.Counts(); c["nonceCaches"] != 0 || c["rateLimitStates"] != 0 {
		t.Fatalf("after the window and a day: %v", c)
	}
	// A fresh state is the same state: the limits go on as before.
	t1 := t0.Add(24 * time.Hour)
	resp, body := send(t, env, signedReq(t, env, k, "GET", "/api/v1/patients", "", t1, nil))
	if resp.StatusCode != 200 || resp.Header.Get("X-RateLimit-Remaining") != "99" {
		t.Fatalf("after the sweep: %d %s remaining %s", resp.StatusCode, body, resp.Header.Get("X-RateLimit-Remaining"))
	}
}

func TestArmedFaultsBounded(t *testing.T) {
	t.Parallel()
	s := newServer(t, mockserver.WithBounds(mockserver.Bounds{ArmedFaults: 2}))
	ts := httptest.NewServer(s)
	defer ts.Close()
	for i, want := range []int{204, 204, 422} {
		if status, body := adminPost(t, ts.URL+"/__admin/faults", `{"status":503,"times":1}`); status != want {
			t.Fatalf("fault %d: %d %s", i, status, body)
		}
	}
	if status, body := adminPost(t, ts.URL+"/__admin/faults", fmt.Sprintf(`{"status":503,"times":1,"path":"/%s"}`, strings.Repeat("p", 9000))); status != 422 {
		t.Fatalf("a fault path over 8 KiB: %d %s", status, body)
	}
}

// TestRequestSizeLimits (docs/protocol.md §13): a request target over 8 KiB is 414, a header
// section over 64 KiB 431, refused before anything else: no request id, no journal entry, no
// audit event, nothing consumed.
func TestRequestSizeLimits(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	k := newKey(t, s, "")
	for _, tc := range []struct {
		name    string
		path    string
		headers []string
		want    int
	}{
		{"path at the limit", "/api/v1/patients/" + strings.Repeat("a", 8192-len("/api/v1/patients/")), nil, 404},
		{"path over", "/api/v1/patients/" + strings.Repeat("a", 8192), nil, 414},
		{"query over", "/api/v1/patients?q=" + strings.Repeat("a", 8192), nil, 414},
		{"1 MB path", "/api/v1/patients/" + strings.Repeat("pat_", 1<<18), nil, 414},
		{"headers over", "/api/v1/patients", []string{"X-Big: " + strings.Repeat("b", 64<<10)}, 431},
	} {
		status, h, body := raw(t, s, k.Key, "GET", tc.path, "", tc.headers...)
		if status != tc.want {
			t.Errorf("%s: %d %.100s, want %d", tc.name, status, body, tc.want)
		}
		if tc.want != 404 && (h.Get("X-Request-Id") != "" || h.Get("X-RateLimit-Remaining") != "") {
			t.Errorf("%s: refused after the pipeline began: %v", tc.name, h)
		}
	}
	for _, e := range s.Requests("") {
		if e.Status == 414 || e.Status == 431 {
			t.Errorf("journalled: %+v", e)
		}
	}
	if n := len(s.AuditEvents(k.Account)) + len(s.AuditEvents("")); n != 0 {
		t.Errorf("%d audit events", n)
	}
}

// TestTrustedProxies: X-Forwarded-For is believed only from a trusted proxy, read from the right
// past trusted hops.
func TestTrustedProxies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		trusted []string
		xff     []string
		want    string // the address the audit log records
	}{
		{"no proxy trusted: the peer", nil, []string{"10.1.1.1"}, "127.0.0.1"},
		{"peer not in the list: the peer", []string{"10.0.0.0/8"}, []string{"10.1.1.1"}, "127.0.0.1"},
		{"trusted peer: the last hop", []string{"127.0.0.1"}, []string{"203.0.113.9, 10.1.1.1"}, "10.1.1.1"},
		{"trusted hops skipped from the right", []string{"127.0.0.0/8", "10.0.0.0/8"}, []string{"203.0.113.9, 198.51.100.7, 10.1.1.1"}, "198.51.100.7"},
		{"several header lines", []string{"127.0.0.1", "10.0.0.0/8"}, []string{"203.0.113.9", "198.51.100.7", "10.2.2.2"}, "198.51.100.7"},
		{"all trusted: the first", []string{"127.0.0.1", "10.0.0.0/8"}, []string{"10.3.3.3, 10.1.1.1"}, "10.3.3.3"},
		{"garbage hop: the last trusted", []string{"127.0.0.1", "10.0.0.0/8"}, []string{"nonsense, 10.1.1.1"}, "10.1.1.1"},
		{"hop with a port", []string{"::1", "127.0.0.1"}, []string{"[2001:db8::5]:443"}, "2001:db8::5"},
		{"default: loopback", []string{}, []string{"198.51.100.7"}, "198.51.100.7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var opts []mockserver.Option
			if tc.trusted != nil {
				opts = append(opts, mockserver.WithTrustedProxy(tc.trusted...))
			}
			s := newServer(t, opts...)
			k := newKey(t, s, "")
			req, _ := http.NewRequest("GET", mockserver.InProcessBaseURL+"/api/v1/patients", nil)
			req.Header.Set("Authorization", "Bearer "+k.Key)
			for _, v := range tc.xff {
				req.Header.Add("X-Forwarded-For", v)
			}
			resp, err := s.HTTPClient().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			ev := s.AuditEvents(k.Account)
			if len(ev) != 1 || ev[0].IP != tc.want {
				t.Fatalf("caller %+v, want %s", ev, tc.want)
			}
		})
	}
	if _, err := mockserver.New(mockserver.WithTrustedProxy("10.0.0.0/33")); err == nil {
		t.Error("an invalid CIDR was accepted")
	}
}

// TestWebhookBoundsAreOptions: the dispatcher's bounds are settings of the server. A receiver
// that never answers keeps one endpoint's deliveries pending; past WebhookQueue the oldest are
// dropped and logged as such; the delivery log keeps DeliveryLog records; a recorder keeps
// RecordedEvents events.
func TestWebhookBoundsAreOptions(t *testing.T) {
	t.Parallel()
	hang := make(chan struct{})
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hang }))
	t.Cleanup(receiver.Close)
	t.Cleanup(func() { close(hang) })
	s := newServer(t, mockserver.WithBounds(mockserver.Bounds{WebhookQueue: 3, DeliveryLog: 4, RecordedEvents: 2}),
		mockserver.WithWebhookTimeout(time.Minute))
	k := newKey(t, s, "")
	rec := s.RecordEvents(k.Account)
	if status, _, body := raw(t, s, k.Key, "POST", "/api/v1/webhooks",
		`{"url":"`+receiver.URL+`/hook","events":["patient.created"]}`); status != 201 {
		t.Fatal(status, string(body))
	}
	for i := range 12 {
		if status, _, body := raw(t, s, k.Key, "POST", "/api/v1/patients",
			fmt.Sprintf(`{"firstName":"P%d","lastName":"Q","email":"p@example.com"}`, i)); status != 201 {
			t.Fatal(status, string(body))
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	var ds []mockserver.Delivery
	for {
		ds = s.Deliveries(k.Account)
		if len(ds) == 4 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(ds) != 4 {
		t.Fatalf("%d delivery records, want the log's bound 4", len(ds))
	}
	for _, d := range ds {
		if !d.Dropped || d.Outcome != "dropped" || d.Error != "dropped" {
			t.Errorf("record %+v: want a dropped delivery (12 events, at most 2 in flight and 3 pending)", d)
		}
	}
	if n := len(rec.Events()); n != 2 {
		t.Errorf("recorder kept %d events, want its bound 2", n)
	}
}
