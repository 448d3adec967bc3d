package archtest

import (
	"cmp"
	"context"
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
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/exit"
	_ "github.com/mqgate/mqgate/internal/runapp" // the systems run registers
)

// TestSettingsParsedOnce: every number, duration and true-or-false flag a
// registered system declares is checked by the shared code
// (driver.ParseParams) with its declared range: the system refuses each
// value outside it with the words run uses for the flag (exit code 2,
// naming the flag), from CheckParams when it has one, else from Dial,
// before it connects anywhere.
func TestSettingsParsedOnce(t *testing.T) {
	n := 0
	for _, name := range driver.Names() {
		tr, _ := driver.Lookup(name)
		for _, f := range driver.FlagsOf(tr) {
			var bad []string
			if r, ok := f.Range.Flagrange(); ok {
				bad = r.Outside()
			} else if f.Boolean {
				bad = []string{"maybe", "2"}
			}
			if len(bad) > 0 {
				n++
			}
			for _, v := range bad {
				_, shared := driver.ParseParams([]driver.Flag{f}, map[string]string{f.Name: v})
				if shared == nil {
					t.Errorf("--%s %q: driver.ParseParams accepts it", f.Name, v)
					continue
				}
				err := refusal(tr, driver.Options{Params: map[string]string{f.Name: v}})
				if err == nil || !strings.Contains(err.Error(), shared.Error()) || exit.Code(err) != exit.Usage {
					t.Errorf("%s with --%s %q: %v (exit %d); want exit 2 and %q, the shared check's words", name, f.Name, v, err, exit.Code(err), shared)
				}
			}
		}
	}
	if n < 16 {
		t.Errorf("%d flags of a number, a duration or true or false; want at least the 16 of nats, mqtt, amqp and external", n)
	}
}

// refusal is what tr says of opts before it connects: its CheckParams, or
// a Dial towards a port nothing listens on.
func refusal(tr driver.Transport, opts driver.Options) error {
	if pc, ok := tr.(driver.ParamChecker); ok {
		return pc.CheckParams(opts)
	}
	addr := "127.0.0.1:1"
	if s := driver.SchemesOf(tr); len(s) > 0 {
		addr = s[0] + "://" + addr
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	p, err := tr.Dial(ctx, addr, opts)
	if err == nil {
		p.Close()
	}
	return err
}

// parsesBesideSettings are the parser calls (strconv's, time's and fmt's
// scanners, however the package is imported) that the packages under
// internal/driver make on what is not one of their settings, each with
// why, keyed by the package, the function and the call as written. A
// setting (a value of Options.Params) is read through driver.ParseParams
// alone, against its declared flag, so that its range and its message live
// in one place: the core's own calls are listed too, so that a second
// parser added beside ParseParams is caught.
var parsesBesideSettings = map[string]string{
	"driver: Flag.parse: strconv.ParseBool(s)":                            "ParseParams's check of a true-or-false flag",
	"driver: ParseDelay: time.ParseDuration(strings.TrimSpace(mean))":     "--echo-delay, a flag of run's, not of a driver",
	"driver: ParseDelay: time.ParseDuration(strings.TrimSpace(jitter))":   "--echo-delay, a flag of run's, not of a driver",
	"driver/mqtt: settings.parseURL: strconv.Atoi(u.Port())":              "the port of the broker URL",
	"driver/nats: validHostPort: strconv.Atoi(port)":                      "the port of a host:port server address",
	"driver/zenoh: measurer.run: strconv.Atoi(n)":                         "a payload size the helper prints",
	"driver/zenoh/zenohhelper: ParseWindow: strconv.ParseInt(v, 10, 64)":  "the helper's window lines",
	"driver/zenoh/zenohhelper: ParseWindow: strconv.ParseUint(v, 10, 64)": "the helper's window lines",
	"driver/zenoh/zenohhelper: readCSV: strconv.ParseInt(s, 10, 64)":      "the helper's clock lines",
}

// TestDriversParseNoSettings: the packages under internal/driver/, the
// core with them, call no parser but those listed in parsesBesideSettings,
// and every listed call is still made.
func TestDriversParseNoSettings(t *testing.T) {
	calls := map[string]bool{}
	for pkg, files := range driverFiles(t) {
		for _, src := range files {
			for _, c := range settingParses(pkg, src) {
				calls[c] = true
			}
		}
	}
	for _, p := range parseProblems(calls, parsesBesideSettings) {
		t.Error(p)
	}
}

// driverFiles maps each package at or below internal/driver ("driver",
// "driver/nats", …) to the sources of its non-test files.
func driverFiles(t *testing.T) map[string][][]byte {
	t.Helper()
	root := filepath.Join("..", "driver")
	out := map[string][][]byte{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		if strings.Contains(filepath.ToSlash(path), "/testdata/") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := "driver"
		if rel != "." {
			pkg += "/" + filepath.ToSlash(rel)
		}
		out[pkg] = append(out[pkg], src)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out["driver"]) == 0 || len(out["driver/nats"]) == 0 {
		t.Fatalf("found no driver sources under %s", root)
	}
	return out
}

// parsers are the functions that turn text into a number, a duration or
// true or false, by import path.
var parsers = map[string][]string{
	"strconv": {"Atoi", "ParseInt", "ParseUint", "ParseFloat", "ParseBool"},
	"time":    {"ParseDuration"},
	"fmt":     {"Sscan", "Sscanf", "Sscanln"},
}

// settingParses lists the parser calls of one file of package pkg, as
// "pkg: function: call", the function being the one that makes the call
// (T.M for a method), the parser's package named as imported.
func settingParses(pkg string, src []byte) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, 0)
	if err != nil {
		return []string{pkg + ": " + err.Error()}
	}
	local := map[string]string{} // the name a parser package goes by here
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		if _, ok := parsers[path]; ok {
			name := path
			if im.Name != nil {
				name = im.Name.Name
			}
			local[name] = path
		}
	}
	var out []string
	for _, d := range f.Decls {
		fn := "(package level)"
		if fd, ok := d.(*ast.FuncDecl); ok {
			fn = fd.Name.Name
			if fd.Recv != nil && len(fd.Recv.List) == 1 {
				fn = typeName(fd.Recv.List[0].Type) + "." + fn
			}
		}
		ast.Inspect(d, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if s, ok := c.Fun.(*ast.SelectorExpr); ok {
				if x, ok := s.X.(*ast.Ident); ok && slices.Contains(parsers[local[x.Name]], s.Sel.Name) {
					out = append(out, pkg+": "+fn+": "+types.ExprString(c))
				}
			}
			return true
		})
	}
	return out
}

// parseProblems: calls not allowed, and allowed calls no longer made.
func parseProblems(calls map[string]bool, allowed map[string]string) []string {
	return listProblems(calls, allowed, "a driver parses a value by hand; read a setting through driver.ParseParams, against its declared flag (or list a value that is no setting in parsesBesideSettings, with why)", "parsesBesideSettings")
}

// listProblems: what was found but is not allowed (with advice), and what
// the allowed list (named list) holds but was not found.
func listProblems(found map[string]bool, allowed map[string]string, advice, list string) []string {
	var out []string
	for c := range found {
		if _, ok := allowed[c]; !ok {
			out = append(out, fmt.Sprintf("%s: %s", c, advice))
		}
	}
	for c := range allowed {
		if !found[c] {
			out = append(out, fmt.Sprintf("%s is listed in %s but no longer made: remove it", c, list))
		}
	}
	sort.Strings(out)
	return out
}

// TestParseRuleCatches: a driver reading a setting by hand, as the
// drivers did before driver.ParseParams, is caught however the parser is
// imported or named, so is a second parser in the core, and so is a
// listed call that went.
func TestParseRuleCatches(t *testing.T) {
	src := []byte(`package nats
import (sc "strconv"; "time"; "fmt")
func parse(p map[string]string) (int, error) { return sc.Atoi(p[FlagReplicas]) }
func wait(get func(string) string) (time.Duration, error) { return time.ParseDuration(get(FlagConnectTimeout)) }
func (s *settings) scan(p map[string]string) { fmt.Sscan(p[FlagPullBatch], &s.batch) }
`)
	core := []byte(`package driver
import "strconv"
func ParamInt(p map[string]string, k string) int { n, _ := strconv.Atoi(p[k]); return n }
`)
	calls := map[string]bool{}
	for _, c := range append(settingParses("driver/nats", src), settingParses("driver", core)...) {
		calls[c] = true
	}
	got := strings.Join(parseProblems(calls, map[string]string{"driver/nats: validHostPort: strconv.Atoi(port)": "gone"}), "\n")
	for _, want := range []string{
		"driver/nats: parse: sc.Atoi(p[FlagReplicas]): a driver parses",
		"driver/nats: wait: time.ParseDuration(get(FlagConnectTimeout))",
		"driver/nats: settings.scan: fmt.Sscan(p[FlagPullBatch], &s.batch)",
		"driver: ParamInt: strconv.Atoi(p[k])",
		"strconv.Atoi(port) is listed",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems %q\nwant %q", got, want)
		}
	}
}

// TestDriversReadTypedSettingsThroughParseParams: no package under
// internal/driver reads a number, duration or true-or-false setting from
// the text of Options.Params (an index by the flag's name, or the name
// passed beside the raw map to a function of its own): whatever it does
// with the text (== "true", a scanner of its own) escapes the declared
// range and the shared message. Text settings (URLs, names) are read as
// they are.
func TestDriversReadTypedSettingsThroughParseParams(t *testing.T) {
	typed := map[string]bool{}
	for _, name := range driver.Names() {
		tr, _ := driver.Lookup(name)
		for _, f := range driver.FlagsOf(tr) {
			if f.Boolean || f.Range.Kind != driver.NotNumeric {
				for _, n := range append([]string{f.Name}, f.Aliases...) {
					typed[n] = true
				}
			}
		}
	}
	if len(typed) < 16 {
		t.Fatalf("%d typed flags; want at least the 16 of nats, mqtt, amqp and external", len(typed))
	}
	files := driverFiles(t)
	for _, p := range typedReads(files, stringConsts(files), typed) {
		t.Error(p)
	}
}

// stringConsts maps each string constant of the driver packages to its
// value, as a reference to it reads in its own package ("driver/nats
// FlagUser") and in another ("nats.FlagUser").
func stringConsts(files map[string][][]byte) map[string]string {
	out := map[string]string{}
	for pkg, srcs := range files {
		for _, src := range srcs {
			f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.SkipObjectResolution)
			if err != nil {
				continue // settingParses reports it
			}
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				for _, sp := range g.Specs {
					vs := sp.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							if v, ok := stringLit(vs.Values[i]); ok {
								out[pkg+" "+n.Name] = v
								out[f.Name.Name+"."+n.Name] = v
							}
						}
					}
				}
			}
		}
	}
	return out
}

// stringLit is the value of a string literal.
func stringLit(e ast.Expr) (string, bool) {
	if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
		s, err := strconv.Unquote(b.Value)
		return s, err == nil
	}
	return "", false
}

// typedReads lists the reads of a typed flag's text in files: an index
// whose key is the flag's name (a literal or a constant), and a call that
// passes the name beside a raw map (an argument X.Params).
func typedReads(files map[string][][]byte, consts map[string]string, typed map[string]bool) []string {
	var out []string
	for pkg, srcs := range files {
		for _, src := range srcs {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, pkg+"/file.go", src, parser.SkipObjectResolution)
			if err != nil {
				continue
			}
			flag := func(e ast.Expr) string {
				v, ok := stringLit(e)
				switch e := e.(type) {
				case *ast.Ident:
					v, ok = consts[pkg+" "+e.Name]
				case *ast.SelectorExpr:
					v, ok = consts[types.ExprString(e)]
				}
				if ok && typed[v] {
					return v
				}
				return ""
			}
			report := func(n ast.Node, name string) {
				out = append(out, fmt.Sprintf("%s: %s reads --%s from the text of Options.Params: read it through driver.ParseParams (Params.Int, Duration, Bool), which checks its declared range",
					pkg, types.ExprString(n.(ast.Expr)), name))
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.IndexExpr:
					if name := flag(n.Index); name != "" {
						report(n, name)
					}
				case *ast.CallExpr:
					raw, name := false, ""
					for _, a := range n.Args {
						if s, ok := a.(*ast.SelectorExpr); ok && s.Sel.Name == "Params" {
							raw = true
						}
						name = cmp.Or(name, flag(a))
					}
					if raw && name != "" {
						report(n, name)
					}
				}
				return true
			})
		}
	}
	sort.Strings(out)
	return out
}

// TestTypedReadRuleCatches: the readings of a typed setting's text that
// the parser rule cannot see (a comparison, a helper taking the raw map,
// another package's constant, a literal name) are caught; a text setting
// and a read through driver.Params are not.
func TestTypedReadRuleCatches(t *testing.T) {
	files := map[string][][]byte{
		"driver/amqp": {[]byte(`package amqp
const (FlagMandatory = "amqp-mandatory"; FlagPrefetch = "amqp-prefetch"; FlagQueue = "amqp-queue")
func parse(opts driver.Options, ps driver.Params) settings {
	return settings{mandatory: opts.Params[FlagMandatory] == "true", prefetch: driver.ParamInt(opts.Params, FlagPrefetch),
		queue: opts.Params[FlagQueue], batch: ps.Int(FlagPrefetch), n: len(opts.Params["amqp-prefetch"])}
}`)},
		"driver/relay": {[]byte(`package relay
func f(o driver.Options) bool { return o.Params[amqp.FlagMandatory] != "" }`)},
	}
	typed := map[string]bool{"amqp-mandatory": true, "amqp-prefetch": true}
	got := typedReads(files, stringConsts(files), typed)
	want := []string{
		`driver/amqp: driver.ParamInt(opts.Params, FlagPrefetch) reads --amqp-prefetch`,
		`driver/amqp: opts.Params["amqp-prefetch"] reads --amqp-prefetch`,
		`driver/amqp: opts.Params[FlagMandatory] reads --amqp-mandatory`,
		`driver/relay: o.Params[amqp.FlagMandatory] reads --amqp-mandatory`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d: %q\nwant it to begin %q", i, got[i], want[i])
		}
	}
}
