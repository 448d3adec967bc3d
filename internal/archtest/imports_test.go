package archtest

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/mqgate/mqgate"

// graph maps each package of the module (import path) to the packages its
// non-test files import directly. Every build-tagged variant counts: a rule
// must hold on every platform.
func graph(t *testing.T) map[string][]string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found: %v", err)
	}
	g := map[string][]string{}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "target") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); path != root && err == nil {
				return filepath.SkipDir // another module (examples/: services under test)
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := module
		if rel != "." {
			pkg += "/" + filepath.ToSlash(rel)
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if !slices.Contains(g[pkg], p) {
				g[pkg] = append(g[pkg], p)
			}
		}
		if _, ok := g[pkg]; !ok {
			g[pkg] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// deps returns every package pkg depends on, directly or through packages
// of the module (packages outside it are leaves here).
func deps(g map[string][]string, pkg string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, d := range g[p] {
			if !seen[d] {
				seen[d] = true
				walk(d)
			}
		}
	}
	walk(pkg)
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

func internal(name string) string { return module + "/internal/" + name }

// under reports whether pkg is prefix or a package below it.
func under(pkg, prefix string) bool { return pkg == prefix || strings.HasPrefix(pkg, prefix+"/") }

func isStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// TestCommandLineLayer: urfave/cli is the command-line layer's alone; the
// libraries behind it take plain configuration structs.
func TestCommandLineLayer(t *testing.T) {
	g := graph(t)
	for pkg, imports := range g {
		if !slices.Contains(imports, "github.com/urfave/cli/v2") {
			continue
		}
		if !under(pkg, internal("cliapp")) { // cliapp and cliapp/<tool>cmd
			t.Errorf("%s imports urfave/cli: only the command-line layer (internal/cliapp/...) may", pkg)
		}
	}
	// A library never reaches the command-line layer, even indirectly.
	for _, lib := range []string{"process", "exit", "flagrange", "numflag", "stats", "gate", "meta", "result", "experiment", "measurements", "plots"} {
		for _, d := range deps(g, internal(lib)) {
			if d == "github.com/urfave/cli/v2" || under(d, internal("cliapp")) {
				t.Errorf("internal/%s depends on %s: a library must not depend on the command line", lib, d)
			}
		}
	}
}

// TestCommandsAreThin: cmd/<tool> imports the command-line layer and
// nothing of the work itself.
func TestCommandsAreThin(t *testing.T) {
	g := graph(t)
	for pkg, imports := range g {
		if !under(pkg, module+"/cmd") {
			continue
		}
		for _, im := range imports {
			if !isStd(im) && !under(im, internal("cliapp")) {
				t.Errorf("%s imports %s: a command is its main function, the rest lives in internal/", pkg, im)
			}
		}
	}
}

// TestLeafPackages: the packages every other one builds on depend on the
// standard library only (and on each other), so that reading a file or
// reporting an error never pulls in a plot, a driver or a broker client.
func TestLeafPackages(t *testing.T) {
	g := graph(t)
	leaves := []string{"exit", "fileerr", "atomicfile", "csvfile", "parallel", "result", "stats"}
	for _, leaf := range leaves {
		if _, ok := g[internal(leaf)]; !ok {
			t.Errorf("internal/%s: no such package (update the rule)", leaf)
			continue
		}
		for _, d := range deps(g, internal(leaf)) {
			if isStd(d) {
				continue
			}
			if !slices.ContainsFunc(leaves, func(l string) bool { return d == internal(l) }) {
				t.Errorf("internal/%s depends on %s: a leaf package uses the standard library and other leaves only", leaf, d)
			}
		}
	}
}

// TestExperimentReadsResults: the results-folder reader depends on the
// result model, meta.json and the raw file names only, never on what
// measures or plots them.
func TestExperimentReadsResults(t *testing.T) {
	g := graph(t)
	allowed := []string{"result", "meta", "measurements", "exit", "fileerr", "atomicfile", "csvfile", "parallel", "stats"}
	for _, d := range deps(g, internal("experiment")) {
		if under(d, module) && !slices.ContainsFunc(allowed, func(a string) bool { return d == internal(a) }) {
			t.Errorf("internal/experiment depends on %s: it may use %s only", d, strings.Join(allowed, ", "))
		}
	}
}

// TestNoUpwardImports: a package never imports a tool package (the six
// tools and the command-line layer sit on top; nothing builds on them but
// the commands and the measuring programs of scripts/).
func TestNoUpwardImports(t *testing.T) {
	g := graph(t)
	top := []string{"runapp", "requirementsapp", "check", "compare", "history", "process", "cliapp"}
	for pkg, imports := range g {
		if under(pkg, module+"/cmd") || under(pkg, module+"/scripts") {
			continue // programs on top: the commands, and the scripts that measure the tools
		}
		for _, im := range imports {
			for _, tp := range top {
				if !under(im, internal(tp)) || under(pkg, internal(tp)) {
					continue
				}
				if under(pkg, internal("cliapp")) || under(pkg, internal("e2e")) {
					continue
				}
				t.Errorf("%s imports %s: nothing below the tools builds on a tool", strings.TrimPrefix(pkg, module+"/"), im)
			}
		}
	}
}
