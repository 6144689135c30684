package webhooks_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medspa/medspa-go/webhooks"
)

// receiver runs NewHandler behind a real loopback listener and records the
// events fn saw.
type receiver struct {
	srv    *httptest.Server
	secret string
	calls  atomic.Int64
	mu     sync.Mutex
	seen   []string // event ids, in call order
	fail   atomic.Bool
	logs   bytes.Buffer // guarded by mu via lockedWriter
}

// logText returns what the handler logged so far.
func (r *receiver) logText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.logs.String()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func newReceiver(t *testing.T, opts ...webhooks.HandlerOption) *receiver {
	t.Helper()
	r := &receiver{secret: webhooks.NewSecret()}
	logger := slog.New(slog.NewJSONHandler(lockedWriter{&r.mu, &r.logs}, nil))
	opts = append([]webhooks.HandlerOption{webhooks.WithLogger(logger)}, opts...)
	h := webhooks.NewHandler(r.secret, func(ctx context.Context, e *webhooks.Event) error {
		r.calls.Add(1)
		r.mu.Lock()
		r.seen = append(r.seen, e.ID)
		r.mu.Unlock()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if r.fail.Load() {
			return errors.New("database down: patient Jane Doe")
		}
		return nil
	}, opts...)
	r.srv = httptest.NewServer(h)
	t.Cleanup(r.srv.Close)
	return r
}

// deliver POSTs body with the given headers and returns status and reply.
func (r *receiver) deliver(t *testing.T, method string, h http.Header, body []byte) (int, http.Header, string) {
	t.Helper()
	status, rh, reply, err := r.send(method, h, body)
	if err != nil {
		t.Fatal(err)
	}
	return status, rh, reply
}

// send is deliver without testing.T, for use from goroutines.
func (r *receiver) send(method string, h http.Header, body []byte) (int, http.Header, string, error) {
	req, err := http.NewRequest(method, r.srv.URL, bytes.NewReader(body))
	if err != nil {
		return 0, nil, "", err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := r.srv.Client().Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b), err
}

func (r *receiver) signed(t *testing.T, e webhooks.Event, ts time.Time) (http.Header, []byte) {
	t.Helper()
	body := mustMarshal(t, e)
	h, err := webhooks.SignHeaders(r.secret, e.ID, ts, body)
	if err != nil {
		t.Fatal(err)
	}
	return h, body
}

func TestHandlerSuccess(t *testing.T) {
	t.Parallel()
	r := newReceiver(t)
	h, body := r.signed(t, sampleEvents()[2], time.Now())
	status, _, reply := r.deliver(t, http.MethodPost, h, body)
	if status != http.StatusNoContent || reply != "" {
		t.Fatalf("status %d %q, want 204", status, reply)
	}
	if n := r.calls.Load(); n != 1 {
		t.Fatalf("fn called %d times, want 1", n)
	}
	if logs := r.logText(); !strings.Contains(logs, `"event_type":"appointment.created"`) {
		t.Errorf("log lacks metadata: %s", logs)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[0] != "evt_0c" {
		t.Errorf("fn saw %v", r.seen)
	}
}

func TestHandlerRejections(t *testing.T) {
	t.Parallel()
	now := time.Now()
	tests := []struct {
		name       string
		opts       []webhooks.HandlerOption
		prepare    func(r *receiver) (string, http.Header, []byte)
		wantStatus int
		wantReply  string
	}{
		{"bad signature", nil, func(r *receiver) (string, http.Header, []byte) {
			h, b := r.signed(t, sampleEvents()[0], now)
			h.Set("webhook-signature", "v1,AAAA")
			return http.MethodPost, h, b
		}, http.StatusBadRequest, webhooks.ErrSignatureMismatch.Error()},
		{"tampered body", nil, func(r *receiver) (string, http.Header, []byte) {
			h, b := r.signed(t, sampleEvents()[0], now)
			return http.MethodPost, h, bytes.Replace(b, []byte("pat_01"), []byte("pat_02"), 1)
		}, http.StatusBadRequest, webhooks.ErrSignatureMismatch.Error()},
		{"missing headers", nil, func(r *receiver) (string, http.Header, []byte) {
			_, b := r.signed(t, sampleEvents()[0], now)
			return http.MethodPost, http.Header{}, b
		}, http.StatusBadRequest, webhooks.ErrMissingHeaders.Error()},
		{"too old", nil, func(r *receiver) (string, http.Header, []byte) {
			h, b := r.signed(t, sampleEvents()[0], now.Add(-10*time.Minute))
			return http.MethodPost, h, b
		}, http.StatusBadRequest, webhooks.ErrTimestampTooOld.Error()},
		{"too new", nil, func(r *receiver) (string, http.Header, []byte) {
			h, b := r.signed(t, sampleEvents()[0], now.Add(10*time.Minute))
			return http.MethodPost, h, b
		}, http.StatusBadRequest, webhooks.ErrTimestampTooNew.Error()},
		{"signed but not an event", nil, func(r *receiver) (string, http.Header, []byte) {
			b := []byte(`{"patient":"Jane Doe"}`)
			h, _ := webhooks.SignHeaders(r.secret, "evt_1", now, b)
			return http.MethodPost, h, b
		}, http.StatusBadRequest, webhooks.ErrInvalidPayload.Error()},
		{"GET", nil, func(r *receiver) (string, http.Header, []byte) {
			return http.MethodGet, http.Header{}, nil
		}, http.StatusMethodNotAllowed, "method not allowed"},
		{"PUT signed", nil, func(r *receiver) (string, http.Header, []byte) {
			h, b := r.signed(t, sampleEvents()[0], now)
			return http.MethodPut, h, b
		}, http.StatusMethodNotAllowed, "method not allowed"},
		{"over default max", nil, func(r *receiver) (string, http.Header, []byte) {
			b := bytes.Repeat([]byte(" "), int(webhooks.DefaultMaxBodyBytes)+1)
			h, _ := webhooks.SignHeaders(r.secret, "evt_1", now, b)
			return http.MethodPost, h, b
		}, http.StatusRequestEntityTooLarge, "Request Entity Too Large"},
		{"over custom max", []webhooks.HandlerOption{webhooks.WithMaxBodyBytes(64)}, func(r *receiver) (string, http.Header, []byte) {
			h, b := r.signed(t, sampleEvents()[2], now) // ~300 bytes
			return http.MethodPost, h, b
		}, http.StatusRequestEntityTooLarge, "Request Entity Too Large"},
		{"moved clock without WithNow", nil, func(r *receiver) (string, http.Header, []byte) {
			h, b := r.signed(t, sampleEvents()[0], now.Add(48*time.Hour))
			return http.MethodPost, h, b
		}, http.StatusBadRequest, webhooks.ErrTimestampTooNew.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReceiver(t, tt.opts...)
			method, h, body := tt.prepare(r)
			status, rh, reply := r.deliver(t, method, h, body)
			if status != tt.wantStatus || strings.TrimSpace(reply) != tt.wantReply {
				t.Fatalf("got %d %q, want %d %q", status, reply, tt.wantStatus, tt.wantReply)
			}
			if status == http.StatusMethodNotAllowed && rh.Get("Allow") != http.MethodPost {
				t.Errorf("Allow = %q", rh.Get("Allow"))
			}
			if n := r.calls.Load(); n != 0 {
				t.Errorf("fn called %d times for a rejected delivery", n)
			}
			if logs := r.logText(); strings.Contains(reply, "Jane") || strings.Contains(logs, "Jane") {
				t.Errorf("payload leaked: reply %q logs %s", reply, logs)
			}
		})
	}
}

func TestHandlerMovedClock(t *testing.T) {
	t.Parallel()
	mockNow := time.Now().Add(48 * time.Hour) // as if the mock's admin clock moved
	r := newReceiver(t, webhooks.WithNow(func() time.Time { return mockNow }), webhooks.WithTolerance(time.Minute))
	h, body := r.signed(t, sampleEvents()[0], mockNow)
	if status, _, reply := r.deliver(t, http.MethodPost, h, body); status != http.StatusNoContent {
		t.Fatalf("status %d %q", status, reply)
	}
}

func TestHandlerFnError(t *testing.T) {
	t.Parallel()
	r := newReceiver(t)
	r.fail.Store(true)
	h, body := r.signed(t, sampleEvents()[7], time.Now())
	status, _, reply := r.deliver(t, http.MethodPost, h, body)
	if status != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500 so the sender retries", status)
	}
	if r.calls.Load() != 1 {
		t.Fatalf("fn called %d times, want 1", r.calls.Load())
	}
	// Neither the reply nor the log may repeat fn's error, which can name a
	// patient.
	if logs := r.logText(); strings.Contains(reply, "Jane") || strings.Contains(logs, "Jane") {
		t.Errorf("fn error leaked: reply %q logs %s", reply, logs)
	}
	// The sender retries the same delivery: it succeeds now and fn sees the
	// same id again (at-least-once; dedupe is the receiver's job).
	r.fail.Store(false)
	if status, _, _ := r.deliver(t, http.MethodPost, h, body); status != http.StatusNoContent {
		t.Fatalf("retry status %d", status)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.seen) != 2 || r.seen[0] != r.seen[1] {
		t.Errorf("seen %v", r.seen)
	}
}

func TestHandlerInvalidSecret(t *testing.T) {
	t.Parallel()
	short := "whsec_" + base64.StdEncoding.EncodeToString([]byte("sixteen byte key"))
	good := webhooks.NewSecret()
	for _, tc := range []struct {
		secret string
		opts   []webhooks.HandlerOption
	}{
		{"whsec_not base64!", nil}, {short, nil},
		{good, []webhooks.HandlerOption{webhooks.WithSecrets(webhooks.NewSecret(), "whsec_not base64!")}}, // one bad extra secret is enough
		{good, []webhooks.HandlerOption{webhooks.WithSecrets(short)}},
	} {
		secret := tc.secret
		var called atomic.Bool
		srv := httptest.NewServer(webhooks.NewHandler(secret, func(context.Context, *webhooks.Event) error {
			called.Store(true)
			return nil
		}, tc.opts...))
		defer srv.Close()
		// Signed with the very (first) secret the handler holds: only a secret's form is wrong.
		body := []byte(`{}`)
		h, _ := webhooks.SignHeaders(secret, "evt_1", time.Now(), body)
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
		req.Header = h
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusInternalServerError || called.Load() {
			t.Fatalf("secret %q, %d options: status %d, called %v", secret, len(tc.opts), resp.StatusCode, called.Load())
		}
	}
}

// TestHandlerConcurrent delivers every event kind many times in parallel; run
// with -race. fn must be called exactly once per delivery.
func TestHandlerConcurrent(t *testing.T) {
	t.Parallel()
	r := newReceiver(t)
	events := sampleEvents()
	const rounds = 8
	// Signed up front: the helpers may call t.Fatal, which must not run on
	// the worker goroutines.
	type delivery struct {
		h    http.Header
		body []byte
	}
	signed := make([]delivery, len(events))
	for i, e := range events {
		signed[i].h, signed[i].body = r.signed(t, e, time.Now())
	}
	var wg sync.WaitGroup
	for range rounds {
		for i, e := range events {
			wg.Go(func() {
				status, _, reply, err := r.send(http.MethodPost, signed[i].h, signed[i].body)
				if err != nil || status != http.StatusNoContent {
					t.Errorf("%s: %d %q %v", e.Type, status, reply, err)
				}
			})
		}
	}
	wg.Wait()
	if got, want := r.calls.Load(), int64(rounds*len(events)); got != want {
		t.Fatalf("fn called %d times, want %d", got, want)
	}
	counts := map[string]int{}
	r.mu.Lock()
	for _, id := range r.seen {
		counts[id]++
	}
	r.mu.Unlock()
	for _, e := range events {
		if counts[e.ID] != rounds {
			t.Errorf("%s seen %d times, want %d", e.ID, counts[e.ID], rounds)
		}
	}
}

// TestHandlerLogsMetadataOnly checks every log record's keys: nothing but
// metadata, and never the body.
func TestHandlerLogsMetadataOnly(t *testing.T) {
	t.Parallel()
	r := newReceiver(t)
	h, body := r.signed(t, sampleEvents()[8], time.Now())
	r.deliver(t, http.MethodPost, h, body)
	h.Set("webhook-signature", "v1,AAAA")
	r.deliver(t, http.MethodPost, h, body)
	allowed := map[string]bool{"time": true, "level": true, "msg": true, "method": true, "webhook_id": true,
		"event_id": true, "event_type": true, "status": true, "outcome": true}
	lines := strings.Split(strings.TrimSpace(r.logText()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 log records, got %q", lines)
	}
	for _, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		for k := range rec {
			if !allowed[k] {
				t.Errorf("unexpected log key %q in %s", k, line)
			}
		}
		if strings.Contains(line, "insufficient_funds") || strings.Contains(line, "inv_01") {
			t.Errorf("log carries payload data: %s", line)
		}
	}
}

func TestNewHandlerNilFnPanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	webhooks.NewHandler(webhooks.NewSecret(), nil)
}

// TestHandlerWithSecrets: a handler holding the new and the previous secret accepts deliveries
// signed with either or both and refuses a stranger's (a malformed extra secret:
// TestHandlerInvalidSecret).
func TestHandlerWithSecrets(t *testing.T) {
	t.Parallel()
	oldSecret := webhooks.NewSecret()
	r := newReceiver(t, webhooks.WithSecrets(oldSecret))
	e := sampleEvents()[0]
	body := mustMarshal(t, e)
	now := time.Now()
	sig := func(secret string) string {
		s, err := webhooks.Sign(secret, e.ID, now, body)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name, sigs string
		status     int
	}{
		{"previous secret only", sig(oldSecret), http.StatusNoContent},
		{"both, new first", sig(r.secret) + " " + sig(oldSecret), http.StatusNoContent},
		{"new secret only", sig(r.secret), http.StatusNoContent},
		{"a stranger's", sig(webhooks.NewSecret()), http.StatusBadRequest},
	} {
		h, _ := r.signed(t, e, now)
		h.Set(webhooks.HeaderSignature, tc.sigs)
		if status, _, reply := r.deliver(t, http.MethodPost, h, body); status != tc.status {
			t.Errorf("%s: %d %q, want %d", tc.name, status, reply, tc.status)
		}
	}
	if r.calls.Load() != 3 {
		t.Errorf("fn called %d times, want 3", r.calls.Load())
	}
}
