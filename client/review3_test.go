package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
