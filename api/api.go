// Package api embeds the MedSpa API contract as OpenAPI 3.0.3 documents: the public API
// (openapi.yaml, served by the mock server at /api/v1/openapi.yaml and /api/v1/openapi.json)
// and the mock server's admin surface (admin-openapi.yaml).
//
// The documents are the machine-readable form of the project's wire contract. Tests validate
// traffic against them (see internal/testing/oapitest), and generators such as oapi-codegen can build
// clients from them.
package api

import (
	_ "embed"
	"sync"

	"github.com/oasdiff/yaml"
)

// OpenAPIYAML is the public API's OpenAPI 3.0.3 document, as YAML. Callers must not modify it.
//
//go:embed openapi.yaml
var OpenAPIYAML []byte

// AdminOpenAPIYAML is the OpenAPI 3.0.3 document of the mock server's /__admin surface, as YAML.
// Callers must not modify it.
//
//go:embed admin-openapi.yaml
var AdminOpenAPIYAML []byte

var openAPIJSON = sync.OnceValue(func() []byte {
	b, err := yaml.YAMLToJSON(OpenAPIYAML)
	if err != nil {
		// The document is embedded and checked by the tests; failing here is a build defect.
		panic("api: embedded openapi.yaml is not valid YAML: " + err.Error())
	}
	return b
})

// OpenAPIJSON returns the public API's OpenAPI document (OpenAPIYAML) converted to JSON.
// The conversion runs once; later calls return the same cached slice, which callers must
// not modify.
func OpenAPIJSON() []byte { return openAPIJSON() }
