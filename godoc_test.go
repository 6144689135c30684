package medspa_test

import (
	"go/ast"
	"go/doc"
	"strconv"
	"strings"
	"testing"
)

// TestGoDocIsACompleteReference holds `go doc` of the facade, package client and every area
// package to what a reader needs: every exported identifier documented, no option that is a
// bare var (go doc shows no documentation for `var WithX = client.WithX`), and no type of an
// internal package in an exported signature or field (a reader could not name it), except as
// the target of an alias that names it (client.Date = wire.Date).
func TestGoDocIsACompleteReference(t *testing.T) {
	t.Parallel()
	for _, dir := range append([]string{".", "client"}, areaPackages...) {
		fset, files := parseDir(t, dir)
		pkg, err := doc.NewFromFiles(fset, files, "github.com/medspa/medspa-go/"+dir)
		if err != nil {
			t.Fatal(err)
		}
		undocumented := func(what, doc string) {
			if strings.TrimSpace(doc) == "" {
				t.Errorf("%s: %s has no doc comment", dir, what)
			}
		}
		values := func(vs []*doc.Value, kind string) {
			for _, v := range vs {
				undocumented(kind+" "+strings.Join(v.Names, ", "), v.Doc)
				for _, name := range v.Names {
					if kind == "var" && strings.HasPrefix(name, "With") {
						t.Errorf("%s: option %s is a var; make it a documented func", dir, name)
					}
				}
			}
		}
		values(pkg.Consts, "const")
		values(pkg.Vars, "var")
		for _, f := range pkg.Funcs {
			undocumented("func "+f.Name, f.Doc)
		}
		for _, typ := range pkg.Types {
			undocumented("type "+typ.Name, typ.Doc)
			values(typ.Consts, "const")
			values(typ.Vars, "var")
			for _, f := range typ.Funcs {
				undocumented("func "+f.Name, f.Doc)
			}
			for _, m := range typ.Methods {
				undocumented("method "+typ.Name+"."+m.Name, m.Doc)
			}
		}

		// No exported signature or field names a type of an internal package.
		for _, f := range files {
			internal := map[string]string{} // local name → path
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if !strings.Contains(path, "/internal/") {
					continue
				}
				name := path[strings.LastIndex(path, "/")+1:]
				if imp.Name != nil {
					name = imp.Name.Name
				}
				internal[name] = path
			}
			check := func(where string, n ast.Node) {
				if n == nil {
					return
				}
				ast.Inspect(n, func(n ast.Node) bool {
					if sel, ok := n.(*ast.SelectorExpr); ok {
						if id, ok := sel.X.(*ast.Ident); ok && internal[id.Name] != "" {
							t.Errorf("%s: %s shows %s.%s of %s", dir, where, id.Name, sel.Sel.Name, internal[id.Name])
						}
					}
					return true
				})
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Name.IsExported() && (d.Recv == nil || exportedReceiver(d.Recv)) {
						check("func "+d.Name.Name, d.Type)
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						ts, ok := s.(*ast.TypeSpec)
						if !ok || !ts.Name.IsExported() {
							continue
						}
						if ts.Assign.IsValid() {
							// An alias is the name a reader uses for a type of an internal package
							// (client.Date = wire.Date); TestFacadeAliasesDocumentTheirFields holds
							// its comment to the fields go doc does not show.
							continue
						}
						if st, ok := ts.Type.(*ast.StructType); ok {
							for _, field := range st.Fields.List {
								if len(field.Names) == 0 || field.Names[0].IsExported() {
									check("type "+ts.Name.Name, field.Type)
								}
							}
							continue
						}
						check("type "+ts.Name.Name, ts.Type)
					}
				}
			}
		}
	}
}

// exportedReceiver reports a method of an exported type.
func exportedReceiver(recv *ast.FieldList) bool {
	typ := recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if idx, ok := typ.(*ast.IndexExpr); ok {
		typ = idx.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}
