package medspa_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// areaPackages are the SDK's area packages, each with its services.
var areaPackages = []string{"patients", "appointments", "billing", "inventory", "reports", "webhooks"}

// packageExamples parses dir's test files and returns its examples by name.
func packageExamples(t *testing.T, dir string) map[string]*doc.Example {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	matches, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range matches {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	out := map[string]*doc.Example{}
	for _, ex := range doc.Examples(files...) {
		out["Example"+ex.Name] = ex
	}
	return out
}

// serviceMethods returns "Type_Method" for every exported method of every exported type of
// dir whose name ends in Service.
func serviceMethods(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, name := range matches {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !fn.Name.IsExported() {
				continue
			}
			recv := fn.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			if id, ok := recv.(*ast.Ident); ok && strings.HasSuffix(id.Name, "Service") {
				out = append(out, id.Name+"_"+fn.Name.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestEveryServiceMethodHasAnExample: every method of every area service has a runnable
// Example (Example<Service>_<Method>, or with a _suffix) whose output is checked, and no
// example of an area package goes unchecked — so pkg.go.dev and `go doc -http` show a worked
// call for each, and `go test` keeps them true.
func TestEveryServiceMethodHasAnExample(t *testing.T) {
	t.Parallel()
	for _, dir := range areaPackages {
		examples := packageExamples(t, dir)
		methods := serviceMethods(t, dir)
		if len(methods) == 0 {
			t.Errorf("%s: no service methods found", dir)
		}
		for _, m := range methods {
			found := false
			for name, ex := range examples {
				if (name == "Example"+m || strings.HasPrefix(name, "Example"+m+"_")) && ex.Output != "" {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no Example%s with checked output", dir, m)
			}
		}
		for name, ex := range examples {
			if ex.Output == "" && !ex.EmptyOutput {
				t.Errorf("%s: %s has no // Output: and is never run", dir, name)
			}
		}
	}

	// The facade: the quickstart and the options a first hour needs, each run and checked.
	root := packageExamples(t, ".")
	for _, name := range []string{"Example", "ExampleWithClock", "ExampleWithSigning", "ExampleWithClientCredentials",
		"ExampleWithOAuth2", "ExampleWithTokenRefreshHook", "ExampleWithLogger", "ExampleWithPlan", "ExampleError",
		"ExampleResponse", "ExampleClient_Do"} {
		if ex, ok := root[name]; !ok || ex.Output == "" {
			t.Errorf("medspa: no %s with checked output", name)
		}
	}
}
