package archtest

import (
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
}

// typeDeclarations maps each type name declared at package level by a
// non-test file of the module to the packages (directories relative to
// the module root) that declare it.
func typeDeclarations(t *testing.T) map[string][]string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
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
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
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
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
