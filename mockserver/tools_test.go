package mockserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/client"
	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/patients"
)

// raw sends one request to s in-process with the bearer key; it returns the status, header and body.
func raw(t testing.TB, s *mockserver.Server, key, method, path, body string, headers ...string) (int, http.Header, []byte) {
	t.Helper()
	return sendRequest(t, s.HTTPClient(), mockserver.InProcessBaseURL, key, method, path, body, headers...)
}

func newKey(t testing.TB, s *mockserver.Server, account string) mockserver.APIKey {
	t.Helper()
	k, err := s.CreateAPIKey(mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}, Account: account})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func createPatient(t testing.TB, c *medspa.Client, first string) *patients.Patient {
	t.Helper()
	p, _, err := c.Patients.Create(context.Background(), &patients.CreateParams{FirstName: first, LastName: "Tester", Email: strings.ToLower(first) + "@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAccountsAreIsolatedWithJournal(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t)
	a := s.Client
	kb := newKey(t, s.Server, "")
	pa := createPatient(t, a, "Alice")

	st, _, body := raw(t, s.Server, kb.Key, "GET", "/api/v1/patients", "")
	if st != 200 || !strings.Contains(string(body), `"total":0`) {
		t.Fatalf("other account lists %d %s", st, body)
	}
	if st, _, _ := raw(t, s.Server, kb.Key, "GET", "/api/v1/patients/"+pa.ID, ""); st != 404 {
		t.Fatalf("other account's get by id = %d, want 404", st)
	}
	accountA := s.Server.Requests("")[0].Account
	for _, e := range s.Server.Requests(kb.Account) {
		if e.Account != kb.Account {
			t.Fatalf("journal of B has %+v", e)
		}
	}
	if n := len(s.Server.Requests(kb.Account)); n != 2 {
		t.Fatalf("journal of B has %d entries, want 2", n)
	}
	for _, e := range s.Server.Requests(accountA) {
		if e.Account != accountA {
			t.Fatalf("journal of A has %+v", e)
		}
	}
	if n := len(s.Server.Requests(accountA)); n != 1 {
		t.Fatalf("journal of A has %d entries, want 1", n)
	}
}

func TestSnapshotRestoreRoundTrip(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t)
	c := s.Client
	k := newKey(t, s.Server, "")
	for _, n := range []string{"Ann", "Bob", "Cy"} {
		p, err := medspa.New(medspa.WithAPIKey(k.Key), medspa.WithBaseURL(mockserver.InProcessBaseURL), medspa.WithHTTPClient(s.HTTPClient()))
		if err != nil {
			t.Fatal(err)
		}
		createPatient(t, p, n)
	}
	_ = c
	list := func() string {
		_, _, b := raw(t, s.Server, k.Key, "GET", "/api/v1/patients?perPage=100", "")
		return string(b)
	}
	st, _, keyed := raw(t, s.Server, k.Key, "POST", "/api/v1/patients", `{"firstName":"Idem","lastName":"Potent","email":"i@example.com"}`, "Idempotency-Key: k1")
	if st != 201 {
		t.Fatalf("keyed create %d %s", st, keyed)
	}
	before := list()
	if err := s.Server.Snapshot(k.Account, "base"); err != nil {
		t.Fatal(err)
	}
	raw(t, s.Server, k.Key, "POST", "/api/v1/patients", `{"firstName":"Dee","lastName":"Tester","email":"d@example.com"}`)
	var p patients.Patient
	_ = json.Unmarshal(keyed, &p)
	raw(t, s.Server, k.Key, "PATCH", "/api/v1/patients/"+p.ID, `{"tags":["changed"]}`)
	if list() == before {
		t.Fatal("changes did not change the list")
	}
	if err := s.Server.Restore(k.Account, "base"); err != nil {
		t.Fatal(err)
	}
	if after := list(); after != before {
		t.Fatalf("after restore:\n%s\nwant\n%s", after, before)
	}
	// Idempotency keys come back too: the keyed POST replays instead of creating.
	st, h, again := raw(t, s.Server, k.Key, "POST", "/api/v1/patients", `{"firstName":"Idem","lastName":"Potent","email":"i@example.com"}`, "Idempotency-Key: k1")
	if st != 201 || h.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again, keyed) {
		t.Fatalf("replay after restore: %d %q %s", st, h.Get("Idempotent-Replayed"), again)
	}
	if err := s.Server.Restore(k.Account, "nope"); err == nil {
		t.Fatal("restoring an unknown snapshot succeeded")
	}
}

func TestFaultsHitExactlyTimes(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t, mockserver.WithJournalSize(100))
	c := s.Client
	ctx := context.Background()
	ra := 7
	if err := s.InjectFault(mockserver.Fault{Method: "GET", Path: "/api/v1/patients", Status: 503, RetryAfter: &ra, Times: 2}); err != nil {
		t.Fatal(err)
	}
	var codes []int
	for range 4 {
		_, _, err := c.Patients.List(ctx, nil, medspa.WithMaxRetries(0))
		var e *client.Error
		switch {
		case err == nil:
			codes = append(codes, 200)
		case errors.As(err, &e):
			codes = append(codes, e.Status)
			if e.Code != "service_unavailable" || e.RetryAfter != 7*time.Second {
				t.Errorf("fault answer: code %q retryAfter %v", e.Code, e.RetryAfter)
			}
		default:
			t.Fatal(err)
		}
	}
	if want := []int{503, 503, 200, 200}; !equal(codes, want) {
		t.Fatalf("statuses %v, want %v", codes, want)
	}

	// Concurrent requests: exactly times of them fail.
	if err := s.InjectFault(mockserver.Fault{Path: "/api/v1/patients*", Status: 500, Times: 5}); err != nil {
		t.Fatal(err)
	}
	key := newKey(t, s.Server, "")
	var mu sync.Mutex
	count := map[int]int{}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			st, _, _ := raw(t, s.Server, key.Key, "GET", "/api/v1/patients", "")
			mu.Lock()
			count[st]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if count[500] != 5 || count[200] != 15 {
		t.Fatalf("concurrent statuses %v, want 5×500 and 15×200", count)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFaultScoping(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t)
	ka, kb := newKey(t, s.Server, ""), newKey(t, s.Server, "")
	for _, f := range []mockserver.Fault{
		{Account: kb.Account, Status: 429, Times: 1},
		{Method: "POST", Path: "/api/v1/patients", Status: 502, Times: 1},
		{Path: "/api/v1/patients/*", Status: 504, Times: 1},
	} {
		if err := s.InjectFault(f); err != nil {
			t.Fatal(err)
		}
	}
	body := `{"firstName":"A","lastName":"B","email":"a@example.com"}`
	steps := []struct {
		key          string
		method, path string
		want         int
	}{
		{ka.Key, "GET", "/api/v1/patients", 200},                                      // no fault for A's GET on the list
		{ka.Key, "POST", "/api/v1/patients", 502},                                     // method + exact path
		{ka.Key, "POST", "/api/v1/patients", 201},                                     // used up
		{ka.Key, "GET", "/api/v1/patients/pat_0000000000000000000000000000000", 504},  // prefix
		{ka.Key, "GET", "/api/v1/patients/pat_00000000000000000000000000000000", 404}, // used up
		{kb.Key, "GET", "/api/v1/patients", 429},                                      // account
		{kb.Key, "GET", "/api/v1/patients", 200},
	}
	for i, st := range steps {
		b := ""
		if st.method == "POST" {
			b = body
		}
		got, h, resp := raw(t, s.Server, st.key, st.method, st.path, b)
		if got != st.want {
			t.Fatalf("step %d: %s %s = %d %s, want %d", i, st.method, st.path, got, resp, st.want)
		}
		if got >= 500 || got == 429 {
			if h.Get("Content-Type") != "application/problem+json" || !strings.HasPrefix(h.Get("X-Request-Id"), "req_") ||
				!strings.Contains(string(resp), `"requestId":"`+h.Get("X-Request-Id")) {
				t.Fatalf("step %d: fault answer %v %s", i, h, resp)
			}
		}
	}
	// Admin requests are never faulted; bad faults are refused naming every field.
	if err := s.InjectFault(mockserver.Fault{Status: 200, Times: 0}); err == nil || !strings.Contains(err.Error(), "422") {
		t.Fatalf("invalid fault: %v", err)
	}
}

func TestFaultDelay(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t)
	c := s.Client
	if err := s.InjectFault(mockserver.Fault{DelayMs: 60, Times: 2}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, _, err := c.Patients.List(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 60*time.Millisecond {
		t.Fatalf("delayed request took %v", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, _, err := c.Patients.List(ctx, nil, medspa.WithMaxRetries(0)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled delayed request: %v", err)
	}
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Fatalf("cancelled delay took %v", d)
	}
}

func TestFaultDropConnectionIsRetried(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	s := env.Server
	if err := s.InjectFault(mockserver.Fault{Method: "POST", Path: "/api/v1/patients", DropConnection: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	// Without retries the SDK reports a transport error.
	_, _, err := env.Client.Patients.Create(context.Background(), &patients.CreateParams{FirstName: "X", LastName: "Y", Email: "x@example.com"}, medspa.WithMaxRetries(0))
	var ce *client.Error
	if err == nil || errors.As(err, &ce) {
		t.Fatalf("dropped connection: %v, want a transport error", err)
	}
	// With retries it succeeds; after commit, the retry is replayed, not created twice.
	if err := s.InjectFault(mockserver.Fault{Method: "POST", Path: "/api/v1/patients", DropConnection: true, AfterCommit: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	p := createPatient(t, env.Client, "Once")
	page, _, err := env.Client.Patients.List(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if page.Meta.Total != 1 || page.Data[0].ID != p.ID {
		t.Fatalf("after a committed, dropped, retried create: %d patients", page.Meta.Total)
	}
	var posts []mockserver.JournalEntry
	for _, e := range s.Requests(env.Key.Account) {
		if e.Method == "POST" {
			posts = append(posts, e)
		}
	}
	if len(posts) != 3 || posts[0].Fault != "drop" || posts[1].Fault != "drop-after-commit" || posts[2].Status != 201 ||
		posts[1].IdempotencyKey == "" || posts[1].IdempotencyKey != posts[2].IdempotencyKey {
		t.Fatalf("journal of POSTs: %+v", posts)
	}
}

func TestJournalBoundAndRedaction(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t, mockserver.WithJournalSize(3))
	k := newKey(t, s.Server, "")
	raw(t, s.Server, k.Key, "POST", "/api/v1/patients", `{"firstName":"Zelda","lastName":"Secretname","email":"zelda@example.com","notes":"diagnosis"}`)
	for i := range 4 {
		raw(t, s.Server, k.Key, "GET", "/api/v1/patients?q=Secretname&page="+string(rune('1'+i)), "")
	}
	j := s.Server.Requests(k.Account)
	if len(j) != 3 {
		t.Fatalf("journal holds %d entries, want 3", len(j))
	}
	if j[2].Path != "/api/v1/patients" || strings.Join(j[2].QueryParams, ",") != "page,q" || j[2].Status != 200 ||
		j[2].CredentialID != k.ID || !strings.HasPrefix(j[2].RequestID, "req_") {
		t.Fatalf("newest entry %+v", j[2])
	}
	out, _ := json.Marshal(j)
	for _, secret := range []string{"Secretname", "Zelda", "zelda", "diagnosis", k.Key, "Bearer"} {
		if strings.Contains(string(out), secret) {
			t.Fatalf("journal contains %q: %s", secret, out)
		}
	}
	// Over HTTP too.
	st, _, b := raw(t, s.Server, "", "GET", "/__admin/requests?account="+k.Account, "")
	if st != 200 || strings.Count(string(b), `"requestId"`) != 3 || strings.Contains(string(b), "Secretname") {
		t.Fatalf("admin journal %d %s", st, b)
	}
}

// script runs a fixed sequence of requests and returns every answer, dumped byte for byte.
func script(t *testing.T) []byte {
	s, err := mockserver.New(mockserver.WithSeed(42), mockserver.WithPredictableSecrets(), mockserver.WithStartTime(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out bytes.Buffer
	do := func(method, path, body string) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, mockserver.InProcessBaseURL+path, rd)
		req.Header.Set("Content-Type", "application/json")
		resp, err := s.HTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := httputil.DumpResponse(resp, true)
		out.Write(d)
	}
	do("POST", "/__admin/api-keys", `{"plan":"enterprise","scopes":["*"]}`)
	k, err := s.CreateAPIKey(mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	auth := func(method, path, body string) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, mockserver.InProcessBaseURL+path, rd)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+k.Key)
		resp, err := s.HTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := httputil.DumpResponse(resp, true)
		out.Write(d)
	}
	auth("POST", "/api/v1/patients", `{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com"}`)
	auth("POST", "/api/v1/patients", `{"firstName":"","lastName":"Lovelace","email":"bad"}`)
	auth("GET", "/api/v1/patients", "")
	auth("GET", "/api/v1/nope", "")
	auth("POST", "/api/v1/webhooks", `{"url":"http://127.0.0.1:9/hook","events":["patient.created"]}`)
	do("POST", "/__admin/fixtures", `{"account":"`+k.Account+`","patients":[{"firstName":"F","lastName":"X","email":"f@example.com"}],
		"appointments":[{"patientId":"@patients.0","providerId":"p","service":"s","startAt":"2026-11-23T09:00:00Z","endAt":"2026-11-23T09:30:00Z","status":"confirmed"}]}`)
	_ = s.InjectFault(mockserver.Fault{Status: 503, Times: 1})
	auth("GET", "/api/v1/patients", "")
	// OAuth: client secret, access and refresh tokens are seeded too.
	req, _ := http.NewRequest("POST", mockserver.InProcessBaseURL+"/__admin/oauth-clients", strings.NewReader(`{"plan":"starter","scopes":["patients:read"]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var cl struct{ ClientID, ClientSecret string }
	b, _ := io.ReadAll(resp.Body)
	out.Write(b)
	_ = json.Unmarshal(b, &cl)
	req, _ = http.NewRequest("POST", mockserver.InProcessBaseURL+"/oauth/token", strings.NewReader("grant_type=client_credentials"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(cl.ClientID, cl.ClientSecret)
	resp, err = s.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := httputil.DumpResponse(resp, true)
	out.Write(d)
	if resp.StatusCode != 200 {
		t.Fatalf("token: %s", d)
	}
	fmtKey, _ := json.Marshal(k)
	out.Write(fmtKey)
	return out.Bytes()
}

func TestSeededFixedTimeRunsAreIdentical(t *testing.T) {
	t.Parallel()
	a, b := script(t), script(t)
	if !bytes.Equal(a, b) {
		t.Fatalf("two runs differ:\n%s\n----\n%s", a, b)
	}
	if !bytes.Contains(a, []byte(`"secret":"whsec_`)) || !bytes.Contains(a, []byte(`"access_token":"mat_`)) {
		t.Fatalf("the script did not create a webhook and a token:\n%s", a)
	}
	if !bytes.Contains(a, []byte(`"createdAt":"2026-11-22T09:00:00Z"`)) {
		t.Fatalf("the clock did not start at the given time:\n%s", a)
	}
}

func TestFixtures(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t)
	c := s.Client
	k := newKey(t, s.Server, "")
	existing, _, _ := raw(t, s.Server, k.Key, "POST", "/api/v1/patients", `{"firstName":"Kept","lastName":"Tester","email":"k@example.com"}`)
	if existing != 201 {
		t.Fatal("setup")
	}
	_ = c
	ids, err := s.Server.LoadFixtures(k.Account, mockserver.Fixtures{Patients: []any{
		map[string]any{"firstName": "Old", "lastName": "Timer", "email": "o@example.com", "createdAt": "2020-01-02T03:04:05Z"},
		map[string]any{"firstName": "Ref", "lastName": "Erence", "email": "r@example.com", "tags": []any{"@patients.0", "sibling of @patients.0"}},
		patients.CreateParams{FirstName: "Plain", LastName: "Struct", Email: "p@example.com"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ids.Patients) != 3 || len(ids.Appointments) != 0 {
		t.Fatalf("ids %+v", ids)
	}
	kc, _ := medspa.New(medspa.WithAPIKey(k.Key), medspa.WithBaseURL(mockserver.InProcessBaseURL), medspa.WithHTTPClient(s.HTTPClient()))
	old, _, err := kc.Patients.Get(context.Background(), ids.Patients[0])
	if err != nil {
		t.Fatal(err)
	}
	if !old.CreatedAt.Equal(time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Fatalf("backdated createdAt %v", old.CreatedAt)
	}
	ref, _, _ := kc.Patients.Get(context.Background(), ids.Patients[1])
	if len(ref.Tags) != 2 || ref.Tags[0] != ids.Patients[0] || ref.Tags[1] != "sibling of "+ids.Patients[0] {
		t.Fatalf("references not resolved: %v", ref.Tags)
	}

	// A failing item: its problem, pointed at the item, and nothing of the load stays.
	before, _, _ := raw(t, s.Server, k.Key, "GET", "/api/v1/patients?perPage=100", "")
	_, _, beforeList := raw(t, s.Server, k.Key, "GET", "/api/v1/patients?perPage=100", "")
	_ = before
	st, _, body := raw(t, s.Server, "", "POST", "/__admin/fixtures", `{"account":"`+k.Account+`","patients":[
		{"firstName":"Fine","lastName":"One","email":"f@example.com"},
		{"firstName":"Fine","lastName":"Two","email":"f2@example.com","tags":["@patients.0"]},
		{"firstName":"Bad","lastName":"Three","email":"not-an-email","createdAt":"yesterday"},
		{"firstName":"Never","lastName":"Four","email":"n@example.com"}]}`)
	if st != 422 || !strings.Contains(string(body), `"pointer":"/patients/2/createdAt"`) {
		t.Fatalf("bad fixture: %d %s", st, body)
	}
	st, _, body = raw(t, s.Server, "", "POST", "/__admin/fixtures", `{"account":"`+k.Account+`","patients":[
		{"firstName":"Fine","lastName":"One","email":"f@example.com"},
		{"firstName":"Bad","lastName":"Two","email":"not-an-email","tags":["@patients.5"]}]}`)
	if st != 422 || !strings.Contains(string(body), `"pointer":"/patients/1/tags/0"`) {
		t.Fatalf("bad reference: %d %s", st, body)
	}
	st, _, body = raw(t, s.Server, "", "POST", "/__admin/fixtures", `{"account":"`+k.Account+`","patients":[
		{"firstName":"Fine","lastName":"One","email":"f@example.com"},
		{"firstName":"Bad","lastName":"Two","email":"not-an-email"}]}`)
	if st != 422 || !strings.Contains(string(body), `"pointer":"/patients/1/email"`) || !strings.Contains(string(body), `"code":"validation_error"`) {
		t.Fatalf("failing item: %d %s", st, body)
	}
	if _, _, after := raw(t, s.Server, k.Key, "GET", "/api/v1/patients?perPage=100", ""); !bytes.Equal(after, beforeList) {
		t.Fatalf("failed load left changes:\n%s\nwant\n%s", after, beforeList)
	}
	// Over HTTP, success.
	st, _, body = raw(t, s.Server, "", "POST", "/__admin/fixtures", `{"account":"`+k.Account+`","patients":[{"firstName":"Http","lastName":"One","email":"h@example.com"}]}`)
	if st != 201 || !strings.Contains(string(body), `"patients":["pat_`) || !strings.Contains(string(body), `"payments":[]`) {
		t.Fatalf("fixtures over HTTP: %d %s", st, body)
	}
	if st, _, body = raw(t, s.Server, "", "POST", "/__admin/fixtures", `{"account":"acct_nope"}`); st != 404 {
		t.Fatalf("unknown account: %d %s", st, body)
	}
}

func TestAdminControlsOverHTTP(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t)
	k := newKey(t, s.Server, "")
	for _, step := range []struct {
		method, path, body string
		want               int
	}{
		{"POST", "/__admin/faults", `{"path":"/api/v1/*","status":503,"retryAfter":1,"times":1}`, 204},
		{"POST", "/__admin/faults", `{"status":503}`, 422},
		{"POST", "/__admin/faults", `{"times":1,"bogus":true}`, 422},
		{"DELETE", "/__admin/faults", "", 204},
		{"POST", "/__admin/snapshots", `{"account":"` + k.Account + `","name":"s1"}`, 204},
		{"POST", "/__admin/snapshots", `{"account":"acct_nope","name":"s1"}`, 404},
		{"POST", "/__admin/snapshots/s1/restore", `{"account":"` + k.Account + `"}`, 204},
		{"POST", "/__admin/snapshots/s2/restore", `{"account":"` + k.Account + `"}`, 404},
		{"GET", "/__admin/openapi.yaml", "", 200},
	} {
		if st, _, b := raw(t, s.Server, "", step.method, step.path, step.body); st != step.want {
			t.Fatalf("%s %s = %d %s, want %d", step.method, step.path, st, b, step.want)
		}
	}
	// The fault was cleared before any API request.
	if st, _, _ := raw(t, s.Server, k.Key, "GET", "/api/v1/patients", ""); st != 200 {
		t.Fatalf("cleared fault still fires: %d", st)
	}
}

func TestWithoutAdmin(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t, mockserver.WithoutAdmin())
	for _, p := range []string{"/__admin/requests", "/__admin/openapi.yaml"} {
		if st, _, _ := raw(t, s.Server, "", "GET", p, ""); st != 404 {
			t.Fatalf("GET %s = %d without admin, want 404", p, st)
		}
	}
	if st, _, _ := raw(t, s.Server, "", "POST", "/__admin/faults", `{"status":503,"times":1}`); st != 404 {
		t.Fatalf("POST faults = %d without admin", st)
	}
}

// TestStrictValidation: strict mode answers what normal mode answers — same status, code,
// fields and details — and refuses, besides, what only the OpenAPI document refuses (422 in
// validation's place, every field at once, the server's own findings first), changing nothing.
func TestStrictValidation(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t, mockserver.WithStrictValidation())
	k := newKey(t, s.Server, "")
	normal := mockserver.NewTest(t)
	nk := newKey(t, normal.Server, "")
	rid := regexp.MustCompile(`"requestId":"req_[0-9a-f]+"`)
	same := func(method, path, body string) (int, string) {
		t.Helper()
		st, _, b := raw(t, s.Server, k.Key, method, path, body)
		nst, _, nb := raw(t, normal.Server, nk.Key, method, path, body)
		if st != nst || rid.ReplaceAllString(string(b), "") != rid.ReplaceAllString(string(nb), "") {
			t.Errorf("%s %s %s:\nstrict %d %s\nnormal %d %s", method, path, body, st, b, nst, nb)
		}
		return st, string(b)
	}
	// What both refuse: the same answer, every field.
	st, b := same("POST", "/api/v1/patients", `{"firstName":"A","lastName":"B","email":"a@example.com","phone":12,"bogus":true}`)
	if st != 422 || !strings.Contains(b, `"pointer":"/bogus","code":"unknown_field"`) || !strings.Contains(b, `"pointer":"/phone"`) {
		t.Fatalf("strict 422: %d %s", st, b)
	}
	if st, b = same("GET", "/api/v1/patients?perPage=1000", ""); st != 422 || !strings.Contains(b, `"pointer":"perPage","code":"out_of_range"`) {
		t.Fatalf("strict query: %d %s", st, b)
	}
	if st, _ = same("GET", "/api/v1/patients/pat_..", ""); st != 404 {
		t.Fatalf("a malformed id: %d", st)
	}
	// What only the document refuses: the server trims blanks, the document's pattern and
	// lengths do not; it takes a date for createdFrom, the document a date-time.
	padded := `{"firstName":" ` + strings.Repeat("a", 100) + `","lastName":"B","email":"a@example.com","phone":" +15551234567"}`
	if st, _, b := raw(t, normal.Server, nk.Key, "POST", "/api/v1/patients", padded); st != 201 {
		t.Fatalf("normal mode refused the padded patient: %d %s", st, b)
	}
	st, _, body := raw(t, s.Server, k.Key, "POST", "/api/v1/patients", padded)
	var p struct {
		Errors []struct{ Pointer, Code, Detail string }
	}
	_ = json.Unmarshal(body, &p)
	if st != 422 || len(p.Errors) != 2 || p.Errors[0].Pointer != "/firstName" || p.Errors[0].Code != "too_long" ||
		p.Errors[1].Pointer != "/phone" || p.Errors[1].Code != "invalid_format" || !strings.Contains(p.Errors[1].Detail, "OpenAPI document") {
		t.Fatalf("strict, schema only: %d %s", st, body)
	}
	// With the server's own findings: all of them, the server's first.
	st, _, body = raw(t, s.Server, k.Key, "POST", "/api/v1/patients", strings.Replace(padded, `"a@example.com"`, `"not-an-email"`, 1))
	p.Errors = nil
	_ = json.Unmarshal(body, &p)
	if st != 422 || len(p.Errors) != 3 || p.Errors[0].Pointer != "/email" || p.Errors[0].Code != "invalid_format" {
		t.Fatalf("strict, schema and server: %d %s", st, body)
	}
	if st, _, b := raw(t, s.Server, k.Key, "GET", "/api/v1/patients?createdFrom=2026-01-01", ""); st != 422 || !strings.Contains(string(b), `"pointer":"createdFrom","code":"invalid_format"`) {
		t.Fatalf("strict, schema-only query: %d %s", st, b)
	}
	if st, _, b := raw(t, normal.Server, nk.Key, "GET", "/api/v1/patients?createdFrom=2026-01-01", ""); st != 200 {
		t.Fatalf("normal, date for createdFrom: %d %s", st, b)
	}
	if st, _, b := raw(t, s.Server, k.Key, "GET", "/api/v1/patients", ""); st != 200 || !strings.Contains(string(b), `"total":0`) {
		t.Fatalf("strict refusals changed the state: %d %s", st, b)
	}
	if st, _, b := raw(t, s.Server, k.Key, "POST", "/api/v1/patients", `{"firstName":"A","lastName":"B","email":"a@example.com"}`); st != 201 {
		t.Fatalf("valid request under strict mode: %d %s", st, b)
	}
	// Authentication still comes first.
	if st, _, _ = raw(t, s.Server, "", "POST", "/api/v1/patients", `{"bogus":true}`); st != 401 {
		t.Fatalf("unauthenticated under strict mode: %d", st)
	}
}

// TestLogLinePerRequest: through NewLogHandler, one metadata line per request with its method,
// path, status, duration, request id and account (none for a request without a credential), and
// no PHI or key.
func TestLogLinePerRequest(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	var mu sync.Mutex
	s := mockserver.NewTest(t, mockserver.WithLogger(slog.New(mockserver.NewLogHandler(&lockedWriter{w: &buf, mu: &mu}))))
	k := newKey(t, s.Server, "")
	_, created, _ := raw(t, s.Server, k.Key, "POST", "/api/v1/patients", `{"firstName":"Loggy","lastName":"Phiname","email":"loggy@example.com"}`)
	_, listed, _ := raw(t, s.Server, k.Key, "GET", "/api/v1/patients?q=Phiname", "")
	_, refused, _ := raw(t, s.Server, "", "GET", "/api/v1/patients/pat_Loggy Phiname", "")
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d log lines:\n%s", len(lines), out)
	}
	for i, want := range [][]string{
		{"level=INFO", "msg=request", "method=POST", "path=/api/v1/patients ", "status=201", "duration=",
			"request_id=" + created.Get("X-Request-Id") + " ", "account=" + k.Account},
		{"level=INFO", "msg=request", "method=GET", "path=/api/v1/patients ", "status=200", "duration=",
			"request_id=" + listed.Get("X-Request-Id") + " ", "account=" + k.Account},
		{"level=INFO", "msg=request", "method=GET", "status=401", "request_id=" + refused.Get("X-Request-Id") + " "},
	} {
		for _, w := range want {
			if !strings.Contains(lines[i]+" ", w) {
				t.Fatalf("log line %d lacks %q: %s", i, w, lines[i])
			}
		}
	}
	if strings.Contains(lines[2], "account=") {
		t.Fatalf("a request without a credential logged an account: %s", lines[2])
	}
	for _, phi := range []string{"Loggy", "Phiname", "loggy@", k.Key} {
		if strings.Contains(out, phi) {
			t.Fatalf("log contains %q:\n%s", phi, out)
		}
	}
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func TestFaultStatusAfterCommit(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t)
	c := s.Client
	zero := 0
	if err := s.InjectFault(mockserver.Fault{Method: "POST", Path: "/api/v1/patients", Status: 503, RetryAfter: &zero, AfterCommit: true, Times: 1}); err != nil {
		t.Fatal(err)
	}
	p := createPatient(t, c, "Committed") // 503 after the write; the retry is replayed
	page, _, err := c.Patients.List(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if page.Meta.Total != 1 || page.Data[0].ID != p.ID {
		t.Fatalf("%d patients after a committed 503 and a retry", page.Meta.Total)
	}
	j := s.Server.Requests("")
	if len(j) != 3 || j[0].Fault != "status-after-commit" || j[0].Status != 503 || j[1].Status != 201 {
		t.Fatalf("journal %+v", j)
	}
}

func TestOAuthTokensScopeFaultsAndJournal(t *testing.T) {
	t.Parallel()
	s := mockserver.NewTest(t)
	k := newKey(t, s.Server, "")
	_, _, b := raw(t, s.Server, "", "POST", "/__admin/oauth-clients", `{"plan":"starter","scopes":["patients:read"],"account":"`+k.Account+`"}`)
	var cl struct {
		ClientID     string `json:"clientId"`
		ClientSecret string `json:"clientSecret"`
	}
	if err := json.Unmarshal(b, &cl); err != nil || cl.ClientID == "" {
		t.Fatalf("oauth client: %s", b)
	}
	req, _ := http.NewRequest("POST", mockserver.InProcessBaseURL+"/oauth/token", strings.NewReader("grant_type=client_credentials"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(cl.ClientID, cl.ClientSecret)
	resp, err := s.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&tok)
	resp.Body.Close()
	if tok.AccessToken == "" {
		t.Fatal("no access token")
	}
	if err := s.InjectFault(mockserver.Fault{Account: k.Account, Path: "/api/v1/*", Status: 503, Times: 1}); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := raw(t, s.Server, tok.AccessToken, "GET", "/api/v1/patients", ""); st != 503 {
		t.Fatalf("account fault with an OAuth token: %d", st)
	}
	if st, _, _ := raw(t, s.Server, tok.AccessToken, "GET", "/api/v1/patients", ""); st != 200 {
		t.Fatalf("after the fault: %d", st)
	}
	j := s.Server.Requests(k.Account)
	last := j[len(j)-1]
	if last.CredentialID != cl.ClientID || last.Status != 200 {
		t.Fatalf("journal entry of a token request: %+v", last)
	}
	if out, _ := json.Marshal(j); strings.Contains(string(out), tok.AccessToken) || strings.Contains(string(out), cl.ClientSecret) {
		t.Fatal("journal holds a token or secret")
	}
}
