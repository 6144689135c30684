package mockserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
	"github.com/medspa/medspa-go/webhooks"
)

// Close releases everything the server started — webhook workers and their connections, the
// loopback listener of NewTest and its connections — and a second Close is harmless. Not
// parallel: it counts the process's goroutines.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	var delivered atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { delivered.Add(1) }))
	before := runtime.NumGoroutine()

	s := mockserver.NewTest(t, mockserver.WithLoopbackListener())
	ctx := context.Background()
	if _, _, err := s.Client.Webhooks.Create(ctx, &webhooks.CreateParams{URL: receiver.URL + "/hook", Events: []webhooks.EventType{webhooks.EventAll}}); err != nil {
		t.Fatal(err)
	}
	rec := s.RecordEvents()
	if _, _, err := s.Client.Patients.Create(ctx, &patients.CreateParams{FirstName: "A", LastName: "B", Email: "a@example.com"}); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Wait(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); delivered.Load() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the delivery never arrived")
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	// The handler still answers a request made to it directly.
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/v1/openapi.yaml", nil))
	if w.Code != http.StatusOK {
		t.Fatalf("after Close: %d", w.Code)
	}
	receiver.Close()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	// Goroutines end a little after what they serve is closed: wait for them, within bounds.
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			t.Fatalf("%d goroutines before the server, %d after Close:\n%s", before, runtime.NumGoroutine(), firstStacks(string(buf[:n])))
		}
	}
}

// firstStacks keeps the goroutine dump readable: the first 60 lines.
func firstStacks(dump string) string {
	lines := strings.Split(dump, "\n")
	return strings.Join(lines[:min(len(lines), 60)], "\n")
}
