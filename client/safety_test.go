package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/medspa/medspa-go/client"
)

// phiQuery is a list filter that is PHI: it must never appear in an error string.
var phiQuery = url.Values{"email": {"ada.lovelace@example.com"}, "q": {"Lovelace"}}

// oneLine checks that msg is one line holding none of leaks.
func oneLine(t *testing.T, msg string, leaks ...string) {
	t.Helper()
	if strings.ContainsAny(msg, "\r\n\u2028\u2029\x1b") {
		t.Errorf("message spans lines or holds controls: %q", msg)
	}
	for _, l := range leaks {
		if strings.Contains(msg, l) {
			t.Errorf("message %q holds %q", msg, l)
		}
	}
}

// TestTransportErrorsHoldNoQuery: a transport failure's message names the call (method and
// path) but not its query, which holds PHI filters; errors.As still reaches the *url.Error,
// whose URL keeps the query for callers who want it.
func TestTransportErrorsHoldNoQuery(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens: connection refused
	e := engine(t, "http://"+addr, client.WithMaxRetries(0))
	_, _, err = client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients"), phiQuery)
	var ue *url.Error
	if !errors.As(err, &ue) || !strings.Contains(ue.URL, "ada.lovelace") {
		t.Fatalf("err %v: want a *url.Error keeping the URL", err)
	}
	oneLine(t, err.Error(), "ada", "lovelace", "Lovelace", "?", "email=")
	if !strings.HasPrefix(err.Error(), "medspa: GET /api/v1/patients: ") {
		t.Errorf("message %q does not name the call", err)
	}
	// Cancelled: the context's error, reachable with errors.Is, and still no query.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = client.Call[obj](ctx, e, http.MethodGet, client.Path("patients"), phiQuery)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	oneLine(t, err.Error(), "ada", "Lovelace")
}

// TestServerTextIsOneLine: what the server puts in a problem (title, detail, field pointers and
// codes, request id) cannot break an error into several log lines or forge one: control
// characters are escaped. The *Error keeps the server's text as sent.
func TestServerTextIsOneLine(t *testing.T) {
	t.Parallel()
	const detail = "bad\nlevel=ERROR msg=forged\r\x1b[2J\u2028"
	srv := newRecorder(t, false, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("X-Request-Id", "req_1\u2029x")
		w.WriteHeader(422)
		d, _ := json.Marshal(detail)
		_, _ = fmt.Fprintf(w, `{"status":422,"code":"validation_error\n","title":"T\n","detail":%s,"errors":[{"pointer":"/a\nb","code":"required\r","detail":"x\ny"}]}`, d)
	})
	_, _, err := client.Call[obj](context.Background(), engine(t, srv.URL), http.MethodGet, client.Path("patients", "pat_1"), nil)
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Detail != detail {
		t.Fatalf("err %v", err)
	}
	oneLine(t, err.Error())
	if want := `medspa: 422 validation_error\n: bad\nlevel=ERROR msg=forged\r\x1b[2J\u2028 (/a\nb required\r) [req_1\u2029x]`; err.Error() != want {
		t.Errorf("message\n got %s\nwant %s", err.Error(), want)
	}
}

// TestDecodeErrorsHoldNoValues: an answer that does not decode fails with a message that says
// where, never what (the value may be PHI).
func TestDecodeErrorsHoldNoValues(t *testing.T) {
	t.Parallel()
	for _, answer := range []string{`{"id": ["Ada Lovelace"]}`, `{"id": "Ada Lovelace"`, `Ada Lovelace`, `{"id":"x","when":"Ada Lovelace"}`} {
		srv := newRecorder(t, false, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, answer)
		})
		var out struct {
			ID   string    `json:"id"`
			When time.Time `json:"when"`
		}
		_, err := engine(t, srv.URL).Do(context.Background(), http.MethodGet, client.Path("patients", "pat_1"), nil, &out)
		if err == nil {
			t.Fatalf("%s decoded", answer)
		}
		oneLine(t, err.Error(), "Ada", "Lovelace")
	}
}

// TestTokenErrorsHoldNoBody: a token endpoint's refusal is reported by status, error code and
// (escaped) description, never by its body or URL.
func TestTokenErrorsHoldNoBody(t *testing.T) {
	t.Parallel()
	srv := newRecorder(t, false, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		if r.URL.Query().Get("plain") != "" {
			_, _ = io.WriteString(w, `<html>internal detail</html>`)
			return
		}
		_, _ = io.WriteString(w, `{"error":"invalid_grant","error_description":"expired\nlevel=INFO","secret_echo":"s3cr3t"}`)
	})
	e := engine(t, srv.URL, client.WithClientCredentials("cli_1", "s3cr3t"), client.WithMaxRetries(0))
	_, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients"), phiQuery)
	var te *client.TokenError
	var re *oauth2.RetrieveError
	if !errors.As(err, &te) || !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Fatalf("err %v", err)
	}
	oneLine(t, err.Error(), "s3cr3t", "ada", "/oauth/token")
	if !strings.Contains(err.Error(), `400 invalid_grant: expired\nlevel=INFO`) {
		t.Errorf("message %q", err)
	}
}

// TestNilParamsRefused: a call that needs a body refuses nil params before the wire; a call
// without one (webhooks' test) sends none.
func TestNilParamsRefused(t *testing.T) {
	t.Parallel()
	srv := newRecorder(t, false, answerJSON)
	e := engine(t, srv.URL)
	type params struct{ A string }
	for _, method := range []string{http.MethodPost, http.MethodPatch, http.MethodPut} {
		if _, err := e.Do(context.Background(), method, client.Path("patients"), (*params)(nil), nil); !errors.Is(err, client.ErrInvalidArgument) {
			t.Errorf("%s with nil params: %v", method, err)
		}
	}
	if _, err := e.Do(context.Background(), http.MethodGet, client.Route{}, nil, nil); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("zero Route: %v", err)
	}
	if seen, _ := srv.requests(); len(seen) != 0 {
		t.Errorf("%d requests sent", len(seen))
	}
	if _, err := e.Do(context.Background(), http.MethodPost, client.Path("webhooks", "whk_1", "test"), nil, nil); err != nil {
		t.Fatal(err)
	}
	if seen, bodies := srv.requests(); len(seen) != 1 || bodies[0] != "" || seen[0].Header.Get("Content-Type") != "" {
		t.Errorf("bodiless POST sent %q", bodies)
	}
}

// pages is a list server answering pages by script: page n gets script(n).
func pages(t *testing.T, script func(page int) string) *recorder {
	return newRecorder(t, false, func(w http.ResponseWriter, r *http.Request) {
		var n int
		_, _ = fmt.Sscan(r.URL.Query().Get("page"), &n)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, script(n))
	})
}

func walk(e *client.Engine, opts ...client.RequestOption) (ids []string, err error) {
	for p, err := range client.All[obj](context.Background(), e, client.Path("patients"), nil, opts...) {
		if err != nil {
			return ids, err
		}
		ids = append(ids, p.ID)
	}
	return ids, nil
}

// TestAllDoesNotTrustTheServer: All stops with ErrPagination when a server repeats a page,
// answers an empty page before its total, or never reaches its last page.
func TestAllDoesNotTrustTheServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		script func(page int) string
		opts   []client.RequestOption
		ids    int // yielded before the error
		want   error
	}{
		{"a page repeated", func(int) string {
			return `{"data":[{"id":"pat_1"},{"id":"pat_2"}],"meta":{"total":10,"page":1,"perPage":2}}`
		}, nil, 2, client.ErrPagination},
		{"the page number ignored", func(n int) string {
			return `{"data":[{"id":"pat_1"}],"meta":{"total":5,"page":` + fmt.Sprint(n) + `,"perPage":1}}`
		}, nil, 1, client.ErrPagination},
		{"an empty page before the total", func(n int) string {
			if n > 2 {
				return `{"data":[],"meta":{"total":10,"page":3,"perPage":2}}`
			}
			return fmt.Sprintf(`{"data":[{"id":"pat_%da"},{"id":"pat_%db"}],"meta":{"total":10,"page":%d,"perPage":2}}`, n, n, n)
		}, nil, 4, client.ErrPagination},
		{"an empty first page with a total", func(int) string {
			return `{"data":[],"meta":{"total":3,"page":1,"perPage":25}}`
		}, nil, 0, client.ErrPagination},
		{"no last page", func(n int) string {
			return fmt.Sprintf(`{"data":[{"id":"pat_%d"}],"meta":{"total":1000000000,"page":%d,"perPage":1}}`, n, n)
		}, []client.RequestOption{client.WithMaxPages(5)}, 5, client.ErrPagination},
		{"a zero page size", func(n int) string {
			return fmt.Sprintf(`{"data":[{"id":"pat_%d"}],"meta":{"total":7,"page":%d,"perPage":0}}`, n, n)
		}, []client.RequestOption{client.WithMaxPages(3)}, 3, client.ErrPagination},
		{"an empty list", func(int) string {
			return `{"data":[],"meta":{"total":0,"page":1,"perPage":25}}`
		}, nil, 0, nil},
	} {
		srv := pages(t, tc.script)
		ids, err := walk(engine(t, srv.URL), tc.opts...)
		if !errors.Is(err, tc.want) || len(ids) != tc.ids {
			t.Errorf("%s: %d ids, err %v; want %d, %v", tc.name, len(ids), err, tc.ids, tc.want)
		}
		if seen, _ := srv.requests(); len(seen) > 6 {
			t.Errorf("%s: %d requests", tc.name, len(seen))
		}
	}
}

// TestRateLimiterSharedPerCredential: per-call WithRateLimit (or WithPlan) uses one bucket per
// credential and rate, shared by every call that names them, and a wait the context's deadline
// would cut fails at once with an error matching context.DeadlineExceeded.
func TestRateLimiterSharedPerCredential(t *testing.T) {
	t.Parallel()
	srv := newRecorder(t, false, answerJSON)
	e := engine(t, srv.URL)
	slow := client.WithRateLimit(1, 2) // one token a minute; the client's bucket holds one
	call := func(opts ...client.RequestOption) error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _, err := client.Call[obj](ctx, e, http.MethodGet, client.Path("patients", "pat_1"), nil, opts...)
		return err
	}
	if err := call(slow); err != nil {
		t.Fatal(err)
	}
	// The same credential and rate, named again by a new option value: the bucket is empty.
	err := call(client.WithRateLimit(1, 2))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second call: %v, want the limiter's deadline error", err)
	}
	// Another credential has its own bucket; so has the client without a limit.
	if err := call(client.WithRateLimit(1, 2), client.WithAPIKey("msk_test_other")); err != nil {
		t.Errorf("another key: %v", err)
	}
	if err := call(); err != nil {
		t.Errorf("no limit: %v", err)
	}
	if seen, _ := srv.requests(); len(seen) != 3 {
		t.Errorf("%d requests, want 3", len(seen))
	}
	// A client's own limit and a call naming the same one share the bucket too.
	e2 := engine(t, srv.URL, client.WithRateLimit(0.01, 5))
	for range 4 { // burst 5: the client keeps 4, then one token every 100 minutes
		if _, _, err := client.Call[obj](context.Background(), e2, http.MethodGet, client.Path("patients", "pat_1"), nil); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, _, err := client.Call[obj](ctx, e2, http.MethodGet, client.Path("patients", "pat_1"), nil, client.WithRateLimit(0.01, 5)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the client's rate named per call: %v", err)
	}
}

// tokenServer is an OAuth token endpoint and an API behind it, scripted: the token endpoint
// answers expiresIn (nil: no expires_in) and counts requests; the API answers 200, or
// 401 token_expired while expired() says so.
type tokenServer struct {
	*recorder
	tokens  atomic.Int32
	expired atomic.Bool
}

func newTokenServer(t *testing.T, expiresIn *int) *tokenServer {
	ts := &tokenServer{}
	ts.recorder = newRecorder(t, false, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/oauth/token" {
			n := ts.tokens.Add(1)
			w.Header().Set("Content-Type", "application/json")
			exp := ""
			if expiresIn != nil {
				exp = fmt.Sprintf(`,"expires_in":%d`, *expiresIn)
			}
			_, _ = fmt.Fprintf(w, `{"access_token":"mat_%d","token_type":"Bearer"%s}`, n, exp)
			return
		}
		if ts.expired.Load() {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"status":401,"code":"token_expired"}`)
			return
		}
		answerJSON(w, r)
	})
	return ts
}

// fakeClock is a client clock the test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestTokenLifetimeBounds: however long the token endpoint says a token lives, the client
// renews it after at least 30 s (one request in flight for every concurrent call) and at most
// 24 h; a token without expires_in lives 30 s.
func TestTokenLifetimeBounds(t *testing.T) {
	t.Parallel()
	one, tenDays := 1, 10*24*3600
	for _, tc := range []struct {
		name      string
		expiresIn *int
		stillGood time.Duration // no renewal yet
		renewed   time.Duration // renewed by then
	}{
		{"expires_in 1", &one, 25 * time.Second, 31 * time.Second},
		{"no expires_in", nil, 25 * time.Second, 31 * time.Second},
		{"expires_in 10 days", &tenDays, 23 * time.Hour, 24*time.Hour + time.Second},
	} {
		ts := newTokenServer(t, tc.expiresIn)
		clock := &fakeClock{now: time.Now()}
		e := engine(t, ts.URL, client.WithClientCredentials("cli_1", "secret"), client.WithClock(clock.Now))
		var wg sync.WaitGroup
		var failed atomic.Int32
		for range 50 {
			wg.Go(func() {
				if _, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_1"), nil); err != nil {
					failed.Add(1)
				}
			})
		}
		wg.Wait()
		if failed.Load() != 0 || ts.tokens.Load() != 1 {
			t.Fatalf("%s: %d failed, %d token requests for 50 concurrent calls", tc.name, failed.Load(), ts.tokens.Load())
		}
		clock.Advance(tc.stillGood)
		if _, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_1"), nil); err != nil || ts.tokens.Load() != 1 {
			t.Errorf("%s: after %v: %d token requests, %v", tc.name, tc.stillGood, ts.tokens.Load(), err)
		}
		clock.Advance(tc.renewed - tc.stillGood)
		if _, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_1"), nil); err != nil || ts.tokens.Load() != 2 {
			t.Errorf("%s: after %v: %d token requests, %v", tc.name, tc.renewed, ts.tokens.Load(), err)
		}
	}
}

// TestShortLivedTokensAreNotRenewedPerCall: a server whose tokens expire at once (401
// token_expired) gets one token request per 30 s, not one per call; the calls in between fail
// with the 401. A token given a normal lifetime is renewed at the server's word at once.
func TestShortLivedTokensAreNotRenewedPerCall(t *testing.T) {
	t.Parallel()
	one, hour := 1, 3600
	ts := newTokenServer(t, &one)
	clock := &fakeClock{now: time.Now()}
	e := engine(t, ts.URL, client.WithClientCredentials("cli_1", "secret"), client.WithClock(clock.Now))
	get := func() error {
		_, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_1"), nil)
		return err
	}
	if err := get(); err != nil {
		t.Fatal(err)
	}
	ts.expired.Store(true)
	for range 10 {
		if err := get(); !errors.Is(err, client.ErrTokenExpired) {
			t.Fatalf("err %v", err)
		}
	}
	if n := ts.tokens.Load(); n != 1 {
		t.Fatalf("%d token requests within 30 s", n)
	}
	clock.Advance(31 * time.Second)
	ts.expired.Store(false)
	if err := get(); err != nil || ts.tokens.Load() != 2 {
		t.Fatalf("after 30 s: %v, %d token requests", err, ts.tokens.Load())
	}

	ts2 := newTokenServer(t, &hour)
	e2 := engine(t, ts2.URL, client.WithClientCredentials("cli_1", "secret"))
	if _, _, err := client.Call[obj](context.Background(), e2, http.MethodGet, client.Path("patients", "pat_1"), nil); err != nil {
		t.Fatal(err)
	}
	ts2.expired.Store(true) // the server's clock ran ahead of the client's
	_, _, err := client.Call[obj](context.Background(), e2, http.MethodGet, client.Path("patients", "pat_1"), nil)
	if !errors.Is(err, client.ErrTokenExpired) || ts2.tokens.Load() != 2 {
		t.Fatalf("an hour's token the server says expired: %v, %d token requests (want a renewal and a resend)", err, ts2.tokens.Load())
	}
}
