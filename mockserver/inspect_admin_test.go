package mockserver_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/medspa/medspa-go/internal/testing/testenv"
	"github.com/medspa/medspa-go/mockserver"
	"github.com/medspa/medspa-go/webhooks"
)

// adminJSON sends an admin request and decodes its JSON answer into out (nil: ignored).
func adminJSON(t *testing.T, env *testenv.Env, method, path, body string, want int, out any) {
	t.Helper()
	resp, b := env.Do(t, method, path, body)
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, resp.StatusCode, b, want)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
}

func TestAdminFaultsListed(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	acct := env.Key.Account
	adminJSON(t, env, "POST", "/__admin/faults", `{"account":"`+acct+`","method":"GET","path":"/api/v1/patients","status":503,"times":2}`, 204, nil)
	var list struct {
		Faults []struct {
			ID         string     `json:"id"`
			Status     int        `json:"status"`
			Times      int        `json:"times"`
			Left       int        `json:"left"`
			Used       int        `json:"used"`
			ArmedAt    time.Time  `json:"armedAt"`
			LastUsedAt *time.Time `json:"lastUsedAt"`
		} `json:"faults"`
	}
	adminJSON(t, env, "GET", "/__admin/faults?account="+acct, "", 200, &list)
	if len(list.Faults) != 1 || list.Faults[0].Left != 2 || list.Faults[0].Used != 0 || list.Faults[0].LastUsedAt != nil ||
		list.Faults[0].ArmedAt.IsZero() || list.Faults[0].ID == "" || list.Faults[0].Times != 2 {
		t.Fatalf("armed: %+v", list.Faults)
	}
	if resp, _ := env.Do(t, "GET", "/api/v1/patients", ""); resp.StatusCode != 503 {
		t.Fatalf("fault not used: %d", resp.StatusCode)
	}
	adminJSON(t, env, "GET", "/__admin/faults?account="+acct, "", 200, &list)
	if f := list.Faults[0]; f.Left != 1 || f.Used != 1 || f.LastUsedAt == nil {
		t.Fatalf("after one use: %+v", f)
	}
	env.Do(t, "GET", "/api/v1/patients", "")
	adminJSON(t, env, "GET", "/__admin/faults?account="+acct, "", 200, &list)
	if f := list.Faults[0]; len(list.Faults) != 1 || f.Left != 0 || f.Used != 2 || f.Times != 2 {
		t.Fatalf("used up, still listed: %+v", list.Faults)
	}
	other := env.NewKey(t, mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
	adminJSON(t, env, "GET", "/__admin/faults?account="+other.Account, "", 200, &list)
	if len(list.Faults) != 0 {
		t.Fatalf("another account's fault listed: %+v", list.Faults)
	}
	adminJSON(t, env, "DELETE", "/__admin/faults", "", 204, nil)
	adminJSON(t, env, "GET", "/__admin/faults", "", 200, &list)
	if len(list.Faults) != 0 {
		t.Fatalf("cleared, still listed: %+v", list.Faults)
	}
}

func TestAdminStubs(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	acct := env.Key.Account
	var st mockserver.StubState
	adminJSON(t, env, "POST", "/__admin/stubs", `{"account":"`+acct+`","route":"GET /api/v1/patients/{id}","status":200,
		"headers":{"X-Stubbed":"yes"},"body":{"id":"pat_00000000000000000000000000000001","stubbed":true},"times":1}`, 201, &st)
	if !strings.HasPrefix(st.ID, "stb_") || st.Method != "GET" || st.Route != "/api/v1/patients/{id}" || st.Left == nil || *st.Left != 1 {
		t.Fatalf("armed: %+v", st)
	}
	raw := func(method, path, body, key string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, env.URL+path, strings.NewReader(body))
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	// Authentication still comes first: no key, no stub.
	if resp, _ := raw("GET", "/api/v1/patients/pat_00000000000000000000000000000001", "", ""); resp.StatusCode != 401 {
		t.Fatalf("unauthenticated: %d", resp.StatusCode)
	}
	resp, body := raw("GET", "/api/v1/patients/pat_00000000000000000000000000000001", "", env.Key.Key)
	if resp.StatusCode != 200 || resp.Header.Get("X-Stubbed") != "yes" || !strings.Contains(body, `"stubbed":true`) ||
		resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("X-Request-Id") == "" {
		t.Fatalf("stubbed answer: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if resp, _ := raw("GET", "/api/v1/patients/pat_00000000000000000000000000000001", "", env.Key.Key); resp.StatusCode != 404 {
		t.Fatalf("a used-up stub still answers: %d", resp.StatusCode)
	}
	journal := env.Server.Requests(acct)
	if !slices.ContainsFunc(journal, func(e mockserver.JournalEntry) bool { return e.Stub == st.ID && e.Status == 200 }) {
		t.Fatalf("journal does not name the stub: %+v", journal)
	}

	// A stub of a write never reaches the store; exact paths and query values match.
	adminJSON(t, env, "POST", "/__admin/stubs", `{"method":"POST","path":"/api/v1/patients","status":201,"body":{"id":"pat_x"}}`, 201, nil)
	if resp, _ := raw("POST", "/api/v1/patients", `{"firstName":"A","lastName":"B","email":"a@example.com"}`, env.Key.Key); resp.StatusCode != 201 {
		t.Fatalf("stubbed create: %d", resp.StatusCode)
	}
	if n := env.Total(t, "/api/v1/patients"); n != 0 {
		t.Fatalf("a stubbed create reached the store: %d patients", n)
	}
	adminJSON(t, env, "POST", "/__admin/stubs", `{"method":"GET","route":"/api/v1/invoices","query":{"status":"open"},"status":503,"delayMs":10}`, 201, nil)
	if resp, _ := raw("GET", "/api/v1/invoices?status=open", "", env.Key.Key); resp.StatusCode != 503 {
		t.Fatalf("query stub: %d", resp.StatusCode)
	}
	if resp, _ := raw("GET", "/api/v1/invoices?status=paid", "", env.Key.Key); resp.StatusCode != 200 {
		t.Fatalf("query stub matched another value: %d", resp.StatusCode)
	}
	var list struct{ Stubs []mockserver.StubState }
	adminJSON(t, env, "GET", "/__admin/stubs?account="+acct, "", 200, &list)
	if len(list.Stubs) != 2 || list.Stubs[0].Used != 1 || list.Stubs[0].Left != nil || list.Stubs[0].LastUsedAt == nil {
		t.Fatalf("listed: %+v", list.Stubs)
	}
	adminJSON(t, env, "DELETE", "/__admin/stubs/"+list.Stubs[0].ID, "", 204, nil)
	adminJSON(t, env, "DELETE", "/__admin/stubs/"+list.Stubs[0].ID, "", 404, nil)
	adminJSON(t, env, "POST", "/__admin/reset", `{}`, 204, nil)
	if got := env.Server.Stubs(""); len(got) != 0 {
		t.Fatalf("reset left stubs: %+v", got)
	}

	// Every problem of a bad stub is named, and nothing is armed.
	resp2, b := env.Do(t, "POST", "/__admin/stubs", `{"method":"GET","route":"/api/v1/nothing","status":700,"body":"{","delayMs":999999,"headers":{"Content-Length":"1","bad name":"x"},"times":-1}`)
	testenv.ExpectFields(t, resp2, b, []string{"/delayMs out_of_range", "/headers/Content-Length invalid_value",
		"/headers/bad name invalid_format", "/route unknown_route", "/status out_of_range", "/times out_of_range"})
	if _, err := env.Server.AddStub(mockserver.Stub{Method: "GET", Path: "/api/v1/patients", Status: 200, Body: json.RawMessage(`{`)}); err == nil ||
		!strings.Contains(err.Error(), "JSON") && !strings.Contains(err.Error(), "invalid") {
		t.Fatalf("a body that is not JSON: %v", err)
	}
	if _, err := env.Server.AddStub(mockserver.Stub{Method: "PUT", Route: "/api/v1/patients", Status: 200}); err == nil {
		t.Fatal("an unknown method was armed")
	}
	if got := env.Server.Stubs(""); len(got) != 0 {
		t.Fatalf("bad stubs were armed: %+v", got)
	}
}

// receiver is a webhook receiver that records the events it gets and answers with the
// statuses of fail first (then 204).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	events []webhooks.Event
	sigs   []string
	fail   []int
}

func newReceiver(t *testing.T, fail ...int) *receiver {
	rc := &receiver{fail: fail}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var e webhooks.Event
		_ = json.NewDecoder(r.Body).Decode(&e)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		rc.events = append(rc.events, e)
		rc.sigs = append(rc.sigs, r.Header.Get("webhook-signature"))
		if len(rc.fail) > 0 {
			s := rc.fail[0]
			rc.fail = rc.fail[1:]
			w.WriteHeader(s)
			return
		}
		w.WriteHeader(204)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// wait waits until the receiver got an event of typ, and returns it.
func (rc *receiver) wait(t *testing.T, typ webhooks.EventType) webhooks.Event {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		rc.mu.Lock()
		for _, e := range rc.events {
			if e.Type == typ {
				rc.mu.Unlock()
				return e
			}
		}
		rc.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %s delivered", typ)
	return webhooks.Event{}
}

func TestAdminEventTriggers(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	acct := env.Key.Account
	rc := newReceiver(t)
	var ep struct{ ID string }
	if resp, b := env.Do(t, "POST", "/api/v1/webhooks", `{"url":"`+rc.URL+`","events":["*"]}`); resp.StatusCode != 201 || json.Unmarshal(b, &ep) != nil {
		t.Fatalf("webhook: %d %s", resp.StatusCode, b)
	}
	for _, typ := range webhooks.AllEventTypes() {
		var got struct {
			Records []struct{ Kind, ID, Action string }
			Events  []struct {
				ID   string
				Type webhooks.EventType
			}
		}
		adminJSON(t, env, "POST", "/__admin/events", `{"type":"`+string(typ)+`","account":"`+acct+`"}`, 201, &got)
		if len(got.Records) == 0 || !slices.ContainsFunc(got.Events, func(e struct {
			ID   string
			Type webhooks.EventType
		}) bool {
			return e.Type == typ
		}) {
			t.Fatalf("%s: %+v", typ, got)
		}
		if e := rc.wait(t, typ); e.ID == "" {
			t.Fatalf("%s delivered without an id", typ)
		}
	}
	// Given ids are used, not made.
	var made struct {
		Records []struct{ Kind, ID, Action string }
	}
	adminJSON(t, env, "POST", "/__admin/events", `{"type":"appointment.created","account":"`+acct+`"}`, 201, &made)
	apt := made.Records[len(made.Records)-1].ID
	adminJSON(t, env, "POST", "/__admin/events", `{"type":"appointment.cancelled","account":"`+acct+`","ids":{"appointmentId":"`+apt+`"}}`, 201, &made)
	if len(made.Records) != 1 || made.Records[0].ID != apt || made.Records[0].Action != "cancelled" {
		t.Fatalf("given appointment: %+v", made)
	}
	resp, b := env.Do(t, "POST", "/__admin/events", `{"type":"invoice.exploded","account":"`+acct+`","ids":{"invoiceId":"nope"}}`)
	testenv.ExpectFields(t, resp, b, []string{"/ids/invoiceId invalid_format", "/type invalid_value"})
	if !strings.Contains(string(b), "refund.created") {
		t.Errorf("the allowed types are not listed: %s", b)
	}
	resp, b = env.Do(t, "POST", "/__admin/events", `{"type":"patient.updated","account":"`+acct+`","ids":{"patientId":"pat_00000000000000000000000000000001"}}`)
	testenv.ExpectFields(t, resp, b, []string{"/ids/patientId not_found"})
}

func TestAdminDeliveryResend(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, nil)
	acct := env.Key.Account
	rc := newReceiver(t, 500)
	if resp, b := env.Do(t, "POST", "/api/v1/webhooks", `{"url":"`+rc.URL+`","events":["product.created"]}`); resp.StatusCode != 201 {
		t.Fatalf("webhook: %d %s", resp.StatusCode, b)
	}
	adminJSON(t, env, "POST", "/__admin/events", `{"type":"product.created","account":"`+acct+`"}`, 201, nil)
	type delivery struct {
		ID             string
		EventID        string
		Attempt        int
		StatusCode     int
		Delivered      bool
		Error          string
		NextAttemptAt  *time.Time
		RequestHeaders map[string]string
		ResendOf       string
	}
	var list struct{ Deliveries []delivery }
	deadline := time.Now().Add(10 * time.Second)
	for len(list.Deliveries) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		adminJSON(t, env, "GET", "/__admin/deliveries?account="+acct, "", 200, &list)
	}
	if len(list.Deliveries) != 1 {
		t.Fatalf("deliveries: %+v", list.Deliveries)
	}
	first := list.Deliveries[0]
	h := first.RequestHeaders
	if first.Delivered || first.StatusCode != 500 || first.Error != "status" || first.NextAttemptAt == nil || !strings.HasPrefix(first.ID, "dlv_") ||
		h["webhook-id"] != first.EventID || !strings.HasPrefix(h["webhook-signature"], "v1,") || h["webhook-timestamp"] == "" {
		t.Fatalf("failed attempt: %+v", first)
	}
	for k, v := range h {
		if strings.Contains(v, "whsec_") {
			t.Fatalf("a secret in header %s", k)
		}
	}
	var again delivery
	adminJSON(t, env, "POST", "/__admin/deliveries/"+first.ID+"/resend", `{"account":"`+acct+`"}`, 201, &again)
	if !again.Delivered || again.Attempt != 2 || again.ResendOf != first.ID || again.EventID != first.EventID || again.ID == first.ID {
		t.Fatalf("resend: %+v", again)
	}
	adminJSON(t, env, "GET", "/__admin/deliveries?account="+acct, "", 200, &list)
	if len(list.Deliveries) != 2 {
		t.Fatalf("after resend: %+v", list.Deliveries)
	}
	adminJSON(t, env, "POST", "/__admin/deliveries/dlv_999999/resend", `{}`, 404, nil)
}

func TestAdminStream(t *testing.T) {
	t.Parallel()
	srv, err := mockserver.New()
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	key, _ := srv.CreateAPIKey(mockserver.APIKeyParams{Plan: "enterprise", Scopes: []string{"*"}})
	resp, err := http.Get(ts.URL + "/__admin/stream?account=" + key.Account)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %v", resp.StatusCode, resp.Header)
	}
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	req, _ := http.NewRequest("POST", ts.URL+"/api/v1/patients", strings.NewReader(`{"firstName":"Grace","lastName":"Hopper","email":"grace.hopper@example.com"}`))
	req.Header.Set("Authorization", "Bearer "+key.Key)
	req.Header.Set("Content-Type", "application/json")
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	want := map[string]bool{"event: request": false, "event: audit": false}
	timeout := time.After(5 * time.Second)
	for !want["event: request"] || !want["event: audit"] {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("stream ended early")
			}
			if _, k := want[l]; k {
				want[l] = true
			}
			if strings.Contains(l, "Grace") || strings.Contains(l, "Hopper") || strings.Contains(l, "grace.hopper") {
				t.Errorf("PHI streamed: %s", l)
			}
		case <-timeout:
			t.Fatalf("not streamed: %v", want)
		}
	}
	// Close ends the stream.
	_ = srv.Close()
	for {
		select {
		case _, ok := <-lines:
			if !ok {
				return
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the stream outlived Close")
		}
	}
}

// A live stream outlives the server's read and write timeouts.
func TestAdminStreamOutlivesTimeouts(t *testing.T) {
	t.Parallel()
	srv, err := mockserver.New(mockserver.WithConnLimits(mockserver.ConnLimits{ReadTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.HTTPServer()
	go func() { _ = hs.Serve(srv.LimitListener(ln)) }()
	defer hs.Close()
	base := "http://" + ln.Addr().String()
	resp, err := http.Get(base + "/__admin/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	time.Sleep(time.Second) // past both timeouts
	r2, err := http.Get(base + "/api/v1/patients")
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the stream ended at the server's timeouts")
			}
			if l == "event: request" {
				return
			}
		case <-timeout:
			t.Fatal("nothing streamed")
		}
	}
}
