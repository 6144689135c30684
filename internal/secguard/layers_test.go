package secguard

// The import rules of ARCHITECTURE.md ("Layers"): which layers of the module may import which,
// checked over every package's non-test files.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/medspa/medspa-go"

// pkg is one package of the module as its non-test files say: what they import, and the
// selectors they use of each import (http.MethodGet is "net/http" → "MethodGet").
type pkg struct {
	path      string // relative to the module root ("" for the root package)
	imports   map[string]bool
	selectors map[string]map[string]bool
}

// loadModule parses the imports of every package of the module (not testdata, not hidden).
func loadModule(t *testing.T) map[string]*pkg {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	pkgs := map[string]*pkg{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		p := pkgs[rel]
		if p == nil {
			p = &pkg{path: rel, imports: map[string]bool{}, selectors: map[string]map[string]bool{}}
			pkgs[rel] = p
		}
		names := map[string]string{} // local name → import path
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			p.imports[ip] = true
			local := ip[strings.LastIndex(ip, "/")+1:]
			if im.Name != nil {
				local = im.Name.Name
			}
			names[local] = ip
		}
		full, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(full, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok {
					if ip, ok := names[id.Name]; ok {
						if p.selectors[ip] == nil {
							p.selectors[ip] = map[string]bool{}
						}
						p.selectors[ip][sel.Sel.Name] = true
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 20 {
		t.Fatalf("found %d packages: the walk went wrong", len(pkgs))
	}
	return pkgs
}

// internal reports whether an import path is one of the module's packages (rel: its path in the
// module), and which.
func internal(ip string) (rel string, ok bool) {
	if ip == module {
		return "", true
	}
	rel, ok = strings.CutPrefix(ip, module+"/")
	return rel, ok
}

func stdlib(ip string) bool {
	first, _, _ := strings.Cut(ip, "/")
	return !strings.Contains(first, ".")
}

// under reports whether rel is dir or inside it.
func under(rel, dir string) bool { return rel == dir || strings.HasPrefix(rel, dir+"/") }

var areas = []string{"patients", "appointments", "billing", "inventory", "reports", "webhooks"}

// The import rules of ARCHITECTURE.md ("Layers").
func TestImportRules(t *testing.T) {
	t.Parallel()
	pkgs := loadModule(t)
	for _, p := range pkgs {
		for ip := range p.imports {
			rel, inModule := internal(ip)
			refuse := func(why string) { t.Errorf("%s imports %s: %s", show(p.path), ip, why) }
			switch {
			// Nothing imports the mock server but the programs and test support that run it.
			case inModule && under(rel, "mockserver") && !under(p.path, "mockserver") &&
				!under(p.path, "cmd") && !under(p.path, "examples") && !under(p.path, "bench") && p.path != "internal/testing/testenv":
				refuse("only cmd, examples, bench and internal/testing/testenv (and tests) may import the mock server")
			// The protocol facts depend on nothing of the module.
			case p.path == "internal/wire" && !stdlib(ip):
				refuse("internal/wire imports only the standard library")
			// RFC 9421/9530 code: the standard library and the protocol facts.
			case p.path == "internal/httpsig" && !stdlib(ip) && ip != module+"/internal/wire":
				refuse("internal/httpsig imports only the standard library and internal/wire")
			// The SDK engine knows no area and no facade.
			case p.path == "client" && inModule && (slices.ContainsFunc(areas, func(a string) bool { return under(rel, a) }) || rel == ""):
				refuse("client is below the areas and the facade")
			// Areas stand side by side on the engine.
			case slices.Contains(areas, p.path) && inModule && (rel == "" || slices.Contains(areas, rel) && rel != p.path):
				refuse("an area imports the engine (client) and internal packages, never another area or the facade")
			// The mock's store knows no HTTP.
			case p.path == "mockserver/internal/store" && (ip == "net/http" || strings.HasPrefix(ip, "net/http/") ||
				inModule && under(rel, "mockserver") && !slices.Contains([]string{"mockserver/internal/clock"}, rel)):
				refuse("the store imports no HTTP and, of the mock, only its clock")
			// The mock's support packages are leaves.
			case slices.Contains([]string{"mockserver/internal/auth", "mockserver/internal/clock", "mockserver/internal/jsonx",
				"mockserver/internal/problem", "mockserver/internal/audit"}, p.path) && inModule && under(rel, "mockserver") &&
				rel != "mockserver/internal/jsonx" && (p.path != "mockserver/internal/audit" || rel != "mockserver/internal/durable"):
				refuse("auth, clock, jsonx, problem and audit use nothing else of the mock (audit: jsonx, and durable for its files)")
			// The durable log is a leaf: it knows nothing of the mock.
			case p.path == "mockserver/internal/durable" && inModule:
				refuse("durable imports nothing of the module")
			// Webhook delivery sits beside the HTTP layer, not on it.
			case p.path == "mockserver/internal/webhook" && inModule && (rel == "mockserver" || under(rel, "mockserver/internal/httpapi")):
				refuse("the webhook dispatcher knows the store, not the HTTP layer")
			// The data directory keeps the parts; it never sees a request.
			case p.path == "mockserver/internal/persist" && inModule && (rel == "mockserver" || under(rel, "mockserver/internal/httpapi")):
				refuse("the data directory engine knows the parts it keeps, not the HTTP layer")
			// Internal packages never reach up to the public mock package.
			case under(p.path, "mockserver/internal") && rel == "mockserver":
				refuse("the mock's internal packages never import package mockserver")
			}
		}
	}
}

// Areas other than the webhook receiver kit never send, receive or see an HTTP request: of
// net/http they use the method names only (DESIGN.md: "area packages never touch net/http").
func TestAreasUseNetHTTPForMethodNamesOnly(t *testing.T) {
	t.Parallel()
	pkgs := loadModule(t)
	for _, a := range areas {
		p := pkgs[a]
		if p == nil {
			t.Errorf("area %s not found", a)
			continue
		}
		if a == "webhooks" {
			continue // the receiver kit is an http.Handler by design
		}
		for name := range p.selectors["net/http"] {
			if !strings.HasPrefix(name, "Method") {
				t.Errorf("%s uses http.%s: an area uses net/http for method names only", a, name)
			}
		}
	}
}

func show(path string) string {
	if path == "" {
		return module
	}
	return path
}
