package api_test

import (
	"encoding/json"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/medspa/medspa-go/api"
	"github.com/medspa/medspa-go/internal/wire"
)

func TestDocumentsValidate(t *testing.T) {
	for name, doc := range map[string][]byte{"openapi.yaml": api.OpenAPIYAML, "admin-openapi.yaml": api.AdminOpenAPIYAML} {
		t.Run(name, func(t *testing.T) {
			l := openapi3.NewLoader()
			d, err := l.LoadFromData(doc)
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if d.OpenAPI != "3.0.3" {
				t.Errorf("openapi = %q, want 3.0.3", d.OpenAPI)
			}
			if err := d.Validate(t.Context()); err != nil {
				t.Fatalf("validate: %v", err)
			}
		})
	}
}

func TestOpenAPIJSON(t *testing.T) {
	b := api.OpenAPIJSON()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("OpenAPIJSON is not JSON: %v", err)
	}
	if m["openapi"] != "3.0.3" {
		t.Errorf("openapi = %v", m["openapi"])
	}
	if _, ok := m["paths"].(map[string]any)["/api/v1/patients"]; !ok {
		t.Error("paths lack /api/v1/patients")
	}
	if &api.OpenAPIJSON()[0] != &b[0] {
		t.Error("OpenAPIJSON is not cached")
	}
	d, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		t.Fatalf("load JSON: %v", err)
	}
	if err := d.Validate(t.Context()); err != nil {
		t.Fatalf("validate JSON: %v", err)
	}
}

func TestAdminOperations(t *testing.T) {
	d, err := openapi3.NewLoader().LoadFromData(api.AdminOpenAPIYAML)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []struct{ method, path string }{
		{"POST", "/__admin/api-keys"},
		{"DELETE", "/__admin/api-keys/{id}"},
		{"POST", "/__admin/api-keys/{id}/rotate"},
		{"POST", "/__admin/oauth-clients"},
		{"POST", "/__admin/reset"},
		{"POST", "/__admin/fixtures"},
		{"POST", "/__admin/snapshots"},
		{"POST", "/__admin/snapshots/{name}/restore"},
		{"GET", "/__admin/clock"},
		{"POST", "/__admin/clock"},
		{"POST", "/__admin/faults"},
		{"GET", "/__admin/requests"},
		{"GET", "/__admin/deliveries"},
		{"GET", "/__admin/audit-events"},
	} {
		item := d.Paths.Find(o.path)
		if item == nil || item.GetOperation(o.method) == nil {
			t.Errorf("%s %s missing", o.method, o.path)
		}
	}
	key := d.Components.Schemas["APIKey"].Value
	for _, f := range []string{"id", "key", "account", "signingSecret", "plan", "scopes", "allowedIps", "signingRequired", "expiresAt", "ratePerMinute", "burst", "daily"} {
		if key.Properties[f] == nil {
			t.Errorf("APIKey lacks %q", f)
		}
	}
	for schema, fields := range map[string][]string{
		"AuditLog":        {"events", "verified", "checkpoint", "hasMore"},
		"AuditCheckpoint": {"dropped", "hash"},
		"AuditEvent":      {"path"},
		"Delivery":        {"outcome", "error", "statusCode"},
		"FixturesRequest": {"payments", "refunds"},
		"FixturesResult":  {"payments", "refunds"},
		"APIKeyRotate":    {"graceSeconds"},
	} {
		s := d.Components.Schemas[schema]
		if s == nil {
			t.Errorf("schema %s missing", schema)
			continue
		}
		for _, f := range fields {
			if s.Value.Properties[f] == nil {
				t.Errorf("%s lacks %q", schema, f)
			}
		}
	}
	audit := d.Paths.Find("/__admin/audit-events").Get
	for _, name := range []string{"account", "after"} {
		if audit.Parameters.GetByInAndName("query", name) == nil {
			t.Errorf("GET /__admin/audit-events lacks ?%s=", name)
		}
	}
}

// TestAdminRules checks that the admin document states the rules of docs/protocol.md §12 on every
// operation: an optional admin token, 401 and 403 everywhere, 415 on every POST.
func TestAdminRules(t *testing.T) {
	t.Parallel()
	d, err := openapi3.NewLoader().LoadFromData(api.AdminOpenAPIYAML)
	if err != nil {
		t.Fatal(err)
	}
	if s := d.Components.SecuritySchemes["adminToken"]; s == nil || s.Value.Type != "http" || s.Value.Scheme != "bearer" {
		t.Errorf("adminToken security scheme = %+v, want http bearer", s)
	}
	var anonymous, token bool
	for _, req := range d.Security {
		anonymous = anonymous || len(req) == 0
		_, ok := req["adminToken"]
		token = token || ok
	}
	if !anonymous || !token {
		t.Errorf("security = %v, want the admin token optional ({} and adminToken)", d.Security)
	}
	for path, item := range d.Paths.Map() {
		if path == "/healthz" || path == "/readyz" { // no credentials, no admin rules
			if op := item.Get; op == nil || op.Security == nil || len(*op.Security) != 0 {
				t.Errorf("GET %s: want security: []", path)
			}
			continue
		}
		for method, op := range item.Operations() {
			want := []int{401, 403}
			if method == "POST" {
				want = append(want, 415)
			}
			for _, code := range want {
				if op.Responses.Status(code) == nil {
					t.Errorf("%s %s: response %d not documented", method, path, code)
				}
			}
			if op.Security != nil {
				t.Errorf("%s %s overrides the document's security", method, path)
			}
		}
	}
}

// eventObject is the data object of an event type: its part before the first dot.
func eventObject(typ string) string {
	obj, _, _ := strings.Cut(typ, ".")
	return obj
}

// TestEventTypesAgree ties every list of event types to docs/protocol.md §9: the EventType enum,
// the subscription selector (the same plus "*"), and the EventData mapping (one data schema per
// event object).
func TestEventTypesAgree(t *testing.T) {
	t.Parallel()
	proto, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	para := regexp.MustCompile(`(?s)\nEvent types: (.*?)\n\n`).FindSubmatch(proto)
	if para == nil {
		t.Fatal(`docs/protocol.md has no "Event types:" paragraph`)
	}
	var want []string
	for _, m := range regexp.MustCompile("`([a-z_]+\\.[a-z_]+)`").FindAllSubmatch(para[1], -1) {
		want = append(want, string(m[1]))
	}
	if !slices.Contains(want, "refund.created") || !slices.Contains(want, "invoice.voided") {
		t.Fatalf("event types parsed from docs/protocol.md = %q", want)
	}
	d, err := openapi3.NewLoader().LoadFromData(api.OpenAPIYAML)
	if err != nil {
		t.Fatal(err)
	}
	enum := func(schema string) []string {
		var out []string
		for _, v := range d.Components.Schemas[schema].Value.Enum {
			out = append(out, v.(string))
		}
		return out
	}
	if got := enum("EventType"); !slices.Equal(got, want) {
		t.Errorf("EventType enum = %q, docs/protocol.md §9 lists %q", got, want)
	}
	if got := enum("WebhookEventSelector"); !slices.Equal(got, append(slices.Clone(want), "*")) {
		t.Errorf("WebhookEventSelector enum = %q, want the event types of docs/protocol.md §9 and \"*\"", got)
	}
	mapping := d.Components.Schemas["EventData"].Value.Discriminator.Mapping
	objects := map[string]bool{}
	for _, typ := range want {
		obj := eventObject(typ)
		objects[obj] = true
		if _, ok := mapping[obj]; !ok {
			t.Errorf("event %s: EventData has no mapping for object %q", typ, obj)
		}
	}
	for obj := range mapping {
		if !objects[obj] {
			t.Errorf("EventData maps object %q, which no event type carries", obj)
		}
	}
}

// TestIDPatternsUseKnownPrefixes checks every id pattern of both documents against
// internal/wire's table of id prefixes (docs/protocol.md §2).
func TestIDPatternsUseKnownPrefixes(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	for p := range maps.Values(wire.IDPrefixes) {
		known[p] = true
	}
	idPattern := regexp.MustCompile(`\^([a-z]+)_\[0-9a-f\]\{32\}\$`)
	seen := map[string]bool{}
	for name, doc := range map[string][]byte{"openapi.yaml": api.OpenAPIYAML, "admin-openapi.yaml": api.AdminOpenAPIYAML} {
		for _, m := range idPattern.FindAllSubmatch(doc, -1) {
			p := string(m[1])
			seen[p] = true
			if !known[p] {
				t.Errorf("%s: id pattern with prefix %q, which internal/wire.IDPrefixes lacks", name, p)
			}
		}
	}
	for _, p := range []string{"ref", "aud", "key"} {
		if !seen[p] {
			t.Errorf("no id pattern uses the prefix %q", p)
		}
	}
}

// TestRevenueMetrics pins the revenue report's metrics (docs/protocol.md §9) in the JSON rows, the
// totals and the CSV header, in the protocol's order.
func TestRevenueMetrics(t *testing.T) {
	t.Parallel()
	metrics := []string{"collected", "payments", "invoiced", "invoices", "refunded", "net"}
	d, err := openapi3.NewLoader().LoadFromData(api.OpenAPIYAML)
	if err != nil {
		t.Fatal(err)
	}
	for schema, want := range map[string][]string{
		"RevenueReportRow":    append([]string{"key"}, metrics...),
		"RevenueReportTotals": metrics,
	} {
		got := slices.Sorted(maps.Keys(d.Components.Schemas[schema].Value.Properties))
		if !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Errorf("%s properties = %q, want %q", schema, got, want)
		}
	}
	csv := d.Paths.Find("/api/v1/reports/revenue").Get.Responses.Status(200).Value.Content["text/csv"].Schema.Value.Description
	if header := "`key," + strings.Join(metrics, ",") + "`"; !strings.Contains(csv, header) {
		t.Errorf("revenue CSV description does not state the header %s:\n%s", header, csv)
	}
	if net := d.Components.Schemas["RevenueReportRow"].Value.Properties["net"].Value; net.Min != nil {
		t.Errorf("net has a minimum (%v): collected − refunded can be negative", *net.Min)
	}
}

// TestErrorCodesMatchTable ties the code list of the Problem schema to internal/wire's error-code
// table, the one list the SDK and the mock server take their codes from.
func TestErrorCodesMatchTable(t *testing.T) {
	t.Parallel()
	d, err := openapi3.NewLoader().LoadFromData(api.OpenAPIYAML)
	if err != nil {
		t.Fatal(err)
	}
	prob := d.Components.Schemas["Problem"]
	if prob == nil || prob.Value.Properties["code"] == nil {
		t.Fatal("no components.schemas.Problem.properties.code")
	}
	desc := prob.Value.Properties["code"].Value.Description
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(desc, -1) {
		listed[m[1]] = true
	}
	for _, c := range wire.ErrorCodes {
		if c.MockOnly {
			if listed[c.Code] {
				t.Errorf("openapi.yaml lists the mock-only code %s", c.Code)
			}
			continue
		}
		if !listed[c.Code] {
			t.Errorf("openapi.yaml's Problem.code does not list %s", c.Code)
		}
		delete(listed, c.Code)
	}
	for c := range listed {
		t.Errorf("openapi.yaml lists %s, which internal/wire's table lacks", c)
	}
}
