package client_test

// Misconfiguration and waits a new user meets, each told in one line that names the fix: no
// credential, a base URL holding /api/v1, a Retry-After over the cap, a spent daily quota, a
// network failure after retries. Every case runs against a scripted server on loopback.

import (
	"context"
	"errors"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
)

// TestNewWithoutCredentials: with no key, no MEDSPA_API_KEY and no OAuth option, New fails
// with one line naming MEDSPA_API_KEY and WithAPIKey (and the OAuth options), and nothing is
// sent; any one credential makes it succeed.
func TestNewWithoutCredentials(t *testing.T) {
	t.Setenv("MEDSPA_API_KEY", "") // t.Setenv: not parallel
	srv := newRecorder(t, false, answerJSON)
	_, err := medspa.New(medspa.WithBaseURL(srv.URL))
	if err == nil {
		t.Fatal("New without credentials succeeded")
	}
	msg := err.Error()
	for _, want := range []string{"MEDSPA_API_KEY", "WithAPIKey", "WithClientCredentials"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not name %s", msg, want)
		}
	}
	if strings.ContainsAny(msg, "\n\r") {
		t.Errorf("error is not one line: %q", msg)
	}
	if seen, _ := srv.requests(); len(seen) != 0 {
		t.Errorf("%d requests sent", len(seen))
	}

	for name, opt := range map[string]medspa.Option{
		"api key":            medspa.WithAPIKey("msk_test_x"),
		"client credentials": medspa.WithClientCredentials("cli_1", "secret"),
	} {
		if _, err := medspa.New(medspa.WithBaseURL(srv.URL), opt); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	t.Setenv("MEDSPA_API_KEY", "msk_test_fromenv")
	if _, err := medspa.New(medspa.WithBaseURL(srv.URL)); err != nil {
		t.Errorf("MEDSPA_API_KEY: %v", err)
	}
}

// TestBaseURLWithAPIPath: a base URL holding /api/v1 (the SDK adds it to every path) fails at
// New with a message giving the host to use instead; other prefixes, which a gateway may mount
// the API under, are sent to as given.
func TestBaseURLWithAPIPath(t *testing.T) {
	t.Parallel()
	srv := newRecorder(t, false, answerJSON)
	for _, suffix := range []string{"/api/v1", "/api/v1/", "/api/v1/patients", "/gateway/api/v1"} {
		_, err := medspa.New(medspa.WithAPIKey("msk_test_x"), medspa.WithBaseURL(srv.URL+suffix))
		host := srv.URL + suffix[:strings.Index(suffix, "/api/v1")]
		if err == nil || !strings.Contains(err.Error(), "give the host only, "+host+" ") {
			t.Errorf("base %s: %v, want the host %s named", suffix, err, host)
		}
	}
	_, err := medspa.New(medspa.WithAPIKey("msk_test_x"), medspa.WithBaseURL(srv.URL+"/api/v1/"))
	want := "medspa: base URL " + srv.URL + "/api/v1 (WithBaseURL or MEDSPA_BASE_URL) includes the API path /api/v1: " +
		"give the host only, " + srv.URL + " (the SDK adds /api/v1 to every call)"
	if err == nil || err.Error() != want {
		t.Errorf("message\n %v\nwant\n %s", err, want)
	}
	for _, prefix := range []string{"", "/v1", "/medspa"} {
		c, err := medspa.New(medspa.WithAPIKey("msk_test_x"), medspa.WithBaseURL(srv.URL+prefix+"/"))
		if err != nil {
			t.Fatalf("base %q: %v", prefix, err)
		}
		if _, _, err := c.Patients.Get(context.Background(), "pat_1"); err != nil {
			t.Fatalf("base %q: %v", prefix, err)
		}
		seen, _ := srv.requests()
		if got := seen[len(seen)-1].URL.Path; got != prefix+"/api/v1/patients/pat_1" {
			t.Errorf("base %q: sent to %s", prefix, got)
		}
	}
}

// problemAnswer answers every request with a problem document of status and code and the
// given Retry-After.
func problemAnswer(status int, code, retryAfter string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("Retry-After", retryAfter)
		w.Header().Set("X-Request-Id", "req_1")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"status":` + strconv.Itoa(status) + `,"code":"` + code + `","detail":"the limit is exceeded"}`))
	}
}

// TestRetryAfterOverTheCap: a 429 whose Retry-After exceeds WithMaxRetryAfter ends the call at
// once, and its message gives the wait and says it was over the configured cap.
func TestRetryAfterOverTheCap(t *testing.T) {
	t.Parallel()
	srv := newRecorder(t, false, problemAnswer(http.StatusTooManyRequests, "rate_limited", "120"))
	c, err := medspa.New(medspa.WithAPIKey("msk_test_x"), medspa.WithBaseURL(srv.URL), medspa.WithMaxRetryAfter(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Patients.Get(context.Background(), "pat_1")
	var apiErr *medspa.Error
	if !errors.As(err, &apiErr) || !errors.Is(err, medspa.ErrRateLimited) || apiErr.RetryAfter != 2*time.Minute {
		t.Fatalf("err %v", err)
	}
	want := "medspa: 429 rate_limited: the limit is exceeded; Retry-After 2m0s is over the configured cap of 30s (WithMaxRetryAfter), so the call was not retried [req_1]"
	if err.Error() != want {
		t.Errorf("message\n %s\nwant\n %s", err, want)
	}
	if seen, _ := srv.requests(); len(seen) != 1 {
		t.Errorf("%d attempts, want 1", len(seen))
	}

	// Within the cap the message adds nothing (retries off, so that the test does not wait).
	c, _ = medspa.New(medspa.WithAPIKey("msk_test_x"), medspa.WithBaseURL(srv.URL), medspa.WithMaxRetryAfter(5*time.Minute),
		medspa.WithMaxRetries(0))
	if _, _, err = c.Patients.Get(context.Background(), "pat_1"); err == nil || strings.Contains(err.Error(), "cap") {
		t.Errorf("within the cap: %v", err)
	}
}

// TestQuotaResetInTheMessage: a spent daily quota's error says when it resets (the client's
// clock plus Retry-After, to the second, UTC), not only in RetryAfter.
func TestQuotaResetInTheMessage(t *testing.T) {
	t.Parallel()
	srv := newRecorder(t, false, problemAnswer(http.StatusTooManyRequests, "quota_exceeded", "3600"))
	now := time.Date(2026, 11, 27, 23, 0, 0, 0, time.UTC)
	c, err := medspa.New(medspa.WithAPIKey("msk_test_x"), medspa.WithBaseURL(srv.URL), medspa.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Patients.Get(context.Background(), "pat_1")
	if !errors.Is(err, medspa.ErrQuotaExceeded) {
		t.Fatalf("err %v", err)
	}
	want := "medspa: 429 quota_exceeded: the limit is exceeded; the daily quota resets at 2026-11-28T00:00:00Z (in 1h0m0s) [req_1]"
	if err.Error() != want {
		t.Errorf("message\n %s\nwant\n %s", err, want)
	}
}

// TestNetworkErrorsSayAttemptsAndTime: a call that got no answer says how many attempts it
// made and how long it took — when the retries are spent, and when the context ends the wait
// before a retry.
func TestNetworkErrorsSayAttemptsAndTime(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ln.Close() // nothing listens: every attempt is refused

	c, err := medspa.New(medspa.WithAPIKey("msk_test_x"), medspa.WithBaseURL(base), medspa.WithMaxRetries(2),
		medspa.WithRetryWait(10*time.Millisecond, 10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.Patients.Get(context.Background(), "pat_1")
	if err == nil || !strings.Contains(err.Error(), "GET /api/v1/patients/pat_1: ") || !strings.Contains(err.Error(), " (3 attempts in ") {
		t.Errorf("retries spent: %v", err)
	}
	var ne *net.OpError
	if !errors.As(err, &ne) {
		t.Errorf("%v does not wrap the *net.OpError", err)
	}

	// A backoff (up to a minute) the context's deadline ends: the message says what was
	// retried, and the attempts and time so far.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _, err = c.Patients.Get(ctx, "pat_1", medspa.WithRetryWait(time.Minute, time.Minute))
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || !regexp.MustCompile(`[(;] [1-3] attempts? in [0-9.]+m?s\)`).MatchString(err.Error()) {
		t.Errorf("deadline before a retry: %v", err)
	}

	// No retry at all (WithMaxRetries(0)): still said.
	_, _, err = c.Patients.Get(context.Background(), "pat_1", medspa.WithMaxRetries(0))
	if err == nil || !strings.Contains(err.Error(), " (1 attempt in ") {
		t.Errorf("no retries: %v", err)
	}
}

// TestIdempotencyKeyIsNotAClientOption: WithIdempotencyKey names one call's key; given to New,
// where every POST would share it, it fails there, naming the fix.
func TestIdempotencyKeyIsNotAClientOption(t *testing.T) {
	t.Parallel()
	_, err := medspa.New(medspa.WithAPIKey("msk_test_x"), medspa.WithIdempotencyKey("k1"))
	if err == nil || !strings.Contains(err.Error(), "WithIdempotencyKey") || !strings.Contains(err.Error(), "give it to that call") {
		t.Errorf("New with WithIdempotencyKey: %v", err)
	}
}
