package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestSystemsDeclareCapabilities: every registered system (a blank import
// of the registration file) declares its capabilities itself: each type
// its package registers (driver.Register) has a Capabilities method of its
// own in that package, not one promoted from a transport it embeds, and
// the package's tests run the conformance suite (drivertest.Run or
// drivertest.RunDeclared), which checks what each declared capability
// implies.
func TestSystemsDeclareCapabilities(t *testing.T) {
	systems := registered(t)
	if len(systems) < 4 {
		t.Fatalf("%s registers %d systems: the rule reads its blank imports", registration, len(systems))
	}
	for _, pkg := range systems {
		dir := filepath.Join("../..", strings.TrimPrefix(pkg, module+"/"))
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".go") {
				if files[e.Name()], err = os.ReadFile(filepath.Join(dir, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, p := range declarationProblems(rel([]string{pkg}), files) {
			t.Error(p)
		}
	}
}

// declarationProblems applies the rule to one package's files (name to
// source): the types its non-test files register, the Capabilities methods
// they declare, and the conformance suite its tests run.
func declarationProblems(pkg string, files map[string][]byte) []string {
	fset := token.NewFileSet()
	registers := map[string]bool{} // type names passed to driver.Register
	declares := map[string]bool{}  // receiver types with a Capabilities method
	conformance := false
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []string
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, files[name], 0)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", pkg, err))
			continue
		}
		test := strings.HasSuffix(name, "_test.go")
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if !test && n.Name.Name == "Capabilities" && n.Recv != nil && len(n.Recv.List) == 1 {
					declares[typeName(n.Recv.List[0].Type)] = true
				}
			case *ast.CallExpr:
				switch sel := selector(n.Fun); {
				case !test && sel == "driver.Register" && len(n.Args) == 1:
					arg := n.Args[0]
					if u, ok := arg.(*ast.UnaryExpr); ok && u.Op == token.AND {
						arg = u.X
					}
					if lit, ok := arg.(*ast.CompositeLit); ok {
						registers[typeName(lit.Type)] = true
					} else {
						out = append(out, fmt.Sprintf("%s: %s registers a value at %s: register a composite literal of the transport's type (T{}), whose Capabilities the rule can find", pkg, name, fset.Position(arg.Pos())))
					}
				case test && (sel == "drivertest.Run" || sel == "drivertest.RunDeclared"):
					conformance = true
				}
			}
			return true
		})
	}
	if len(registers) == 0 {
		out = append(out, fmt.Sprintf("%s registers no transport (driver.Register from init)", pkg))
	}
	for _, typ := range sorted(registers) {
		if !declares[typ] {
			out = append(out, fmt.Sprintf("%s: %s declares no capabilities of its own: add func (%s) Capabilities() driver.Capabilities", pkg, typ, typ))
		}
	}
	if !conformance {
		out = append(out, fmt.Sprintf("%s: no test runs the conformance suite (drivertest.Run, or drivertest.RunDeclared when the suite cannot drive its ends)", pkg))
	}
	return out
}

// typeName is the name of a receiver or literal type: T, *T, pkg.T.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return selector(e)
	}
	return fmt.Sprintf("%T", e)
}

// selector is "x.Sel" for a call of a package's function, else "".
func selector(e ast.Expr) string {
	if s, ok := e.(*ast.SelectorExpr); ok {
		if x, ok := s.X.(*ast.Ident); ok {
			return x.Name + "." + s.Sel.Name
		}
	}
	return ""
}

// TestDeclarationRuleCatches: on made-up packages, a registered type
// without a Capabilities method of its own (one embedding another
// transport inherits its), a package whose tests never run the suite and
// one registering through a variable are each caught; a package that
// declares and tests passes.
func TestDeclarationRuleCatches(t *testing.T) {
	good := map[string][]byte{
		"redis.go": []byte(`package redis
import "github.com/mqgate/mqgate/internal/driver"
func init() { driver.Register(Transport{}) }
type Transport struct{}
func (Transport) Capabilities() driver.Capabilities { return driver.Capabilities{Broker: true} }`),
		"redis_test.go": []byte(`package redis
func TestConformance(t *testing.T) { drivertest.Run(t, drivertest.Config{Transport: Transport{}}) }`),
	}
	if got := declarationProblems("internal/driver/redis", good); len(got) != 0 {
		t.Errorf("a declaring, tested package: %q", got)
	}
	bad := map[string][]byte{
		"quic.go": []byte(`package quic
import ("github.com/mqgate/mqgate/internal/driver"; "github.com/mqgate/mqgate/internal/driver/udp")
func init() { driver.Register(Transport{}); driver.Register(&Fast{}) }
type Transport struct{ udp.Transport }
type Fast struct{}
func (*Fast) Capabilities() driver.Capabilities { return driver.Capabilities{} }`),
		"quic_test.go": []byte(`package quic
func TestCapabilitiesHelper(t *testing.T) { _ = Transport{}.Capabilities() }
func TestCapabilities(t *testing.T) { var tr Transport; _ = tr }`),
	}
	want := []string{
		"internal/driver/quic: Transport declares no capabilities of its own: add func (Transport) Capabilities() driver.Capabilities",
		"internal/driver/quic: no test runs the conformance suite (drivertest.Run, or drivertest.RunDeclared when the suite cannot drive its ends)",
	}
	if got := declarationProblems("internal/driver/quic", bad); !slices.Equal(got, want) {
		t.Errorf("problems:\n got %q\nwant %q", got, want)
	}
	byVar := map[string][]byte{"v.go": []byte(`package v
import "github.com/mqgate/mqgate/internal/driver"
var tr = T{}
func init() { driver.Register(tr) }`)}
	if got := declarationProblems("internal/driver/v", byVar); len(got) != 3 || !strings.Contains(got[0], "register a composite literal") {
		t.Errorf("registering a variable: %q", got)
	}
}

// TestOneRegistrationFile: the systems are registered in the registration
// file alone, so that the rules reading its blank imports (capabilities
// declared, the conformance suite run, the registry) hold every system: no
// other non-test file imports a driver package blank, and every package
// under internal/driver that registers a transport from init
// (driver.Register) is one of its blank imports (the test kit's hub
// registers when a test asks it to).
func TestOneRegistrationFile(t *testing.T) {
	systems := registered(t)
	walkSources(t, func(pkg string, fset *token.FileSet, f *ast.File) {
		file := fset.Position(f.Package).Filename
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if im.Name != nil && im.Name.Name == "_" && driverRoot(p) != "" && file != registration {
				t.Errorf("%s registers %s: register every system in %s, where the rules find it", file, rel([]string{p}), registration)
			}
		}
		if driverRoot(module+"/"+pkg) == "" || slices.Contains(systems, module+"/"+pkg) {
			return
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "init" && fd.Recv == nil {
				ast.Inspect(fd, func(n ast.Node) bool {
					if c, ok := n.(*ast.CallExpr); ok && selector(c.Fun) == "driver.Register" {
						t.Errorf("%s: %s registers a transport from init but is not imported by %s", fset.Position(c.Pos()), pkg, registration)
					}
					return true
				})
			}
		}
	})
}

// notAcceptance are the interfaces of internal/driver that change nothing
// of what run accepts, each with why; every other one is a capability the
// how-to (docs/architecture.md, "What changes what `run` accepts") names.
var notAcceptance = map[string]string{
	"Transport":     "what every system implements (the how-to's first step)",
	"Sender":        "a half of the ends Transport and StreamTransport open",
	"Receiver":      "a half of the ends Transport and StreamTransport open",
	"Pinger":        "the measuring end Transport opens",
	"Echoer":        "the echoing end Transport opens",
	"Publisher":     "the sending end StreamTransport opens",
	"Subscriber":    "the receiving end StreamTransport opens",
	"Client":        "the roles' client, which ClientDialer opens",
	"PubSub":        "a part of Client",
	"RequestReply":  "a part of Client",
	"Confirmer":     "what a role's client confirms the system has, counted in the pub's report",
	"RoleSystem":    "ClientDialer or RoleRunner, which the how-to names",
	"Consumer":      "a subscriber's delivery on the library's goroutine: faster, accepting the same",
	"AckSender":     "a sender's acknowledgements, counted and recorded in meta.json",
	"BatchSender":   "when an end's batched messages become deliverable; its size is a flag (FlagOwner)",
	"CounterReader": "what an end counted, recorded in meta.json",
	"InfoReporter":  "the system reached, recorded in meta.json",
	"Advisor":       "a cause named beside slow round trips",
	"SelfMeasuring": "how the engine measures a link that times itself: the same modes and flags",
	"SelfWorkload":  "what SelfMeasuring returns",
	"Measurer":      "a part of SelfWorkload",
}

// TestHowToNamesEveryCapability: each interface package driver declares is
// either named in the how-to's list of what changes what run accepts or
// listed in notAcceptance with why, not both; a new optional interface
// is a decision, not a type assertion somewhere.
func TestHowToNamesEveryCapability(t *testing.T) {
	doc := mapDoc(t)
	start, end := strings.Index(doc, "What changes what `run` accepts"), strings.Index(doc, "Nothing else:")
	if start < 0 || end < start {
		t.Fatal("docs/architecture.md: the how-to's list of what changes what run accepts is not found")
	}
	named := map[string]bool{}
	for _, m := range backticked.FindAllStringSubmatch(doc[start:end], -1) {
		named[m[1]] = true
	}
	for _, p := range capabilityProblems(driverInterfaces(t), named, notAcceptance) {
		t.Error(p)
	}
}

// capabilityProblems applies TestHowToNamesEveryCapability's rule.
func capabilityProblems(interfaces []string, named map[string]bool, not map[string]string) []string {
	var out []string
	for _, n := range interfaces {
		_, listed := not[n]
		switch {
		case named[n] && listed:
			out = append(out, fmt.Sprintf("driver.%s is both in the how-to and in notAcceptance: keep one", n))
		case !named[n] && !listed:
			out = append(out, fmt.Sprintf("driver.%s: name it in docs/architecture.md's how-to if it changes what run accepts, else in notAcceptance with why", n))
		}
	}
	for n := range not {
		if !slices.Contains(interfaces, n) {
			out = append(out, fmt.Sprintf("notAcceptance lists driver.%s, which package driver no longer declares", n))
		}
	}
	sort.Strings(out)
	return out
}

// driverInterfaces are the exported interface types of package driver.
func driverInterfaces(t *testing.T) []string {
	t.Helper()
	var out []string
	walkSources(t, func(pkg string, _ *token.FileSet, f *ast.File) {
		if pkg != "internal/driver" {
			return
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					ts := s.(*ast.TypeSpec)
					if _, ok := ts.Type.(*ast.InterfaceType); ok && ts.Name.IsExported() {
						out = append(out, ts.Name.Name)
					}
				}
			}
		}
	})
	if len(out) < 20 {
		t.Fatalf("package driver declares %d interfaces; the rule reads internal/driver/*.go", len(out))
	}
	sort.Strings(out)
	return out
}

// TestCapabilityRuleCatches: an interface neither named nor listed, one
// both named and listed, and a listed one that went are each caught.
func TestCapabilityRuleCatches(t *testing.T) {
	got := capabilityProblems([]string{"Grouper", "Pinned", "Transport"}, map[string]bool{"Grouper": true, "Transport": true},
		map[string]string{"Transport": "", "Gone": ""})
	want := []string{
		"driver.Pinned: name it in docs/architecture.md's how-to if it changes what run accepts, else in notAcceptance with why",
		"driver.Transport is both in the how-to and in notAcceptance: keep one",
		"notAcceptance lists driver.Gone, which package driver no longer declares",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n got %q\nwant %q", got, want)
	}
}

// undeclaredAssertions are the assertions to an interface that package
// driver does not declare, made outside the drivers, each with why it is
// no capability of a system: keyed by package and the assertion as
// written.
var undeclaredAssertions = map[string]string{
	"internal/cliapp/runcmd: f.(interface{GetEnvVars() []string})": "a command-line flag of urfave/cli: whether it reads the environment",
	"internal/session: c.Ready.(interface{Sync() error})":          "the file the ready line goes to, synced when it is one",
	"internal/calibrate: o.Gate.(Thresholder)":                     "a gate of calibrate's own whose threshold can vary",
}

// TestNoUndeclaredCapabilities: outside internal/driver no code asks a
// value for a method set of its own making (an interface literal, or an
// interface declared in the asking package) but those listed in
// undeclaredAssertions: a system's capability is a field of
// driver.Capabilities or an interface of package driver, which the how-to
// names (TestHowToNamesEveryCapability), never a type assertion somewhere.
func TestNoUndeclaredCapabilities(t *testing.T) {
	files := map[string][]*ast.File{}
	walkSources(t, func(pkg string, _ *token.FileSet, f *ast.File) {
		files[pkg] = append(files[pkg], f)
	})
	found := map[string]bool{}
	for pkg, fs := range files {
		if pkg == "internal/driver" || strings.HasPrefix(pkg, "internal/driver/") {
			continue // drivers build on one another's ends
		}
		for _, a := range undeclaredAsserts(pkg, fs) {
			found[a] = true
		}
	}
	for _, p := range listProblems(found, undeclaredAssertions, "an assertion to an interface package driver does not declare: declare the capability in internal/driver (and name it in the how-to), or list it in undeclaredAssertions with why it is none", "undeclaredAssertions") {
		t.Error(p)
	}
}

// undeclaredAsserts lists the type assertions of one package's files to an
// interface literal or to an interface the package declares, as
// "pkg: x.(T)".
func undeclaredAsserts(pkg string, fs []*ast.File) []string {
	local := map[string]bool{}
	for _, f := range fs {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					if ts := s.(*ast.TypeSpec); ts != nil {
						if _, ok := ts.Type.(*ast.InterfaceType); ok {
							local[ts.Name.Name] = true
						}
					}
				}
			}
		}
	}
	var out []string
	for _, f := range fs {
		ast.Inspect(f, func(n ast.Node) bool {
			ta, ok := n.(*ast.TypeAssertExpr)
			if !ok || ta.Type == nil {
				return true
			}
			switch tt := ta.Type.(type) {
			case *ast.InterfaceType:
				out = append(out, pkg+": "+types.ExprString(ta))
			case *ast.Ident:
				if local[tt.Name] {
					out = append(out, pkg+": "+types.ExprString(ta))
				}
			}
			return true
		})
	}
	return out
}

// TestUndeclaredAssertionRuleCatches: a capability asked by an interface
// literal, or by an interface of the asking package, is caught; one of
// package driver's is not.
func TestUndeclaredAssertionRuleCatches(t *testing.T) {
	src := `package session
type pinned interface{ PinnedEcho() bool }
func f(tr driver.Transport) bool {
	if ne, ok := tr.(interface{ NoRemoteEcho() bool }); ok && ne.NoRemoteEcho() { return false }
	if _, ok := tr.(pinned); ok { return true }
	_, ok := tr.(driver.Embedder)
	return ok
}`
	f, err := parser.ParseFile(token.NewFileSet(), "echo.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := undeclaredAsserts("internal/session", []*ast.File{f})
	want := []string{"internal/session: tr.(interface{NoRemoteEcho() bool})", "internal/session: tr.(pinned)"}
	if !slices.Equal(got, want) {
		t.Errorf("assertions %q, want %q", got, want)
	}
}
