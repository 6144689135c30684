package secguard

// The layers of ARCHITECTURE.md: the guard reads the table of its "Layers" section and holds
// every package of the module to it (its non-test files; tests may import anything).

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/medspa/medspa-go"

// pkg is one package of the module as its non-test files say: what they import, and the
// selectors they use of each import (http.MethodGet is "net/http" → "MethodGet").
type pkg struct {
	path      string // relative to the module root ("" for the root package)
	imports   []string
	selectors map[string]map[string]bool
}

// loadModule reads every package of the module: each directory holding Go files (test files
// too: a package of tests only is a package), not testdata, not hidden. Build constraints apply
// as `go build` applies them.
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
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		bp, err := build.ImportDir(path, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		p := &pkg{path: rel, imports: bp.Imports, selectors: map[string]map[string]bool{}}
		pkgs[rel] = p
		return p.readSelectors(path, bp.GoFiles)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 40 {
		t.Fatalf("found %d packages: the walk went wrong", len(pkgs))
	}
	return pkgs
}

// readSelectors notes which names of each import the files use.
func (p *pkg) readSelectors(dir string, files []string) error {
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return err
		}
		names := map[string]string{} // local name → import path
		for _, im := range f.Imports {
			ip := strings.Trim(im.Path.Value, `"`)
			local := ip[strings.LastIndex(ip, "/")+1:]
			if im.Name != nil {
				local = im.Name.Name
			}
			names[local] = ip
		}
		ast.Inspect(f, func(n ast.Node) bool {
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
	}
	return nil
}

// layer is one row of the table.
type layer struct {
	name     string
	packages []string // the module's packages in the row
	anything bool     // "anything": the row may import anything
	stdlib   bool     // "the standard library": from outside the module, only it and what allow names
	allow    []name   // may import
	never    []name   // never imports
}

// name is a backticked name of a cell: packages of the module, or an import path outside it.
type name struct {
	text     string
	pkgs     []string // the module's packages it names
	external string   // or: an import path outside the module (it and the paths below it)
}

// matches reports whether the import path ip is named.
func (n name) matches(ip string) bool {
	if rel, ok := inModule(ip); ok {
		return slices.Contains(n.pkgs, rel)
	}
	return n.external != "" && (ip == n.external || strings.HasPrefix(ip, n.external+"/"))
}

var backticked = regexp.MustCompile("`([^`]*)`")

// parseLayers reads the table of the "## Layers" section of md (ARCHITECTURE.md); paths lists
// the module's packages. A backticked name in the last three columns is a layer of the table
// (its packages), `medspa` (the module root), a package of the module (`a/...` a subtree,
// `a/{b,c}` several), or, in "may import" and "never", an import path outside the module; a
// name that is none of these is an error, so the table names no package that does not exist.
func parseLayers(md string, paths []string) ([]layer, error) {
	_, section, ok := strings.Cut(md, "\n## Layers\n")
	if !ok {
		return nil, fmt.Errorf("no \"## Layers\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var rows [][]string
	for line := range strings.SplitSeq(section, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break // the end of the table
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 4 {
			return nil, fmt.Errorf("table row %q: want 4 columns (layer, packages, may import, never)", line)
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if strings.Trim(cells[0], "-") == "" || cells[0] == "layer" {
			continue // the header and its rule
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no table in the Layers section")
	}
	layers := make([]layer, len(rows))
	byName := map[string][]string{}
	for i, r := range rows {
		layers[i].name = r[0]
		for _, text := range names(r[1]) {
			n, err := resolve(text, nil, paths)
			if err != nil || n.external != "" {
				return nil, fmt.Errorf("layer %q: packages: %q names no package of the module", r[0], text)
			}
			layers[i].packages = append(layers[i].packages, n.pkgs...)
		}
		if len(layers[i].packages) == 0 {
			return nil, fmt.Errorf("layer %q has no package", r[0])
		}
		byName[r[0]] = layers[i].packages
	}
	for i, r := range rows {
		l := &layers[i]
		prose := backticked.ReplaceAllString(r[2], "")
		l.anything = strings.Contains(prose, "anything")
		l.stdlib = strings.Contains(prose, "standard library")
		var err error
		if l.allow, err = resolveAll(r[2], byName, paths); err != nil {
			return nil, fmt.Errorf("layer %q: may import: %w", r[0], err)
		}
		if l.never, err = resolveAll(r[3], byName, paths); err != nil {
			return nil, fmt.Errorf("layer %q: never: %w", r[0], err)
		}
		for _, n := range l.never {
			for _, p := range n.pkgs {
				if slices.ContainsFunc(l.allow, func(a name) bool { return slices.Contains(a.pkgs, p) }) {
					return nil, fmt.Errorf("layer %q both allows and forbids %s", r[0], show(p))
				}
			}
		}
	}
	return layers, nil
}

// resolveAll resolves the backticked names of a cell.
func resolveAll(cell string, layers map[string][]string, paths []string) ([]name, error) {
	var out []name
	for _, text := range names(cell) {
		n, err := resolve(text, layers, paths)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// names returns the backticked names of a cell.
func names(cell string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// resolve finds what a backticked name names (see parseLayers): layers maps a layer's name to
// its packages, paths lists the module's packages.
func resolve(text string, layers map[string][]string, paths []string) (name, error) {
	if pkgs, ok := layers[text]; ok {
		return name{text: text, pkgs: pkgs}, nil
	}
	if text == "medspa" {
		return name{text: text, pkgs: []string{""}}, nil
	}
	n := name{text: text}
	for _, pattern := range expand(text) {
		dir, tree := strings.CutSuffix(pattern, "/...")
		found := false
		for _, p := range paths {
			if p == dir || tree && strings.HasPrefix(p, dir+"/") {
				n.pkgs = append(n.pkgs, p)
				found = true
			}
		}
		if !found {
			if len(expand(text)) == 1 && !tree && outside(text) {
				return name{text: text, external: text}, nil
			}
			return name{}, fmt.Errorf("%q names no package of the module (%s), the standard library or another module", text, pattern)
		}
	}
	return n, nil
}

// expand expands one {a,b,…} of a name: "x/{a,b}" is x/a and x/b.
func expand(text string) []string {
	pre, rest, ok := strings.Cut(text, "{")
	alts, post, ok2 := strings.Cut(rest, "}")
	if !ok || !ok2 {
		return []string{text}
	}
	var out []string
	for a := range strings.SplitSeq(alts, ",") {
		out = append(out, pre+strings.TrimSpace(a)+post)
	}
	return out
}

// outside reports an import path outside the module: another module's (a dot in its first
// element) or a package of the standard library.
func outside(ip string) bool {
	first, _, _ := strings.Cut(ip, "/")
	if strings.Contains(first, ".") {
		return true
	}
	bp, err := build.Import(ip, "", build.FindOnly)
	return err == nil && bp.Goroot
}

// inModule reports whether an import path is one of the module's packages (rel: its path in the
// module), and which.
func inModule(ip string) (rel string, ok bool) {
	if ip == module {
		return "", true
	}
	return strings.CutPrefix(ip, module+"/")
}

// stdlib reports an import path of the standard library (no dot in its first element).
func stdlib(ip string) bool {
	first, _, _ := strings.Cut(ip, "/")
	return !strings.Contains(first, ".")
}

// check returns every way the packages break the table: a package in no row or in two, an
// import of the module that its row does not allow, an import its row forbids, and, for a row
// limited to the standard library, any other import from outside the module.
func check(layers []layer, pkgs map[string]*pkg) []string {
	var errs []string
	for _, path := range modulePaths(pkgs) {
		p := pkgs[path]
		var rows []*layer
		for i := range layers {
			if slices.Contains(layers[i].packages, path) {
				rows = append(rows, &layers[i])
			}
		}
		switch {
		case len(rows) == 0:
			errs = append(errs, fmt.Sprintf("%s is in no row of the layers table", show(path)))
			continue
		case len(rows) > 1:
			errs = append(errs, fmt.Sprintf("%s is in two rows of the layers table: %q and %q", show(path), rows[0].name, rows[1].name))
			continue
		}
		l := rows[0]
		for _, ip := range p.imports {
			named := func(n name) bool { return n.matches(ip) }
			_, own := inModule(ip)
			switch {
			case slices.ContainsFunc(l.never, named):
				errs = append(errs, fmt.Sprintf("%s imports %s: layer %q never imports it", show(path), ip, l.name))
			case l.anything || slices.ContainsFunc(l.allow, named):
			case own:
				errs = append(errs, fmt.Sprintf("%s imports %s: layer %q may import, of the module, only %s", show(path), ip, l.name, list(l.allow)))
			case l.stdlib && !stdlib(ip):
				errs = append(errs, fmt.Sprintf("%s imports %s: layer %q imports from outside the module only the standard library and what it names", show(path), ip, l.name))
			}
		}
	}
	return errs
}

func list(ns []name) string {
	var texts []string
	for _, n := range ns {
		texts = append(texts, n.text)
	}
	if len(texts) == 0 {
		return "nothing"
	}
	return strings.Join(texts, ", ")
}

// modulePaths lists the packages' paths.
func modulePaths(pkgs map[string]*pkg) []string {
	var out []string
	for p := range pkgs {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// architecture parses the layers table of the repository's ARCHITECTURE.md.
func architecture(t *testing.T, pkgs map[string]*pkg) []layer {
	t.Helper()
	md, err := os.ReadFile("../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	layers, err := parseLayers(string(md), modulePaths(pkgs))
	if err != nil {
		t.Fatalf("ARCHITECTURE.md, Layers: %v", err)
	}
	return layers
}

// TestImportRules holds every package of the module to ARCHITECTURE.md's layers table.
func TestImportRules(t *testing.T) {
	t.Parallel()
	pkgs := loadModule(t)
	for _, e := range check(architecture(t, pkgs), pkgs) {
		t.Error(e)
	}
}

// webhooksHandler is the one area whose package is an http.Handler: the webhook receiver kit.
const webhooksHandler = "webhooks"

// TestAreasUseNetHTTPForMethodNamesOnly: areas other than the webhook receiver kit never send,
// receive or see an HTTP request (ARCHITECTURE.md, Layers: "net/http beyond method names"); of
// net/http they use the method names only. The areas are the table's row "areas".
func TestAreasUseNetHTTPForMethodNamesOnly(t *testing.T) {
	t.Parallel()
	pkgs := loadModule(t)
	layers := architecture(t, pkgs)
	i := slices.IndexFunc(layers, func(l layer) bool { return l.name == "areas" })
	if i < 0 {
		t.Fatal(`ARCHITECTURE.md's layers table has no row "areas"`)
	}
	areas := layers[i].packages
	if !slices.Contains(areas, webhooksHandler) || len(areas) < 6 {
		t.Fatalf("areas = %q: the table's row went wrong", areas)
	}
	for _, a := range areas {
		if a == webhooksHandler {
			continue // the receiver kit is an http.Handler by design
		}
		for name := range pkgs[a].selectors["net/http"] {
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

// TestLayerCheckerRefuses: the checker itself, on a small table of its own: each case changes
// one thing of a module that keeps the table, and the checker names it.
func TestLayerCheckerRefuses(t *testing.T) {
	t.Parallel()
	const md = "# Architecture\n\n## Layers\n\nprose\n\n" +
		"| layer | packages | may import | never |\n|---|---|---|---|\n" +
		"| leaf | `leaf` | the standard library only | — |\n" +
		"| middle | `mid/{a,b}` (two) | `leaf` | each other, `top` |\n" +
		"| top | `top` | `mid/...`, `leaf` | `net/http` |\n" +
		"| programs | `cmd/...` | anything | `internal/testing/...` |\n" +
		"| test support | `internal/testing/...` | anything | — |\n\n## Next\n"
	base := func() map[string]*pkg {
		pkgs := map[string]*pkg{}
		for path, imports := range map[string][]string{
			"leaf": {"fmt"}, "mid/a": {"strings", module + "/leaf"}, "mid/b": {module + "/leaf"},
			"top": {module + "/mid/a", module + "/mid/b", "github.com/other/lib"}, "cmd/x": {module + "/top"},
			"internal/testing/env": {module + "/top", module + "/cmd/x"},
		} {
			pkgs[path] = &pkg{path: path, imports: imports}
		}
		return pkgs
	}
	for _, c := range []struct {
		name   string
		change func(map[string]*pkg)
		want   string // in the one error; "" none
	}{
		{"the module keeps the table", func(map[string]*pkg) {}, ""},
		{"an import not allowed", func(p map[string]*pkg) { p["mid/a"].imports = append(p["mid/a"].imports, module+"/mid/b") },
			`mid/a imports ` + module + `/mid/b: layer "middle" may import, of the module, only leaf`},
		{"an arrow up", func(p map[string]*pkg) { p["leaf"].imports = append(p["leaf"].imports, module+"/top") },
			`leaf imports ` + module + `/top: layer "leaf" may import, of the module, only nothing`},
		{"a forbidden package of the module", func(p map[string]*pkg) { p["mid/b"].imports = append(p["mid/b"].imports, module+"/top") },
			`mid/b imports ` + module + `/top: layer "middle" never imports it`},
		{"a forbidden standard package, below the name", func(p map[string]*pkg) { p["top"].imports = append(p["top"].imports, "net/http/httptest") },
			`top imports net/http/httptest: layer "top" never imports it`},
		{"another module where only the standard library may be", func(p map[string]*pkg) { p["leaf"].imports = append(p["leaf"].imports, "github.com/other/lib") },
			`leaf imports github.com/other/lib: layer "leaf" imports from outside the module only the standard library`},
		{"anything but what never names", func(p map[string]*pkg) {
			p["cmd/x"].imports = append(p["cmd/x"].imports, module+"/internal/testing/env")
		},
			`cmd/x imports ` + module + `/internal/testing/env: layer "programs" never imports it`},
		{"a package in no row", func(p map[string]*pkg) { p["stray"] = &pkg{path: "stray"} },
			`stray is in no row of the layers table`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pkgs := base()
			c.change(pkgs)
			layers, err := parseLayers(md, modulePaths(pkgs))
			if err != nil {
				t.Fatal(err)
			}
			errs := check(layers, pkgs)
			if c.want == "" && len(errs) > 0 || c.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], c.want)) {
				t.Errorf("errors %q, want one with %q", errs, c.want)
			}
		})
	}
	for _, c := range []struct{ name, md, want string }{
		{"no section", "# Architecture\n", `no "## Layers" section`},
		{"a name of nothing", strings.Replace(md, "`leaf` | the standard", "`leaf`, `lef` | the standard", 1), `"lef" names no package`},
		{"a name of nothing in a set", strings.Replace(md, "`mid/{a,b}`", "`mid/{a,c}`", 1), `"mid/{a,c}" names no package`},
		{"a row at odds with itself", strings.Replace(md, "each other, `top`", "`leaf`", 1), `layer "middle" both allows and forbids leaf`},
		{"a missing column", strings.Replace(md, "| leaf | `leaf` | the standard library only | — |", "| leaf | `leaf` | — |", 1), `want 4 columns`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseLayers(c.md, modulePaths(base()))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one with %q", err, c.want)
			}
		})
	}
}

// TestArchitectureTableRefusesWrongImports: ARCHITECTURE.md's own table, with the module as it
// is but for one deliberately wrong import (or an unplaced package), fails.
func TestArchitectureTableRefusesWrongImports(t *testing.T) {
	t.Parallel()
	pkgs := loadModule(t)
	for _, c := range []struct{ from, to string }{
		{"mockserver/internal/store", "client"},
		{"mockserver/internal/httpapi", "client"},
		{"mockserver/internal/store", "mockserver/internal/httpapi"},
		{"mockserver/internal/webhook", "internal/testing/testenv"},
		{"mockserver/internal/jsonx", "mockserver/internal/store"},
		{"client", "patients"},
		{"patients", "billing"},
		{"", "mockserver"},
		{"cmd/medspa-mock", "internal/testing/testenv"},
		{"internal/wire", "internal/safetext"},
		{"internal/wire", "github.com/google/uuid"},
		{"api", "internal/wire"},
		{"internal/safetext", "github.com/google/uuid"},
		{"mockserver/internal/durable", "internal/wire"},
		{"mockserver/internal/store", "net/http"},
	} {
		changed := map[string]*pkg{}
		for path, p := range pkgs {
			changed[path] = p
		}
		if changed[c.from] == nil {
			t.Fatalf("no package %s", show(c.from))
		}
		to := c.to
		if !strings.Contains(to, ".") && !strings.HasPrefix(to, "net/") {
			to = module + "/" + to
		}
		p := *changed[c.from]
		p.imports = append(slices.Clone(p.imports), to)
		changed[c.from] = &p
		if errs := check(architecture(t, changed), changed); len(errs) != 1 || !strings.HasPrefix(errs[0], show(c.from)+" imports "+to+": ") {
			t.Errorf("%s importing %s: errors %q, want one", show(c.from), to, errs)
		}
	}
	changed := map[string]*pkg{"mockserver/internal/newpart": {path: "mockserver/internal/newpart"}}
	for path, p := range pkgs {
		changed[path] = p
	}
	if errs := check(architecture(t, changed), changed); len(errs) != 1 || !strings.Contains(errs[0], "mockserver/internal/newpart is in no row") {
		t.Errorf("an unplaced package: errors %q", errs)
	}
}
