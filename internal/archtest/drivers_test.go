package archtest

import (
	"fmt"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestDriversStayBelow: drivers move bytes; the engines, roles and tools
// that measure over them sit above and are never imported by them, even
// indirectly.
func TestDriversStayBelow(t *testing.T) {
	g := graph(t)
	above := []string{"engine", "roles", "runapp", "session", "load", "throughput", "permessage", "burst", "cliapp"}
	for pkg := range g {
		if !under(pkg, internal("driver")) {
			continue
		}
		for _, d := range deps(g, pkg) {
			if slices.ContainsFunc(above, func(a string) bool { return under(d, internal(a)) }) {
				t.Errorf("%s depends on %s: a driver depends on nothing above the driver layer", pkg, d)
			}
		}
	}
}

// registration is the file whose blank imports register the systems: the
// one line a new system adds outside its own package.
const registration = "internal/runapp/transports.go"

// shared are the modules a driver may import although packages outside
// the drivers import them too, each with why: they are no system's client.
var shared = map[string]string{
	"github.com/HdrHistogram/hdrhistogram-go": "the latency histogram encoding: the Zenoh helper reports in it, load and roles record in it",
}

// reachesSystem are the packages outside the drivers that import a
// registered system's package directly, each with why (every other one
// reaches systems through the registry).
var reachesSystem = map[[2]string]string{
	{internal("session"), internal("driver/udp")}:          "takes the default of the reliable-UDP flags from it",
	{internal("session"), internal("driver/secure")}:       "generates the run's test certificates",
	{module + "/tools/certgen", internal("driver/secure")}: "writes the test certificates to files",
}

// TestOneDriverPerClientLibrary: each messaging system's client library is
// imported by one driver alone (the bench programs aside, which measure the
// client libraries bare). A client library is any module outside the
// standard library that a package of internal/driver/<system>/ imports:
// the owners come from the imports, so a new driver and its library are
// held by this rule with no edit here.
func TestOneDriverPerClientLibrary(t *testing.T) {
	for _, p := range clientLibraryProblems(graph(t), requiredModules(t), shared) {
		t.Error(p)
	}
}

// TestSystemsThroughRegistry: a registered system's package (every blank
// import of the registration file) is imported only by the registration,
// by other drivers, and by the packages listed in reachesSystem; its
// sub-packages are its own.
func TestSystemsThroughRegistry(t *testing.T) {
	systems := registered(t)
	if len(systems) < 4 {
		t.Fatalf("%s registers %d systems: the rule reads its blank imports", registration, len(systems))
	}
	for _, p := range registryProblems(graph(t), systems, reachesSystem) {
		t.Error(p)
	}
}

// driverRoot returns internal/driver/<name> for a package at or below it,
// or "" for a package outside the drivers (and for internal/driver itself).
func driverRoot(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, internal("driver")+"/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return internal("driver/" + name)
}

// moduleOf returns the module of import path p among mods (the longest that
// holds it), or p itself.
func moduleOf(p string, mods []string) string {
	best := ""
	for _, m := range mods {
		if under(p, m) && len(m) > len(best) {
			best = m
		}
	}
	if best == "" {
		return p
	}
	return best
}

// clientLibraryProblems applies the one-importer rule to g: every module
// (of mods, or an import path outside them) that a driver package imports,
// shared ones aside, has all its importers below one driver root, the
// bench programs aside.
func clientLibraryProblems(g map[string][]string, mods []string, shared map[string]string) []string {
	importers := map[string]map[string]bool{} // module -> importing packages
	for pkg, imports := range g {
		if under(pkg, module+"/bench") {
			continue
		}
		for _, im := range imports {
			if isStd(im) || under(im, module) {
				continue
			}
			m := moduleOf(im, mods)
			if importers[m] == nil {
				importers[m] = map[string]bool{}
			}
			importers[m][pkg] = true
		}
	}
	var out []string
	for m, pkgs := range importers {
		if _, ok := shared[m]; ok {
			continue
		}
		owners := map[string]bool{}
		for pkg := range pkgs {
			if r := driverRoot(pkg); r != "" {
				owners[r] = true
			}
		}
		switch len(owners) {
		case 0:
			continue // not a client library
		case 1:
		default:
			out = append(out, fmt.Sprintf("%s is imported by %s: one driver per client library", m, rel(sorted(owners))))
			continue
		}
		owner := sorted(owners)[0]
		for _, pkg := range sorted(pkgs) {
			if !under(pkg, owner) {
				out = append(out, fmt.Sprintf("%s imports %s, the client library of %s: only that driver may (or add it to shared, saying why it is no system's client)",
					rel([]string{pkg}), m, rel([]string{owner})))
			}
		}
	}
	sort.Strings(out)
	return out
}

// registryProblems applies the registry rule to g: a package below a
// system's root is imported from outside that root only by the
// registration's package, by other drivers (drivers build on one another:
// secure wraps tcp and udp) or as allowed lists, and a system's
// sub-packages only from inside its root.
func registryProblems(g map[string][]string, systems []string, allowed map[[2]string]string) []string {
	regPkg := module + "/internal/runapp"
	var out []string
	for pkg, imports := range g {
		for _, im := range imports {
			root := driverRoot(im)
			if !slices.Contains(systems, root) || under(pkg, root) {
				continue
			}
			switch {
			case im != root:
				out = append(out, fmt.Sprintf("%s imports %s: a system's sub-packages are its own", rel([]string{pkg}), rel([]string{im})))
			case pkg == regPkg || driverRoot(pkg) != "":
			case allowed[[2]string{pkg, im}] != "":
			default:
				out = append(out, fmt.Sprintf("%s imports %s: systems are reached through the driver registry", rel([]string{pkg}), rel([]string{im})))
			}
		}
	}
	sort.Strings(out)
	return out
}

// registered returns the systems' packages: the blank imports of the
// registration file.
func registered(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../../"+registration, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); im.Name != nil && im.Name.Name == "_" {
			out = append(out, p)
		}
	}
	return out
}

// requiredModules returns the modules go.mod requires.
func requiredModules(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var mods []string
	block := false
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case f[0] == "require" && len(f) > 1 && f[1] == "(":
			block = true
		case block && f[0] == ")":
			block = false
		case block:
			mods = append(mods, f[0])
		case f[0] == "require" && len(f) > 2:
			mods = append(mods, f[1])
		}
	}
	if len(mods) == 0 {
		t.Fatal("go.mod requires no module: the rule reads its require lines")
	}
	return mods
}

func sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// rel names packages of the module by their path inside it.
func rel(pkgs []string) string {
	out := make([]string, len(pkgs))
	for i, p := range pkgs {
		out[i] = strings.TrimPrefix(p, module+"/")
	}
	return strings.Join(out, " and ")
}

// TestClientLibraryRuleCatches: on a made-up module, a new system's client
// library is held by the rule with no list naming it: a second importer, a
// second driver, a tool reaching the system directly and a package using
// its private sub-package are each caught; the embedded broker of the
// same driver and the bench programs are not.
func TestClientLibraryRuleCatches(t *testing.T) {
	redis := internal("driver/redis")
	g := map[string][]string{
		redis:                         {"context", "github.com/redis/go-redis/v9", internal("driver")},
		redis + "/embed":              {"github.com/redis/go-redis/v9/internal/proto", "github.com/alicebob/miniredis/v2"},
		internal("driver/zenoh"):      {"github.com/HdrHistogram/hdrhistogram-go"},
		internal("load"):              {"github.com/HdrHistogram/hdrhistogram-go"},
		module + "/bench/redispong":   {"github.com/redis/go-redis/v9"},
		internal("runapp"):            {redis},
		internal("driver/nats"):       {"github.com/nats-io/nats.go"},
		internal("driver/natsbridge"): {"github.com/nats-io/nats.go/jetstream"},
		internal("session"):           {"github.com/redis/go-redis/v9", redis, redis + "/embed"},
	}
	mods := []string{"github.com/redis/go-redis/v9", "github.com/alicebob/miniredis/v2", "github.com/nats-io/nats.go", "github.com/HdrHistogram/hdrhistogram-go"}
	got := clientLibraryProblems(g, mods, shared)
	want := []string{
		"github.com/nats-io/nats.go is imported by internal/driver/nats and internal/driver/natsbridge: one driver per client library",
		"internal/session imports github.com/redis/go-redis/v9, the client library of internal/driver/redis: only that driver may (or add it to shared, saying why it is no system's client)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("client library problems:\n got %q\nwant %q", got, want)
	}
	got = registryProblems(g, []string{redis}, nil)
	want = []string{
		"internal/session imports internal/driver/redis/embed: a system's sub-packages are its own",
		"internal/session imports internal/driver/redis: systems are reached through the driver registry",
	}
	if !slices.Equal(got, want) {
		t.Errorf("registry problems:\n got %q\nwant %q", got, want)
	}
	// hdrhistogram is shared: without saying so, it would be the Zenoh driver's.
	if got := clientLibraryProblems(g, mods, nil); len(got) != 3 || !slices.ContainsFunc(got, func(p string) bool {
		return strings.HasPrefix(p, "internal/load imports github.com/HdrHistogram/hdrhistogram-go, the client library of internal/driver/zenoh")
	}) {
		t.Errorf("without shared: %q", got)
	}
}

// TestSharedAndAllowedAreUsed: every exception still has a use, so that the
// lists shrink with the code.
func TestSharedAndAllowedAreUsed(t *testing.T) {
	g := graph(t)
	mods := requiredModules(t)
	for m := range shared {
		rest := maps.Clone(shared)
		delete(rest, m)
		if len(clientLibraryProblems(g, mods, rest)) == 0 {
			t.Errorf("shared lists %s, which no driver shares: remove it", m)
		}
	}
	for pair := range reachesSystem {
		if !slices.Contains(g[pair[0]], pair[1]) {
			t.Errorf("reachesSystem lists %s importing %s, which it no longer does: remove it", rel([]string{pair[0]}), rel([]string{pair[1]}))
		}
	}
}

// driverImports are the packages of the module outside internal/driver
// that the drivers import, each with why: what a driver needs that no
// system owns. A client library wrapped in a package of its own elsewhere
// would escape the one-importer rule (its importers are no driver), so a
// system's code, its wrappers included, lives below internal/driver/.
var driverImports = map[string]string{
	"meta":         "the system measured (SystemInfo), which drivers report",
	"exit":         "usage errors (exit code 2) for bad settings",
	"flagrange":    "the declared ranges that ParseParams checks",
	"subexp":       "sub-experiment names the registry checks",
	"clockoffset":  "the clock offset of a helper process or a remote end",
	"extformat":    "the external program's output format",
	"fileerr":      "errors naming the certificate file and line",
	"atomicfile":   "the generated certificates and keys, written as a set",
	"measurements": "the raw sample files the Zenoh helper's results become",
	"result":       "the numbers' formatting in messages",
	"testenv":      "the test kit's brokers and helpers (zenohtest)",
}

// TestDriversImportBelowThem: a package below internal/driver imports,
// from the module, other drivers and the packages of driverImports only,
// and each listed package is still imported.
func TestDriversImportBelowThem(t *testing.T) {
	for _, p := range driverImportProblems(graph(t), driverImports) {
		t.Error(p)
	}
}

// driverImportProblems applies TestDriversImportBelowThem's rule to g.
func driverImportProblems(g map[string][]string, allowed map[string]string) []string {
	found := map[string]bool{}
	var out []string
	for _, pkg := range slices.Sorted(maps.Keys(g)) {
		if !under(pkg, internal("driver")) {
			continue
		}
		for _, im := range g[pkg] {
			name, ok := strings.CutPrefix(im, module+"/internal/")
			if !under(im, module) || under(im, internal("driver")) {
				continue
			}
			if _, listed := allowed[name]; !ok || !listed {
				out = append(out, fmt.Sprintf("%s imports %s: a system's code (a client library's wrapper too) lives below internal/driver/<system>/; list what no system owns in driverImports, with why", rel([]string{pkg}), rel([]string{im})))
				continue
			}
			found[name] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(allowed)) {
		if !found[name] {
			out = append(out, fmt.Sprintf("driverImports lists internal/%s, which no driver imports any more: remove it", name))
		}
	}
	return out
}

// TestDriverImportRuleCatches: a driver reaching its client library
// through a wrapper outside internal/driver is caught, and so is a listed
// package no driver imports.
func TestDriverImportRuleCatches(t *testing.T) {
	g := map[string][]string{
		internal("driver/loopq"): {internal("loopqclient"), internal("meta"), internal("driver")},
		internal("loopqclient"):  {"sigs.k8s.io/yaml"},
		internal("session"):      {"sigs.k8s.io/yaml"},
	}
	got := driverImportProblems(g, map[string]string{"meta": "", "exit": ""})
	if len(got) != 2 || !strings.HasPrefix(got[0], "internal/driver/loopq imports internal/loopqclient:") || !strings.Contains(got[1], "internal/exit, which no driver imports") {
		t.Errorf("problems %q", got)
	}
}
