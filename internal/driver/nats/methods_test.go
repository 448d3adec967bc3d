package nats

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEndsImplementOnlyTheirInterfaces: every exported method of an end
// (an unexported type declared to implement driver interfaces by a
// `var _ driver.X = (*end)(nil)` line) is a method of one of those
// interfaces, so that an end holds no method nothing calls through the
// driver layer.
func TestEndsImplementOnlyTheirInterfaces(t *testing.T) {
	ifaces := driverInterfaces(t)
	declared := map[string][]string{} // end type -> driver interfaces
	methods := map[string][]string{}  // end type -> exported methods
	for _, f := range parseDir(t, ".") {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					vs, ok := spec.(*ast.ValueSpec)
					if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "_" || len(vs.Values) != 1 {
						continue
					}
					sel, ok := vs.Type.(*ast.SelectorExpr)
					if !ok || sel.X.(*ast.Ident).Name != "driver" {
						continue
					}
					if typ := assertedType(vs.Values[0]); typ != "" {
						declared[typ] = append(declared[typ], sel.Sel.Name)
					}
				}
			case *ast.FuncDecl:
				if d.Recv == nil || !d.Name.IsExported() {
					continue
				}
				if typ := recvType(d.Recv.List[0].Type); typ != "" && !ast.IsExported(typ) {
					methods[typ] = append(methods[typ], d.Name.Name)
				}
			}
		}
	}
	if len(declared) < 8 {
		t.Fatalf("found %d ends declaring driver interfaces: the test reads `var _ driver.X = (*end)(nil)` lines", len(declared))
	}
	for typ, names := range declared {
		var allowed []string
		for _, in := range names {
			ms, ok := ifaces[in]
			if !ok {
				t.Fatalf("driver.%s: no such interface in package driver", in)
			}
			allowed = append(allowed, ms...)
		}
		for _, m := range methods[typ] {
			if !slices.Contains(allowed, m) {
				t.Errorf("%s.%s is a method of none of the driver interfaces %s declares (%s)", typ, m, typ, strings.Join(names, ", "))
			}
		}
	}
}

// assertedType returns T of (*T)(nil) or T{}.
func assertedType(e ast.Expr) string {
	switch v := e.(type) {
	case *ast.CallExpr:
		if p, ok := v.Fun.(*ast.ParenExpr); ok {
			if s, ok := p.X.(*ast.StarExpr); ok {
				if id, ok := s.X.(*ast.Ident); ok {
					return id.Name
				}
			}
		}
	case *ast.CompositeLit:
		if id, ok := v.Type.(*ast.Ident); ok {
			return id.Name
		}
	}
	return ""
}

// recvType returns the name of a receiver's type.
func recvType(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// stdInterfaces are the methods of the interfaces from outside package
// driver that its interfaces embed.
var stdInterfaces = map[string][]string{"io.Closer": {"Close"}}

// driverInterfaces returns the method names of each interface of package
// driver, embedded interfaces included.
func driverInterfaces(t *testing.T) map[string][]string {
	t.Helper()
	raw := map[string]*ast.InterfaceType{}
	for _, f := range parseDir(t, "..") {
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if it, ok := ts.Type.(*ast.InterfaceType); ok {
					raw[ts.Name.Name] = it
				}
			}
			return true
		})
	}
	var names func(it *ast.InterfaceType) []string
	names = func(it *ast.InterfaceType) []string {
		var out []string
		for _, m := range it.Methods.List {
			switch typ := m.Type.(type) {
			case *ast.FuncType:
				for _, n := range m.Names {
					out = append(out, n.Name)
				}
			case *ast.Ident:
				if in, ok := raw[typ.Name]; ok {
					out = append(out, names(in)...)
				}
			case *ast.SelectorExpr:
				if m, ok := stdInterfaces[typ.X.(*ast.Ident).Name+"."+typ.Sel.Name]; ok {
					out = append(out, m...)
				} else {
					t.Fatalf("package driver embeds %s.%s: add its methods to stdInterfaces", typ.X, typ.Sel.Name)
				}
			}
		}
		return out
	}
	out := map[string][]string{}
	for n, it := range raw {
		out[n] = names(it)
	}
	return out
}

// parseDir parses the non-test Go files of dir.
func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}
