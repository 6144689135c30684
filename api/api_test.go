package api_test

import (
	"encoding/json"
	"regexp"
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
