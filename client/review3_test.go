package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/medspa/medspa-go/client"
)

// TestDebugLogHoldsTheRoutePattern (issue 32, item 9): the Debug record of each attempt, over
// real HTTP, names the route's pattern (/api/v1/patients/{id}), never the id in the path.
func TestDebugLogHoldsTheRoutePattern(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_1")
		_, _ = w.Write([]byte(`{"id":"pat_0193secretid"}`))
	}))
	defer srv.Close()
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	e := engine(t, srv.URL, client.WithLogger(logger))
	if _, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_0193secretid"), nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "0193secretid") {
		t.Errorf("the log holds the id of the path:\n%s", buf.String())
	}
	var rec struct{ Msg, Route string }
	if err := json.Unmarshal(bytes.SplitN(buf.Bytes(), []byte("\n"), 2)[0], &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Msg != "medspa request" || rec.Route != "/api/v1/patients/{id}" {
		t.Errorf("record %q, route %q: want medspa request, /api/v1/patients/{id}", rec.Msg, rec.Route)
	}
}

// TestStalledBodyEndsTheCall (issue 32): a server that sends its headers and then stalls the
// body does not hang a call made with context.Background() on the default transport:
// Timeouts.Body ends it with an error that matches os.ErrDeadlineExceeded, on a 2xx answer
// and on an error answer alike; a body that arrives in time is read whole.
func TestStalledBodyEndsTheCall(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "100")
		if r.URL.Path == "/api/v1/patients/pat_slow" {
			w.WriteHeader(http.StatusNotFound)
		}
		if r.URL.Path == "/api/v1/patients/pat_fine" {
			w.Header().Del("Content-Length")
			_, _ = w.Write([]byte(`{"id":"pat_fine"}`))
			return
		}
		_, _ = w.Write([]byte(`{"id":`))
		w.(http.Flusher).Flush()
		select { // stall until the test ends
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release) // first: a stalled handler must end before Close waits for it
	e := engine(t, srv.URL, client.WithTimeouts(client.Timeouts{Body: 300 * time.Millisecond}), client.WithMaxRetries(0))
	for _, id := range []string{"pat_stall", "pat_slow"} {
		start := time.Now()
		done := make(chan error, 1)
		go func() {
			_, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", id), nil)
			done <- err
		}()
		select {
		case err := <-done:
			if id == "pat_stall" && !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("%s: %v, want os.ErrDeadlineExceeded", id, err)
			}
			if id == "pat_slow" && err == nil {
				t.Errorf("%s: no error", id)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("%s: ended after %v", id, took)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: the call still hangs after 30 s", id)
		}
	}
	got, _, err := client.Call[obj](context.Background(), e, http.MethodGet, client.Path("patients", "pat_fine"), nil)
	if err != nil || got == nil || got.ID != "pat_fine" {
		t.Errorf("a body in time: %v %v", got, err)
	}
}
