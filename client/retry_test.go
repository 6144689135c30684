package client_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/medspa/medspa-go/client"
)

// faulty is a loopback server that answers the scripted statuses in order (then 200), and
// records what each attempt carried.
type faulty struct {
	mu       sync.Mutex
	script   []int
	retryAft string
	attempts []*http.Request
	srv      *httptest.Server
}

func newFaulty(t *testing.T, retryAfter string, script ...int) *faulty {
	f := &faulty{script: script, retryAft: retryAfter}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.attempts = append(f.attempts, r.Clone(context.Background()))
		n := len(f.attempts)
		f.mu.Unlock()
		w.Header().Set("X-Request-Id", "req_test")
		if n <= len(f.script) {
			status := f.script[n-1]
			if status == -1 { // drop the connection without an answer
				conn, _, _ := w.(http.Hijacker).Hijack()
				conn.Close()
				return
			}
			if f.retryAft != "" {
				w.Header().Set("Retry-After", f.retryAft)
			}
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"type":"https://docs.medspa.dev/errors/x","title":"T","status":` + strconv.Itoa(status) + `,"code":"` + codeFor(status) + `","detail":"d","requestId":"req_test"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"pat_1"}`))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func codeFor(status int) string {
	switch status {
	case 429:
		return "rate_limited"
	case 503:
		return "service_unavailable"
	case 404:
		return "not_found"
	case 409:
		return "appointment_conflict"
	case 422:
		return "validation_error"
	}
	return "internal_error"
}

func (f *faulty) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.attempts)
}

func (f *faulty) client(t *testing.T, opts ...client.Option) *client.Engine {
	t.Helper()
	c, err := client.NewEngine(append([]client.Option{client.WithBaseURL(f.srv.URL), client.WithAPIKey("msk_test_x"), client.WithRetryWait(time.Millisecond, 5*time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type obj struct {
	ID string `json:"id"`
}

func TestRetriesServiceUnavailableHonouringRetryAfter(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "1", 503)
	start := time.Now()
	var resp *client.Response
	got, resp, err := client.Call[obj](context.Background(), f.client(t), http.MethodGet, client.Path("patients", "pat_1"), nil)
	if err != nil || got.ID != "pat_1" {
		t.Fatalf("%v %v", got, err)
	}
	if f.count() != 2 || resp.Attempts != 2 {
		t.Errorf("attempts %d (response says %d), want 2", f.count(), resp.Attempts)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("waited %v, Retry-After said 1s", d)
	}
}

func TestPostRetriedWithTheSameIdempotencyKey(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "", 503, 502, -1)
	_, _, err := client.Call[obj](context.Background(), f.client(t, client.WithMaxRetries(3)), http.MethodPost, client.Path("patients"), map[string]string{"a": "b"})
	if err != nil {
		t.Fatal(err)
	}
	if f.count() != 4 {
		t.Fatalf("attempts %d, want 4", f.count())
	}
	key := f.attempts[0].Header.Get("Idempotency-Key")
	if _, err := uuid.Parse(key); err != nil {
		t.Errorf("key %q is not a UUID", key)
	}
	for i, a := range f.attempts {
		if a.Header.Get("Idempotency-Key") != key {
			t.Errorf("attempt %d carried %q, want %q", i+1, a.Header.Get("Idempotency-Key"), key)
		}
	}
	// A new logical call gets a new key.
	f2 := newFaulty(t, "")
	c := f2.client(t)
	for range 2 {
		_, _, _ = client.Call[obj](context.Background(), c, http.MethodPost, client.Path("patients"), map[string]string{})
	}
	if f2.attempts[0].Header.Get("Idempotency-Key") == f2.attempts[1].Header.Get("Idempotency-Key") {
		t.Error("two calls shared an idempotency key")
	}
}

func TestPostWithoutIdempotencyKeyIsNotRetried(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "", 503, -1)
	_, _, err := client.Call[obj](context.Background(), f.client(t), http.MethodPost, client.Path("patients"), map[string]string{}, client.WithIdempotencyKey(""))
	if !errors.Is(err, client.ErrServiceUnavailable) || f.count() != 1 {
		t.Errorf("err %v after %d attempts; want 503 after 1", err, f.count())
	}
	if f.attempts[0].Header.Get("Idempotency-Key") != "" {
		t.Error("a key was sent")
	}
	f2 := newFaulty(t, "", -1)
	_, _, err = client.Call[obj](context.Background(), f2.client(t), http.MethodPost, client.Path("patients"), map[string]string{}, client.WithIdempotencyKey(""))
	var ue *url.Error
	if !errors.As(err, &ue) || f2.count() != 1 {
		t.Errorf("dropped connection: %v after %d attempts; want a *url.Error after 1", err, f2.count())
	}
}

func TestRateLimitedIsRetriedForEveryMethod(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "0", 429, 429)
	_, _, err := client.Call[obj](context.Background(), f.client(t), http.MethodPost, client.Path("patients"), map[string]string{}, client.WithIdempotencyKey(""))
	if err != nil || f.count() != 3 {
		t.Errorf("err %v after %d attempts, want success after 3", err, f.count())
	}
}

func TestClientErrorsAreNeverRetried(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 401, 403, 404, 409, 422, 500} {
		f := newFaulty(t, "", status, status, status)
		_, _, err := client.Call[obj](context.Background(), f.client(t), http.MethodGet, client.Path("patients", "pat_1"), nil)
		var apiErr *client.Error
		if !errors.As(err, &apiErr) || apiErr.Status != status || f.count() != 1 {
			t.Errorf("%d: err %v after %d attempts", status, err, f.count())
		}
	}
}

func TestRetriesStopAtTheLimit(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "", 503, 503, 503, 503, 503)
	_, _, err := client.Call[obj](context.Background(), f.client(t, client.WithMaxRetries(2)), http.MethodGet, client.Path("patients", "pat_1"), nil)
	if !errors.Is(err, client.ErrServiceUnavailable) || f.count() != 3 {
		t.Errorf("err %v after %d attempts, want 503 after 3", err, f.count())
	}
	f0 := newFaulty(t, "", 503)
	_, _, _ = client.Call[obj](context.Background(), f0.client(t, client.WithMaxRetries(0)), http.MethodGet, client.Path("x"), nil)
	if f0.count() != 1 {
		t.Errorf("WithMaxRetries(0): %d attempts", f0.count())
	}
}

func TestRetryAfterBeyondTheCapEndsRetries(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "3600", 429)
	_, _, err := client.Call[obj](context.Background(), f.client(t), http.MethodGet, client.Path("x"), nil)
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || !errors.Is(err, client.ErrRateLimited) || apiErr.RetryAfter != time.Hour || f.count() != 1 {
		t.Errorf("err %v (retryAfter %v) after %d attempts", err, apiErr.RetryAfter, f.count())
	}
}

func TestCancellationStopsAWaitAtOnce(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "30", 503)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, _, err := client.Call[obj](ctx, f.client(t), http.MethodGet, client.Path("x"), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("returned after %v; the 30 s wait was not interrupted", d)
	}
	if f.count() != 1 {
		t.Errorf("attempts %d", f.count())
	}
}

func TestConnectionErrorsAreRetriedForSafeMethods(t *testing.T) {
	t.Parallel()
	f := newFaulty(t, "", -1, -1)
	got, _, err := client.Call[obj](context.Background(), f.client(t), http.MethodGet, client.Path("x"), nil)
	if err != nil || got.ID != "pat_1" || f.count() != 3 {
		t.Errorf("%v %v after %d attempts", got, err, f.count())
	}
	// Nothing listening: the error is a *url.Error wrapping a *net.OpError.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	c, _ := client.NewEngine(client.WithBaseURL("http://"+addr), client.WithAPIKey("msk_test_x"), client.WithMaxRetries(1), client.WithRetryWait(time.Millisecond, time.Millisecond))
	_, _, err = client.Call[obj](context.Background(), c, http.MethodGet, client.Path("x"), nil)
	var ue *url.Error
	var oe *net.OpError
	if !errors.As(err, &ue) || !errors.As(err, &oe) {
		t.Errorf("refused connection: %v", err)
	}
}
