package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The floor answers the reads as the plain server does (the same JSON), with the protocol's
// headers, and does its required work for every request: an audit event chained onto the last,
// a journal entry and a log line.
func TestFloorAnswersAsThePlainServer(t *testing.T) {
	t.Parallel()
	var logged bytes.Buffer
	f := newFloor(newStore(60), "x", &logged)
	mux := http.NewServeMux()
	mux.Handle("GET /api/v1/patients", f)
	mux.Handle("GET /api/v1/patients/{id}", f)
	floor := httptest.NewServer(mux)
	defer floor.Close()
	plain := httptest.NewServer(newHandler(newStore(60), "x", false))
	defer plain.Close()

	get := func(base, path, token string) (*http.Response, any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("%s: %v: %q", path, err, body)
		}
		return res, v
	}
	ids := map[string]bool{}
	paths := []string{"/api/v1/patients/pat_01J8ZK3Q4V6W7X8Y9Z0A1B0001", "/api/v1/patients/pat_01J8ZK3Q4V6W7X8Y9Z0A1B001Z",
		"/api/v1/patients?page=3&perPage=20", "/api/v1/patients?page=4&perPage=20", "/api/v1/patients/pat_none"}
	for _, path := range paths {
		fr, fv := get(floor.URL, path, "x")
		pr, pv := get(plain.URL, path, "x")
		if fr.StatusCode != pr.StatusCode {
			t.Fatalf("%s: status %d, plain %d", path, fr.StatusCode, pr.StatusCode)
		}
		if fr.StatusCode == http.StatusOK && !equalJSON(fv, pv) {
			t.Errorf("%s: floor %v\nplain %v", path, fv, pv)
		}
		for _, h := range []string{"Ratelimit", "Ratelimit-Policy", "X-Ratelimit-Limit", "X-Ratelimit-Remaining", "X-Ratelimit-Reset", "X-Request-Id"} {
			if fr.Header.Get(h) == "" {
				t.Errorf("%s: no %s", path, h)
			}
		}
		id := fr.Header.Get("X-Request-Id")
		if ids[id] {
			t.Errorf("request id %s twice", id)
		}
		ids[id] = true
	}
	if res, _ := get(floor.URL, paths[0], "y"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("an unknown token: %d", res.StatusCode)
	}

	f.auditMu.Lock()
	events := f.events
	last := f.prev
	f.auditMu.Unlock()
	if len(events) != len(paths) || events[len(events)-1].hash != last {
		t.Fatalf("%d audit events for %d requests", len(events), len(paths))
	}
	hashes := map[[32]byte]bool{}
	for _, e := range events {
		hashes[e.hash] = true
	}
	if len(hashes) != len(events) {
		t.Error("audit events share a hash: not chained")
	}
	f.journalMu.Lock()
	journalled := f.jn
	f.journalMu.Unlock()
	if journalled != len(paths) {
		t.Errorf("%d journal entries for %d requests", journalled, len(paths))
	}
	f.flushLog()
	if n := strings.Count(logged.String(), " msg=request "); n != len(paths) {
		t.Errorf("%d log lines for %d requests", n, len(paths))
	}
	if strings.Contains(logged.String(), "Lovelace") {
		t.Error("the log holds PHI")
	}
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
