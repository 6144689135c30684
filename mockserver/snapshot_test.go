package mockserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/testing/restarttest"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/webhooks"
)

// token gets a client-credentials access token of an OAuth client.
func token(t *testing.T, s *mockserver.Server, id, secret string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", mockserver.InProcessBaseURL+"/oauth/token", strings.NewReader(url.Values{"grant_type": {"client_credentials"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(id, secret)
	resp, err := s.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("token: %d %v", resp.StatusCode, err)
	}
	return tok.AccessToken
}

// A named snapshot carries the whole account (docs/protocol.md §12, issue 18): besides records
// and idempotency keys, the account's own clock, its pending webhook retries and its OAuth
// clients' tokens; restoring it puts all of them back.
func TestSnapshotCarriesTheWholeAccount(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t)
	k := newKey(t, s.Server, "")
	t0 := time.Date(2031, 3, 3, 9, 0, 0, 0, time.UTC)
	s.Server.SetTime(k.Account, t0)

	var mu sync.Mutex
	got := map[string]int{}
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.Header.Get("webhook-id")]++
		n := got[r.Header.Get("webhook-id")]
		mu.Unlock()
		if n == 1 {
			w.WriteHeader(http.StatusServiceUnavailable) // the first attempt fails: a retry is pending
		}
	}))
	defer recv.Close()
	deliveries := func(id string) int {
		mu.Lock()
		defer mu.Unlock()
		return got[id]
	}
	if st, _, b := raw(t, s.Server, k.Key, "POST", "/api/v1/webhooks", `{"url":"`+recv.URL+`/h","events":["patient.created"]}`); st != 201 {
		t.Fatalf("webhook: %d %s", st, b)
	}
	rec := s.Server.RecordEvents(k.Account)
	raw(t, s.Server, k.Key, "POST", "/api/v1/patients", `{"firstName":"Snap","lastName":"Shot","email":"s@example.com"}`)
	events, err := rec.Wait(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	event := events[0].ID
	restarttest.WaitFor(t, "the first attempt", func() bool { return deliveries(event) == 1 })
	// The receiver has answered; the snapshot must wait until the server has also recorded the
	// failure and scheduled its retry, or it may be taken with no retry pending.
	recorded := func(attempt int, retry bool) func() bool {
		return func() bool {
			for _, d := range s.Server.Deliveries(k.Account) {
				if d.EventID == event && d.Attempt == attempt && (d.NextAttemptAt != nil) == retry {
					return true
				}
			}
			return false
		}
	}
	restarttest.WaitFor(t, "the first attempt's retry scheduled", recorded(1, true))

	cl, err := s.CreateOAuthClient(mockserver.OAuthClientParams{Plan: "enterprise", Scopes: []string{"patients:read"}, Account: k.Account})
	if err != nil {
		t.Fatal(err)
	}
	before := token(t, s.Server, cl.ClientID, cl.ClientSecret)
	auditAt := func() string {
		_, _, b := raw(t, s.Server, "", "GET", "/__admin/audit-events?account="+k.Account, "")
		var a struct {
			Events []struct {
				Hash string `json:"hash"`
			} `json:"events"`
		}
		_ = json.Unmarshal(b, &a)
		if len(a.Events) == 0 {
			return ""
		}
		return fmt.Sprint(len(a.Events), a.Events[len(a.Events)-1].Hash)
	}
	audited := auditAt()
	if err := s.Server.Snapshot(k.Account, "whole"); err != nil {
		t.Fatal(err)
	}

	// After the snapshot: the clock moves (the retry goes out), a new token.
	s.Server.AdvanceTime(k.Account, time.Hour)
	restarttest.WaitFor(t, "the retry", func() bool { return deliveries(event) == 2 })
	restarttest.WaitFor(t, "the retry recorded", recorded(2, false))
	after := token(t, s.Server, cl.ClientID, cl.ClientSecret)

	if err := s.Server.Restore(k.Account, "whole"); err != nil {
		t.Fatal(err)
	}
	if now := s.Server.Now(k.Account); !now.Equal(t0) || !s.Server.Frozen(k.Account) {
		t.Errorf("the account's clock after the restore: %v (frozen %v), want %v", now, s.Server.Frozen(k.Account), t0)
	}
	if st, _, _ := raw(t, s.Server, before, "GET", "/api/v1/patients", ""); st != 200 {
		t.Errorf("a token of the snapshot after the restore: %d", st)
	}
	if st, _, _ := raw(t, s.Server, after, "GET", "/api/v1/patients", ""); st != 401 {
		t.Errorf("a token issued after the snapshot, after the restore: %d, want 401", st)
	}
	// The audit chain as it was (the restore's own requests above are audited after it).
	raw(t, s.Server, "", "POST", "/__admin/snapshots/whole/restore", `{"account":"`+k.Account+`"}`)
	if got := auditAt(); got != audited || audited == "" {
		t.Errorf("the audit chain after the restore: %q, want %q", got, audited)
	}
	s.Server.AdvanceTime(k.Account, 10*time.Second) // the restored retry falls due
	restarttest.WaitFor(t, "the restored retry", func() bool { return deliveries(event) == 3 })
}

// A failed fixture load undoes only its own items (issue 18): writes other clients make while
// it runs are kept (they wait for the load, one transaction), and no event of the load is
// delivered.
func TestFailedFixtureLoadUndoesOnlyItself(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t)
	k := newKey(t, s.Server, "")
	var items strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&items, `{"firstName":"Fix%d","lastName":"Ture","email":"fix%d@example.com"},`, i, i)
	}
	items.WriteString(`{"firstName":"Bad","lastName":"Item","email":"not-an-email"}`)
	rec := s.Server.RecordEvents(k.Account)

	var ids []string
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // another client writes all along
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			st, _, b := raw(t, s.Server, k.Key, "POST", "/api/v1/patients", fmt.Sprintf(`{"firstName":"Other%d","lastName":"Client","email":"o%d@example.com"}`, i, i))
			if st != 201 {
				t.Errorf("a concurrent write: %d %s", st, b)
				return
			}
			var p struct{ ID string }
			_ = json.Unmarshal(b, &p)
			ids = append(ids, p.ID)
		}
	}()
	st, _, body := raw(t, s.Server, "", "POST", "/__admin/fixtures", `{"account":"`+k.Account+`","patients":[`+items.String()+`]}`)
	close(stop)
	<-done
	if st != 422 || !strings.Contains(string(body), "/patients/2000/email") {
		t.Fatalf("the failing load: %d %s", st, body)
	}
	var list struct {
		Data []struct{ ID, FirstName string } `json:"data"`
		Meta struct{ Total int }              `json:"meta"`
	}
	_, _, b := raw(t, s.Server, k.Key, "GET", "/api/v1/patients?perPage=100", "")
	_ = json.Unmarshal(b, &list)
	if list.Meta.Total != len(ids) || len(ids) == 0 {
		t.Fatalf("after the failed load: %d patients, want the %d the other client made", list.Meta.Total, len(ids))
	}
	for _, p := range list.Data {
		if !strings.HasPrefix(p.FirstName, "Other") {
			t.Fatalf("a fixture of the failed load stayed: %s", p.FirstName)
		}
	}
	for _, e := range rec.Events() {
		if d, ok := e.Data.(*webhooks.PatientData); !ok || !slices.Contains(ids, d.ID) {
			t.Fatalf("an event of the failed load was delivered: %s %+v", e.Type, e.Data)
		}
	}
}
