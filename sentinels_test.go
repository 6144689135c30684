package medspa_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"testing"

	medspa "github.com/medspa/medspa-go"
	"github.com/medspa/medspa-go/internal/wire"
)

// TestSentinelsMatchTheErrorTable ties the SDK's error sentinels to internal/wire's table, the
// one list of the protocol's error codes: package client declares exactly one sentinel per code
// the public API answers (every code of the table but the mock-only ones) and ErrAPI, and the
// facade re-exports every one of them under the same name, so that a code added to the table
// cannot go without its medspa.Err* (docs/protocol.md §4).
func TestSentinelsMatchTheErrorTable(t *testing.T) {
	t.Parallel()
	declared := sentinelDecls(t) // name → code
	want := map[string]bool{"api_error": true}
	for _, c := range wire.ErrorCodes {
		if !c.MockOnly {
			want[c.Code] = true
		}
	}
	byCode := map[string][]string{}
	for name, code := range declared {
		byCode[code] = append(byCode[code], name)
	}
	for code := range want {
		if names := byCode[code]; len(names) != 1 {
			t.Errorf("code %s: sentinels %v in client/errors.go, want exactly one", code, names)
		}
	}
	for code, names := range byCode {
		if !want[code] {
			t.Errorf("sentinels %v: code %s is not a code of the public API in internal/wire's table", names, code)
		}
	}

	reexported := facadeReexports(t) // medspa name → client name
	for _, name := range slices.Sorted(maps.Keys(declared)) {
		if reexported[name] != name {
			t.Errorf("medspa does not re-export client.%s as %s", name, name)
		}
	}

	// And the facade's values behave: an answer with the code matches its sentinel and ErrAPI.
	for code, sentinel := range map[string]error{
		"invoice_not_voidable":      medspa.ErrInvoiceNotVoidable,
		"payment_not_refundable":    medspa.ErrPaymentNotRefundable,
		"amount_exceeds_refundable": medspa.ErrAmountExceedsRefundable,
	} {
		err := error(&medspa.Error{Code: code})
		if !errors.Is(err, sentinel) || !errors.Is(err, medspa.ErrAPI) || errors.Is(err, medspa.ErrInvoiceNotPayable) {
			t.Errorf("an *Error of code %s does not match %v alone", code, sentinel)
		}
	}
}

// sentinelDecls returns the sentinels of client/errors.go: `ErrX error = sentinel("code")`.
func sentinelDecls(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, vs := range varSpecs(t, "client/errors.go") {
		for i, name := range vs.Names {
			if i >= len(vs.Values) {
				continue
			}
			call, ok := vs.Values[i].(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				continue
			}
			if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "sentinel" {
				continue
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Fatalf("%s: sentinel of a non-literal", name.Name)
			}
			code, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			out[name.Name] = code
		}
	}
	if len(out) == 0 {
		t.Fatal("no sentinels found in client/errors.go")
	}
	return out
}

// facadeReexports returns the `X = client.Y` vars of medspa.go as X → Y.
func facadeReexports(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, vs := range varSpecs(t, "medspa.go") {
		for i, name := range vs.Names {
			if i >= len(vs.Values) {
				continue
			}
			sel, ok := vs.Values[i].(*ast.SelectorExpr)
			if x, isIdent := sel.X.(*ast.Ident); ok && isIdent && x.Name == "client" {
				out[name.Name] = sel.Sel.Name
			}
		}
	}
	return out
}

// varSpecs returns the package-level var specs of file.
func varSpecs(t *testing.T, file string) []*ast.ValueSpec {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []*ast.ValueSpec
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
			for _, s := range gd.Specs {
				out = append(out, s.(*ast.ValueSpec))
			}
		}
	}
	return out
}
