package medspa_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// clientName is an identifier of package client named in prose: users import medspa, and
// package client's names are the facade's (medspa.Set, medspa.ErrNotFound, …).
var clientName = regexp.MustCompile(`\bclient\.[A-Za-z*]`)

// TestDocsNameTheFacade: every doc comment of the facade and the area packages — of the
// package, its declarations, struct fields and specs — names what users import: medspa.X,
// never client.X.
func TestDocsNameTheFacade(t *testing.T) {
	t.Parallel()
	for _, dir := range append([]string{"."}, areaPackages...) {
		fset, files := parseDir(t, dir)
		for _, f := range files {
			check := func(cg *ast.CommentGroup) {
				if cg == nil {
					return
				}
				if m := clientName.FindString(cg.Text()); m != "" {
					t.Errorf("%s: a doc comment names %s…; name the facade's identifier (medspa.…): %q",
						fset.Position(cg.Pos()), m, firstLine(cg.Text(), m))
				}
			}
			check(f.Doc)
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.BlockStmt:
					return false // inside a function: not documentation
				case *ast.GenDecl:
					check(n.Doc)
				case *ast.FuncDecl:
					check(n.Doc)
				case *ast.TypeSpec:
					check(n.Doc)
					check(n.Comment)
				case *ast.ValueSpec:
					check(n.Doc)
					check(n.Comment)
				case *ast.Field:
					check(n.Doc)
					check(n.Comment)
				}
				return true
			})
		}
	}
}

// TestFacadeAliasesDocumentTheirFields: `go doc medspa.X` of an alias shows the alias's own
// comment and not the fields of client.X, so the comment of every struct alias names each of
// the struct's exported fields. The same holds for package client's aliases of the protocol's
// types in internal/wire (client.Date = wire.Date, client.Meta = wire.Meta).
func TestFacadeAliasesDocumentTheirFields(t *testing.T) {
	t.Parallel()
	fields := func(dir string) map[string][]string { // struct → its exported fields
		out := map[string][]string{}
		_, files := parseDir(t, dir)
		for _, f := range files {
			ast.Inspect(f, func(n ast.Node) bool {
				ts, ok := n.(*ast.TypeSpec)
				if !ok {
					return true
				}
				if st, ok := ts.Type.(*ast.StructType); ok && ts.Name.IsExported() {
					names := []string{}
					for _, fl := range st.Fields.List {
						for _, name := range fl.Names {
							if name.IsExported() {
								names = append(names, name.Name)
							}
						}
					}
					out[ts.Name.Name] = names
				}
				return false
			})
		}
		return out
	}
	wireFields := fields("internal/wire")
	for _, c := range []struct {
		dir     string              // the package of the aliases
		pkg     string              // the package they alias
		fields  map[string][]string // its structs
		atLeast int                 // aliases expected at least
	}{
		{".", "client", fields("client"), 10},
		{"client", "wire", wireFields, 2},
	} {
		aliases := 0
		_, files := parseDir(t, c.dir)
		for _, f := range files {
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.TYPE {
					continue
				}
				for _, s := range gd.Specs {
					ts := s.(*ast.TypeSpec)
					if !ts.Assign.IsValid() {
						continue
					}
					aliases++
					target := ts.Type
					if ix, ok := target.(*ast.IndexExpr); ok {
						target = ix.X
					}
					sel, ok := target.(*ast.SelectorExpr)
					if !ok {
						continue
					}
					pkg, _ := sel.X.(*ast.Ident)
					if pkg == nil || pkg.Name != c.pkg {
						continue
					}
					doc := ts.Doc
					if doc == nil {
						doc = gd.Doc
					}
					text := doc.Text()
					structFields, ok := c.fields[sel.Sel.Name]
					if !ok && c.pkg == "client" {
						structFields = wireFields[sel.Sel.Name] // medspa.Date = client.Date = wire.Date
					}
					for _, field := range structFields {
						if !regexp.MustCompile(`\b` + field + `\b`).MatchString(text) {
							t.Errorf("%s: alias %s: its doc comment does not name field %s of %s.%s", c.dir, ts.Name.Name, field, c.pkg, sel.Sel.Name)
						}
					}
				}
			}
		}
		if aliases < c.atLeast {
			t.Fatalf("found %d type aliases in %s; the parse is broken", aliases, c.dir)
		}
	}
}

// TestClientOnlyOptionsDoNotCompilePerCall: the options that describe the server and the
// transport are medspa.Option only — a call given one does not compile — while every other
// option is a medspa.RequestOption that a call and New both take, under one name.
func TestClientOnlyOptionsDoNotCompilePerCall(t *testing.T) {
	t.Parallel()
	check := typeChecker(t)
	for _, opt := range []string{
		`medspa.WithTimeouts(medspa.Timeouts{Dial: time.Second})`,
		`medspa.WithBaseURL("https://api.medspa.dev")`,
		`medspa.WithHTTPClient(http.DefaultClient)`,
		`medspa.WithClock(time.Now)`,
		`medspa.WithRootCAs(nil)`,
		`medspa.WithCAFile("ca.pem")`,
		`medspa.WithInsecurePlainHTTPHost("medspa-mock")`,
	} {
		err := check(`c.Patients.Get(ctx, "pat_1", ` + opt + `)`)
		if err == nil || !strings.Contains(err.Error(), "RequestOption") {
			t.Errorf("a call given %s: %v, want a compile error naming RequestOption", opt, err)
		}
		if err := check(`medspa.New(` + opt + `)`); err != nil {
			t.Errorf("New given %s: %v", opt, err)
		}
	}
	perCall := `medspa.WithHeader("X-Trace", "t"), medspa.WithIdempotencyKey("k"), medspa.WithMaxRetries(0),
		medspa.WithRetryWait(0, 0), medspa.WithMaxRetryAfter(time.Second), medspa.WithMaxResponseBytes(1), medspa.WithMaxPages(1),
		medspa.WithLogger(nil), medspa.WithUserAgent("a/1"), medspa.WithAPIKey("k"), medspa.WithTokenSource(nil),
		medspa.WithClientCredentials("id", "secret"), medspa.WithOAuth2(nil, nil), medspa.WithTokenRefreshHook(nil),
		medspa.WithSigning("key_1", "mss_x"), medspa.WithPlan(medspa.PlanStarter), medspa.WithRateLimit(1, 1)`
	for _, call := range []string{
		`c.Patients.Get(ctx, "pat_1", ` + perCall + `)`,
		`c.Do(ctx, http.MethodGet, medspa.Path("patients"), nil, nil, ` + perCall + `)`,
		`medspa.New(` + perCall + `, medspa.WithTimeouts(medspa.Timeouts{}))`,
	} {
		if err := check(call); err != nil {
			t.Errorf("%s: %v", call, err)
		}
	}
}

// typeChecker returns a function that type-checks one statement of a program that has
// c *medspa.Client and ctx, against the module's compiled packages (go list -export).
func typeChecker(t *testing.T) func(stmt string) error {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, file, _ := strings.Cut(line, "=")
		exports[path] = file
	}
	return func(stmt string) error {
		src := `package p
import ("context"; "net/http"; "time"; medspa "github.com/medspa/medspa-go")
var _, _ = http.MethodGet, time.Second
func f(ctx context.Context, c *medspa.Client) { ` + stmt + ` }
`
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "p.go", src, 0)
		if err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
		lookup := func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) }
		conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
		_, err = conf.Check("p", fset, []*ast.File{file}, nil)
		return err
	}
}

// parseDir parses the non-test Go files of dir, with comments.
func parseDir(t *testing.T, dir string) (*token.FileSet, []*ast.File) {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range matches {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	return fset, files
}

// firstLine returns the line of text holding m.
func firstLine(text, m string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, m) {
			return line
		}
	}
	return ""
}
