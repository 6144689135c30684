package mockserver_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/testing/restarttest"
	"github.com/medspa/medspa-go/mockserver"
)

// startOn starts a server on the data directory over a loopback listener; both are closed with
// t, or by the returned stop (crash: without the data directory's last compaction, as a
// crash leaves it).
func startOn(t *testing.T, dir string, opts ...mockserver.Option) (*mockserver.Server, string, func(crash bool)) {
	t.Helper()
	s, err := mockserver.New(append([]mockserver.Option{mockserver.WithDataDir(dir)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s)
	stopped := false
	stop := func(crash bool) {
		if stopped {
			return
		}
		stopped = true
		hs.Close()
		if crash {
			err = mockserver.CrashForTest(s)
		} else {
			err = s.Close()
		}
		if err != nil {
			t.Errorf("stopping: %v", err)
		}
	}
	t.Cleanup(func() { stop(false) })
	return s, hs.URL, stop
}

// A server on a data directory, closed (or crashed) and started again on it, keeps everything
// of docs/protocol.md §13 (the in-process counterpart of the binary's tests in
// cmd/medspa-mock).
func TestDataDirRestartKeepsEverything(t *testing.T) {
	t.Parallel()
	for _, crash := range []bool{false, true} {
		name := map[bool]string{false: "close", true: "crash"}[crash]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s, url, stop := startOn(t, dir)
			k := newKey(t, s, "")
			restart := func(t *testing.T) restarttest.Target {
				stop(crash)
				s2, url2, _ := startOn(t, dir)
				_, st, _ := s2.DataDir()
				if st.Fresh || crash != (st.LoggedChanges > 0) {
					t.Fatalf("the restarted server found %+v", st)
				}
				return restarttest.Target{BaseURL: url2, Key: k.Key, Account: k.Account}
			}
			restarttest.Run(t, restarttest.Target{BaseURL: url, Key: k.Key, Account: k.Account}, restart, restarttest.Items())
		})
	}
}

// A write whose change cannot be made durable is answered 503 service_unavailable, never as a
// success: here the data directory is gone (released), so nothing more reaches it.
func TestWriteThatCannotBeDurableIs503(t *testing.T) {
	t.Parallel()
	s, _, _ := startOn(t, t.TempDir())
	k := newKey(t, s, "")
	if st, _, b := raw(t, s, k.Key, "POST", "/api/v1/patients", `{"firstName":"Before","lastName":"Loss","email":"b@example.com"}`); st != 201 {
		t.Fatalf("a write before: %d %s", st, b)
	}
	if err := mockserver.CrashForTest(s); err != nil {
		t.Fatal(err)
	}
	st, h, b := raw(t, s, k.Key, "POST", "/api/v1/patients", `{"firstName":"After","lastName":"Loss","email":"a@example.com"}`, "Idempotency-Key: lost-1")
	if st != 503 || !strings.Contains(string(b), `"code":"service_unavailable"`) || h.Get("Retry-After") == "" {
		t.Fatalf("a write the directory cannot take: %d %v %s", st, h, b)
	}
	if st, _, b := raw(t, s, "", "POST", "/__admin/api-keys", `{"plan":"starter","scopes":["*"]}`); st != 503 {
		t.Fatalf("an admin write the directory cannot take: %d %s", st, b)
	}
}

// A named snapshot restored brings its pending retries back, and a crash after the restore keeps
// them: the retry the snapshot saved runs after the restart, when due — its event is not sent
// anew at start.
func TestRestoredRetrySurvivesACrash(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	got := 0 // deliveries; every one fails, so the retry stays pending
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		got++
		mu.Unlock()
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer hook.Close()
	deliveries := func() int { mu.Lock(); defer mu.Unlock(); return got }
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s", what)
			}
		}
	}
	must := func(base, key, method, path, body string, want int) []byte {
		t.Helper()
		st, _, b := rawHTTP(t, base, key, method, path, body)
		if st != want {
			t.Fatalf("%s %s: %d %s", method, path, st, b)
		}
		return b
	}
	dir := t.TempDir()
	s, url, stop := startOn(t, dir)
	k := newKey(t, s, "")
	must(url, "", "POST", "/__admin/clock", `{"account":"`+k.Account+`","now":"2030-01-01T00:00:00Z"}`, 200)
	var endpoint struct{ ID string }
	_ = json.Unmarshal(must(url, k.Key, "POST", "/api/v1/webhooks", `{"url":"`+hook.URL+`/hook","events":["patient.created"]}`, 201), &endpoint)
	must(url, k.Key, "POST", "/api/v1/patients", `{"firstName":"Retry","lastName":"Kept","email":"r@example.com"}`, 201)
	waitFor("the first attempt", func() bool { return deliveries() == 1 })
	must(url, "", "POST", "/__admin/snapshots", `{"account":"`+k.Account+`","name":"pending"}`, 204)
	must(url, k.Key, "DELETE", "/api/v1/webhooks/"+endpoint.ID, "", 204) // its retry goes with it
	stop(false)                                                          // a clean stop: nothing pending, every event settled
	_, url, stop = startOn(t, dir)
	must(url, "", "POST", "/__admin/snapshots/pending/restore", `{"account":"`+k.Account+`"}`, 204)
	stop(true)
	before := deliveries()
	_, url, _ = startOn(t, dir)
	time.Sleep(500 * time.Millisecond) // the saved retry is not due yet: nothing goes out
	if n := deliveries(); n != before {
		t.Fatalf("%d deliveries at start after the crash, before the retry is due", n-before)
	}
	must(url, "", "POST", "/__admin/clock", `{"account":"`+k.Account+`","advance":"1h"}`, 200)
	waitFor("the restored retry after the crash", func() bool { return deliveries() > before })
}
