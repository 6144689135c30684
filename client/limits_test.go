package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/httpsig"
)

// endless is a response body that never ends, counting what was read of it.
type endless struct{ read atomic.Int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.read.Add(int64(len(p)))
	return len(p), nil
}

func (e *endless) Close() error { return nil }

// bodyTransport answers every request with status and a body from body(), with no
// Content-Length unless length >= 0.
type bodyTransport struct {
	status int
	length int64
	body   func() io.ReadCloser
}

func (b bodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ct := "application/json"
	if b.status >= 400 {
		ct = "application/problem+json"
	}
	return &http.Response{StatusCode: b.status, Header: http.Header{"Content-Type": {ct}}, Body: b.body(), ContentLength: b.length, Request: req}, nil
}

// TestResponseSizeLimit: a JSON answer larger than the limit is ErrResponseTooLarge, and the
// client reads at most limit+1 bytes of it, whatever the server sends: an endless body, a huge
// one announced by Content-Length (not read at all), a huge error body (64 KiB of it read).
func TestResponseSizeLimit(t *testing.T) {
	t.Parallel()
	const limit = 1 << 20
	for _, tc := range []struct {
		name     string
		status   int
		length   int64
		wantRead int64 // at most
		wantErr  error
	}{
		{"endless body", 200, -1, limit + 1, client.ErrResponseTooLarge},
		{"Content-Length over the limit", 200, 1 << 40, 0, client.ErrResponseTooLarge},
		{"endless error body", 500, -1, 64 << 10, client.ErrAPI},
	} {
		body := &endless{}
		e := engine(t, "https://api.example.test", client.WithMaxResponseBytes(limit), client.WithMaxRetries(0),
			client.WithHTTPClient(&http.Client{Transport: bodyTransport{tc.status, tc.length, func() io.ReadCloser { return body }}}))
		_, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_1"), nil)
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.wantErr)
		}
		if n := body.read.Load(); n > tc.wantRead {
			t.Errorf("%s: read %d bytes, at most %d allowed", tc.name, n, tc.wantRead)
		}
	}
	// Within the limit, exactly at it, the answer is read.
	exact := `{"id":"` + strings.Repeat("a", 100) + `"}`
	e := engine(t, "https://api.example.test", client.WithMaxResponseBytes(int64(len(exact))),
		client.WithHTTPClient(&http.Client{Transport: bodyTransport{200, -1, func() io.ReadCloser { return io.NopCloser(strings.NewReader(exact)) }}}))
	if got, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "x"), nil); err != nil || len(got.ID) != 100 {
		t.Errorf("an answer of exactly the limit: %v", err)
	}
	if client.DefaultMaxResponseBytes != 32<<20 {
		t.Errorf("default limit %d", client.DefaultMaxResponseBytes)
	}
}

// TestResponseSizeLimitOverTheNetwork: an endless answer over a real connection ends the call
// with ErrResponseTooLarge (it does not hang, nor fill memory), signed or not.
func TestResponseSizeLimitOverTheNetwork(t *testing.T) {
	t.Parallel()
	srv := newRecorder(t, false, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := bytes.Repeat([]byte("x"), 32<<10)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	_, secret := signingKey(t)
	for _, opts := range [][]client.Option{nil, {client.WithSigning("key_1", secret)}} {
		e := engine(t, srv.URL, append(opts, client.WithMaxResponseBytes(256<<10))...)
		if _, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_1"), nil); !errors.Is(err, client.ErrResponseTooLarge) {
			t.Errorf("err %v", err)
		}
	}
}

// TestResponseSizeLimitMemory: reading an endless body allocates in proportion to the limit,
// not to the body. Not parallel: it reads the process's allocation counter.
func TestResponseSizeLimitMemory(t *testing.T) {
	const limit = 8 << 20
	body := &endless{}
	e := engine(t, "https://api.example.test", client.WithMaxResponseBytes(limit),
		client.WithHTTPClient(&http.Client{Transport: bodyTransport{200, -1, func() io.ReadCloser { return body }}}))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_1"), nil)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, client.ErrResponseTooLarge) {
		t.Fatal(err)
	}
	// The buffer doubles up to limit+1 bytes: about 2×limit allocated in all.
	if got := after.TotalAlloc - before.TotalAlloc; got > 5*limit/2 {
		t.Errorf("allocated %d bytes reading past a limit of %d", got, limit)
	}
}

// TestServerThatNeverAnswers: a server that accepts the connection and never answers ends the
// call with a timeout error (a net.Error whose Timeout is true, under a *url.Error), once the
// response-header timeout passes, on every attempt.
func TestServerThatNeverAnswers(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var accepted atomic.Int32
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			conns = append(conns, c) // read nothing, answer nothing
		}
	}()
	e := engine(t, "http://"+ln.Addr().String(), client.WithTimeouts(client.Timeouts{ResponseHeader: 50 * time.Millisecond}),
		client.WithMaxRetries(1))
	_, _, err = client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_1"), url.Values{"email": {"ada@example.com"}})
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.As(err, new(*url.Error)) {
		t.Fatalf("err %v, want a timeout", err)
	}
	if n := accepted.Load(); n != 2 {
		t.Errorf("%d connections, want 2 (one retry)", n)
	}
	if strings.Contains(err.Error(), "ada") {
		t.Errorf("the timeout error holds the query: %v", err)
	}
}

// TestTimeoutsOption: WithTimeouts configures the client only — it is an Option and not a
// RequestOption, so no call can be given one (the root package's TestClientOnlyOptionsDoNotCompilePerCall
// holds that a call given one does not compile).
func TestTimeoutsOption(t *testing.T) {
	t.Parallel()
	if _, ok := client.WithTimeouts(client.Timeouts{Dial: time.Second}).(client.RequestOption); ok {
		t.Error("WithTimeouts is a RequestOption")
	}
	if d := client.DefaultTimeouts; d.Dial <= 0 || d.TLSHandshake <= 0 || d.ResponseHeader <= 0 || d.Idle <= 0 {
		t.Errorf("defaults %+v", d)
	}
}

// signedAnswer is a server that signs its answers as the protocol says, created at now+skew.
func signedAnswer(t *testing.T, skew time.Duration) *recorder {
	key, _ := signingKey(t)
	return newRecorder(t, false, func(w http.ResponseWriter, r *http.Request) {
		body := []byte(`{"id":"pat_1"}`)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_1")
		httpsig.SignResponse(w.Header(), 200, body, r.Method, "http://"+r.Host+r.URL.RequestURI(), "key_1", key, time.Now().Add(skew))
		_, _ = w.Write(body)
	})
}

// TestResponseSignatureAge: a signed answer made more than 300 s from the client's clock, in
// either direction, is refused (a captured answer cannot be replayed later); within 300 s it is
// accepted. The client's clock decides, not the machine's.
func TestResponseSignatureAge(t *testing.T) {
	t.Parallel()
	_, secret := signingKey(t)
	for _, tc := range []struct {
		skew time.Duration
		ok   bool
	}{{0, true}, {-290 * time.Second, true}, {290 * time.Second, true}, {-310 * time.Second, false}, {310 * time.Second, false}, {-3 * time.Hour, false}} {
		srv := signedAnswer(t, tc.skew)
		e := engine(t, srv.URL, client.WithSigning("key_1", secret))
		got, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_1"), nil)
		if tc.ok != (err == nil) || (!tc.ok && (!errors.Is(err, client.ErrResponseSignature) || got != nil)) {
			t.Errorf("signed %v from now: %v, %v", tc.skew, got, err)
		}
	}
	// An answer signed two hours ago passes for a client whose clock says it is two hours ago.
	srv := signedAnswer(t, -2*time.Hour)
	e := engine(t, srv.URL, client.WithSigning("key_1", secret), client.WithClock(func() time.Time { return time.Now().Add(-2 * time.Hour) }))
	if _, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_1"), nil); err != nil {
		t.Errorf("client clock: %v", err)
	}
}
