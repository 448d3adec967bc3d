package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// oneType names the concepts that have one type in the module, with the
// package that declares it and why: a second type of the same name in
// another layer is a copy that must be converted by hand wherever the two
// meet, and the copies drift (a JSON tag, a field).
var oneType = map[string]struct{ owner, why string }{
	"SystemInfo": {"internal/meta", "the system measured (product, version, URL, …): drivers report it, " +
		"the engines and roles record it in meta.json unconverted"},
}

// TestOneTypePerConcept: each type of oneType is declared (type or alias)
// by its owner's non-test files alone.
func TestOneTypePerConcept(t *testing.T) {
	decl := typeDeclarations(t)
	for name, c := range oneType {
		pkgs := decl[name]
		if !slices.Contains(pkgs, c.owner) {
			t.Errorf("%s declares no type %s: oneType names its owner", c.owner, name)
		}
		for _, p := range pkgs {
			if p != c.owner {
				t.Errorf("%s declares a type %s: use %s's (%s)", p, name, c.owner, c.why)
			}
		}
	}
	for _, p := range systemInfoCopies(t) {
		t.Error(p)
	}
}

// systemInfoCopies finds SystemInfo under another name: a struct type
// outside internal/meta with fields Product and Version, and a method
// returning a product and a version as two strings (the tuple that
// Client.Info() was).
func systemInfoCopies(t *testing.T) []string {
	t.Helper()
	var out []string
	walkSources(t, func(pkg string, fset *token.FileSet, f *ast.File) {
		out = append(out, infoCopies(pkg, fset, f)...)
	})
	return out
}

// infoCopies applies systemInfoCopies's rule to one file of pkg.
func infoCopies(pkg string, fset *token.FileSet, f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.StructType:
			fields := map[string]bool{}
			for _, fl := range n.Fields.List {
				for _, nm := range fl.Names {
					fields[nm.Name] = true
				}
			}
			if fields["Product"] && fields["Version"] && pkg != oneType["SystemInfo"].owner {
				out = append(out, fmt.Sprintf("%s: a struct with Product and Version: the system measured is internal/meta's SystemInfo (%s)", fset.Position(n.Pos()), oneType["SystemInfo"].why))
			}
		case *ast.FuncDecl:
			res := n.Type.Results
			if n.Recv == nil || res == nil || res.NumFields() != 2 {
				return true
			}
			var names []string
			for _, fl := range res.List {
				if id, ok := fl.Type.(*ast.Ident); !ok || id.Name != "string" {
					return true
				}
				for _, nm := range fl.Names {
					names = append(names, strings.ToLower(nm.Name))
				}
			}
			if slices.Equal(names, []string{"product", "version"}) {
				out = append(out, fmt.Sprintf("%s: %s returns a product and a version: return internal/meta's SystemInfo", fset.Position(n.Pos()), n.Name.Name))
			}
		}
		return true
	})
	return out
}

// TestInfoCopyRuleCatches: a renamed copy of SystemInfo and an Info
// method returning the tuple are caught; a struct with a Version alone and
// a plain function parsing a banner into two strings are not.
func TestInfoCopyRuleCatches(t *testing.T) {
	src := `package load
type BrokerInfo struct { Product, Version, URL string; Extra map[string]string }
type Release struct { Version string }
func (c *Client) Info() (product, version string) { return "", "" }
func parseBanner(raw string) (product, version string) { return "", "" }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "load.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := infoCopies("internal/load", fset, f)
	if len(got) != 2 || !strings.Contains(got[0], "load.go:2:") || !strings.Contains(got[1], "Info returns a product and a version") {
		t.Errorf("problems %q; want the struct on line 2 and the Info method", got)
	}
}

// typeDeclarations maps each type name declared at package level by a
// non-test file of the module to the packages (directories relative to
// the module root) that declare it.
func typeDeclarations(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	walkSources(t, func(pkg string, _ *token.FileSet, f *ast.File) {
		for _, dl := range f.Decls {
			g, ok := dl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				name := s.(*ast.TypeSpec).Name.Name
				if !slices.Contains(out[name], pkg) {
					out[name] = append(out[name], pkg)
				}
			}
		}
	})
	return out
}

// walkSources calls fn with each non-test Go file of the module (other
// modules, testdata and build output aside), parsed, and its package's
// directory relative to the module root.
func walkSources(t *testing.T, fn func(pkg string, fset *token.FileSet, f *ast.File)) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "target") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); path != root && err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.ToSlash(rel), src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		fn(filepath.ToSlash(filepath.Dir(rel)), fset, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
