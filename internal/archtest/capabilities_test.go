package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
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
