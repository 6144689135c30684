package mockserver_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/medspa/medspa-go/api"
	"github.com/medspa/medspa-go/mockserver"
)

// adminSchema checks values against a schema of api/admin-openapi.yaml.
var adminSchema = sync.OnceValues(func() (*openapi3.T, error) {
	return openapi3.NewLoader().LoadFromData(api.AdminOpenAPIYAML)
})

func checkAdminSchema(t *testing.T, schema string, body []byte) {
	t.Helper()
	doc, err := adminSchema()
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("not JSON: %s", body)
	}
	if err := doc.Components.Schemas[schema].Value.VisitJSON(v); err != nil {
		t.Fatalf("answer is not a %s: %v\n%s", schema, err, body)
	}
}

// auditPage is GET /__admin/audit-events over HTTP, checked against the admin document.
func auditPage(t *testing.T, url, query string) mockserver.AuditPage {
	t.Helper()
	status, _, body := get(t, url+"/__admin/audit-events?"+query)
	if status != 200 {
		t.Fatalf("audit-events?%s: %d %s", query, status, body)
	}
	checkAdminSchema(t, "AuditLog", body)
	var p mockserver.AuditPage
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAuditRetentionAndCheckpoint(t *testing.T) {
	t.Parallel()
	s := newServer(t, mockserver.WithAuditRetention(20))
	ts := httptest.NewServer(s)
	defer ts.Close()
	k := newKey(t, s, "")
	var ids []string
	for range 30 {
		status, _, body := rawHTTP(t, ts.URL, k.Key, "GET", "/api/v1/patients", "")
		if status != 200 {
			t.Fatal(status, string(body))
		}
	}
	p := auditPage(t, ts.URL, "account="+k.Account)
	if len(p.Events) != 20 || !p.Verified || p.HasMore || p.Checkpoint.Dropped != 10 ||
		p.Events[0].PrevHash != p.Checkpoint.Hash || p.Checkpoint.Hash == strings.Repeat("0", 64) {
		t.Fatalf("kept %d, verified %v, checkpoint %+v", len(p.Events), p.Verified, p.Checkpoint)
	}
	if !mockserver.VerifyAuditChainFrom(p.Checkpoint.Hash, p.Events) || mockserver.VerifyAuditChain(p.Events) {
		t.Error("the Go verifiers disagree with the checkpoint")
	}
	for _, e := range p.Events {
		ids = append(ids, e.ID)
	}
	// Paging from memory: after the 5th kept event, the 15 that follow.
	q := auditPage(t, ts.URL, "account="+k.Account+"&after="+ids[4])
	if len(q.Events) != 15 || q.Events[0].ID != ids[5] || q.HasMore || !q.Verified {
		t.Fatalf("page after a kept event: %d events, more %v, verified %v", len(q.Events), q.HasMore, q.Verified)
	}
	// Without a data directory the events that left memory are gone: their ids are 404, the zero
	// id starts at the oldest kept.
	if status, _, body := get(t, ts.URL+"/__admin/audit-events?account="+k.Account+"&after=aud_0123456789abcdef0123456789abcdef"); status != 404 {
		t.Errorf("unknown id: %d %s", status, body)
	}
	if status, _, body := get(t, ts.URL+"/__admin/audit-events?account="+k.Account+"&after=pat_1"); status != 422 ||
		!strings.Contains(string(body), `"pointer":"after"`) {
		t.Errorf("malformed after: %d %s", status, body)
	}
	if z := auditPage(t, ts.URL, "account="+k.Account+"&after="+mockserver.AuditZeroID); len(z.Events) != 20 || z.Events[0].ID != ids[0] {
		t.Errorf("zero id without -data: %d events", len(z.Events))
	}
	// Nothing dropped: 0 and 64 zeros.
	other := newKey(t, s, "")
	if c := auditPage(t, ts.URL, "account="+other.Account).Checkpoint; c.Dropped != 0 || c.Hash != strings.Repeat("0", 64) {
		t.Errorf("empty chain's checkpoint %+v", c)
	}
}

// TestAnonymousAuditRing: requests with no valid credential land in the _anonymous ring, with
// their path (cut, PHI redacted), no actor, a null resource id, and never a query or a secret.
func TestAnonymousAuditRing(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	ts := httptest.NewServer(s)
	defer ts.Close()
	secret := "msk_test_" + strings.Repeat("Z", 32)
	long := "/api/v1/patients/" + strings.Repeat("pat_0123456789abcdef0123456789abcdef/", 12)
	paths := []string{
		"/api/v1/patients/jane.doe@example.com?email=jane.doe@example.com", // PHI in the path and the query
		long,
		"/api/v1/patients/pat_0123456789abcdef0123456789abcdef",
	}
	for _, p := range paths {
		if status, _, body := rawHTTP(t, ts.URL, secret, "GET", p, ""); status != 401 {
			t.Fatal(status, string(body))
		}
	}
	for _, q := range []string{"account=_anonymous", ""} {
		status, _, body := get(t, ts.URL+"/__admin/audit-events?"+q)
		if status != 200 {
			t.Fatal(status, string(body))
		}
		checkAdminSchema(t, "AuditLog", body)
		for _, leak := range []string{"jane", "example.com", "email", secret, "ZZZZ"} {
			if strings.Contains(string(body), leak) {
				t.Errorf("?%s: the anonymous ring holds %q: %s", q, leak, body)
			}
		}
		var raw struct {
			Events []map[string]any `json:"events"`
		}
		_ = json.Unmarshal(body, &raw)
		if len(raw.Events) != 3 {
			t.Fatalf("%d anonymous events", len(raw.Events))
		}
		for _, e := range raw.Events {
			if v, ok := e["resourceId"]; !ok || v != nil || e["actor"] != "" || e["outcome"] != "denied" {
				t.Errorf("anonymous event %v", e)
			}
		}
		if p := raw.Events[0]["path"]; p != "/api/v1/patients/{redacted}" {
			t.Errorf("path with PHI kept as %v", p)
		}
		if p, _ := raw.Events[1]["path"].(string); len(p) > 256 || !strings.HasPrefix(long, p) || len(p) < 200 {
			t.Errorf("long path kept as %q", p)
		}
	}
	p := s.AuditLog("")
	if len(p.Events) != 3 || !p.Verified || p.Checkpoint.Dropped != 0 {
		t.Fatalf("AuditLog(\"\"): %+v", p)
	}
}

// TestNoPHIInResourceID: a denied request of a known credential keeps a path segment as the
// resource id only when it has the shape of a server id.
func TestNoPHIInResourceID(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	k, err := s.CreateAPIKey(mockserver.APIKeyParams{Plan: "starter", Scopes: []string{"billing:read"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/api/v1/patients/jane_doe@example.com", "/api/v1/appointments/jane_doe@example.com", "/api/v1/patients/pat_0123456789abcdef0123456789abcdef"} {
		if status, _, body := raw(t, s, k.Key, "GET", p, ""); status != 403 {
			t.Fatal(p, status, string(body))
		}
	}
	ev := s.AuditEvents(k.Account)
	if len(ev) != 3 {
		t.Fatalf("%d events", len(ev))
	}
	b, _ := json.Marshal(ev)
	if strings.Contains(string(b), "jane") || strings.Contains(string(b), "example") {
		t.Fatalf("PHI in the audit log: %s", b)
	}
	if ev[0].ResourceID != "" || ev[0].Action != "read" || ev[2].ResourceID != "pat_0123456789abcdef0123456789abcdef" {
		t.Errorf("events %+v", ev)
	}
}

// TestAuditFileBeforeAnswer: under a data directory, an audited request's event is in the
// account's audit file when its answer arrives; a restart loads the newest events and the
// checkpoint, and paging reads every event there ever was.
func TestAuditFileBeforeAnswer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := mockserver.New(mockserver.WithDataDir(dir), mockserver.WithAuditRetention(50))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	k := newKey(t, s, "")
	segment := func() string {
		b, err := os.ReadFile(filepath.Join(dir, "data.db"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const n = 1234
	for i := range n {
		method, path := "GET", "/api/v1/patients"
		if i%100 == 99 {
			method, path = "GET", "/api/v1/patients/pat_0123456789abcdef0123456789abcdef" // 404: not audited
		}
		status, h, body := rawHTTP(t, ts.URL, k.Key, method, path, "")
		if method == "GET" && status == 200 && i%97 == 0 {
			if !strings.Contains(segment(), h.Get("X-Request-Id")) {
				t.Fatalf("request %d answered before its audit event was in the file", i)
			}
		}
		if status >= 500 {
			t.Fatal(status, string(body))
		}
	}
	// A denial with a known credential is audited in the file too; an anonymous one is not.
	if status, h, _ := rawHTTP(t, ts.URL, k.Key, "GET", "/api/v1/patients", "", "Authorization: Bearer nope"); status != 401 ||
		strings.Contains(segment(), h.Get("X-Request-Id")) {
		t.Fatalf("anonymous denial: %d, in the file: %v", status, strings.Contains(segment(), h.Get("X-Request-Id")))
	}
	before := s.AuditLog(k.Account)
	ts.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := mockserver.New(mockserver.WithDataDir(dir), mockserver.WithAuditRetention(50))
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, err := mockserver.New(mockserver.WithDataDir(dir)); err == nil {
		t.Fatal("two servers opened one data directory")
	}
	ts2 := httptest.NewServer(s2)
	defer ts2.Close()
	after := s2.AuditLog(k.Account)
	if len(after.Events) != 50 || after.Checkpoint != before.Checkpoint || after.Events[49] != before.Events[49] || !after.Verified {
		t.Fatalf("after restart: %d events, %+v (before %+v)", len(after.Events), after.Checkpoint, before.Checkpoint)
	}
	var all []mockserver.AuditEvent
	for next := mockserver.AuditZeroID; ; {
		p := auditPage(t, ts2.URL, "account="+k.Account+"&after="+next)
		if !p.Verified || len(p.Events) > 1000 {
			t.Fatalf("page after %s: verified %v, %d events", next, p.Verified, len(p.Events))
		}
		all = append(all, p.Events...)
		if !p.HasMore {
			break
		}
		next = p.Events[len(p.Events)-1].ID
	}
	if want := n - n/100; len(all) != want || !mockserver.VerifyAuditChain(all) || all[len(all)-1] != before.Events[49] {
		t.Fatalf("paged %d events from the file, want %d, verifying from the start", len(all), want)
	}
	if e, ok := s2.AuditEventsAfter(k.Account, all[10].ID); ok != nil || len(e.Events) != 1000 || e.Events[0] != all[11] {
		t.Fatalf("AuditEventsAfter: %v", ok)
	}
	if _, err := s2.AuditEventsAfter(k.Account, fmt.Sprintf("aud_%032x", 7)); err != mockserver.ErrAuditEventNotFound {
		t.Fatalf("unknown id: %v", err)
	}
}
