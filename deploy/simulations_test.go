package deploy

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// simsRun is the -run pattern of make test's go test of the simulations
// and sweeps.
const simsRun = "-run '^Test(Sim|Sweep)'"

// simsLine is make test's go test of the simulations, from `make -n test`:
// it must run without the race detector.
var simsLine = regexp.MustCompile(`(?m)^.*go test .*` + regexp.QuoteMeta(simsRun) + `(.*)$`)

// TestMakeTestRunsEverySimulation: the statistical simulations and the
// sweeps are built only without the race detector (//go:build !race), so
// make test's go test -race leaves them out; its second go test, without
// -race, runs exactly them (-run '^Test(Sim|Sweep)') in the packages SIMS
// names. So every test runs once: each test of a file built only without
// -race is named TestSim… or TestSweep… in a package of SIMS, and no other
// file holds one.
func TestMakeTestRunsEverySimulation(t *testing.T) {
	out := makeDryRun(t, "", "test")
	m := simsLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("make -n test runs no go test %s (the simulations):\n%s", simsRun, out)
	}
	if strings.Contains(m[0], "-race") {
		t.Errorf("make test runs the simulations with the race detector: %s", m[0])
	}
	pkgs := strings.Fields(m[1])
	if len(pkgs) == 0 {
		t.Fatalf("make test's go test of the simulations names no package: %s", m[0])
	}
	list := exec.Command("go", append([]string{"list", "-f", "{{.Dir}}"}, pkgs...)...)
	list.Dir = ".."
	b, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(pkgs, " "), err, b)
	}
	sims := strings.Fields(string(b))

	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "target") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		noRace, tests, err := testFuncs(path)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		for _, name := range tests {
			sim := strings.HasPrefix(name, "TestSim") || strings.HasPrefix(name, "TestSweep")
			switch {
			case noRace && !sim:
				t.Errorf("%s: %s is built only without the race detector and is not named TestSim… or TestSweep…: make test would never run it", rel, name)
			case noRace && !slices.Contains(sims, filepath.Dir(path)):
				t.Errorf("%s: %s is a simulation in a package that make test's SIMS does not name: it would never run", rel, name)
			case !noRace && sim:
				t.Errorf("%s: %s is named TestSim… or TestSweep… in a file built with the race detector too: make test would run it twice (add //go:build !race, or rename it)", rel, name)
			case sim:
				found++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Error("no simulation found (files with //go:build !race holding TestSim… functions)")
	}
	t.Logf("%d simulations in %d packages run without -race: %s", found, len(sims), strings.Join(pkgs, " "))
}

// testFuncs parses the test file at path and returns whether it is built
// only without the race detector (it matches this machine's build context
// without the tag race and not with it), and the names of its Test
// functions.
func testFuncs(path string) (noRace bool, tests []string, err error) {
	dir, name := filepath.Split(path)
	with, without := build.Default, build.Default
	with.BuildTags = []string{"race"}
	inWith, err := with.MatchFile(dir, name)
	if err != nil {
		return false, nil, err
	}
	inWithout, err := without.MatchFile(dir, name)
	if err != nil {
		return false, nil, err
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return false, nil, err
	}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") && fn.Name.Name != "TestMain" {
			tests = append(tests, fn.Name.Name)
		}
	}
	return inWithout && !inWith, tests, nil
}
