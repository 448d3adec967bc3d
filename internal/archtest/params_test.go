package archtest

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
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

// parsesBesideSettings are the calls of strconv's and time's parsers that
// driver packages make on what is not one of their settings, each with
// why, keyed by the package and the call as written. A setting (a value of
// Options.Params) is read through driver.ParseParams alone, against its
// declared flag, so that its range and its message live in one place.
var parsesBesideSettings = map[string]string{
	"driver/mqtt: strconv.Atoi(u.Port())":                    "the port of the broker URL",
	"driver/nats: strconv.Atoi(port)":                        "the port of a host:port server address",
	"driver/zenoh: strconv.Atoi(n)":                          "a payload size the helper prints",
	"driver/zenoh/zenohhelper: strconv.ParseInt(v, 10, 64)":  "the helper's window lines",
	"driver/zenoh/zenohhelper: strconv.ParseUint(v, 10, 64)": "the helper's window lines",
	"driver/zenoh/zenohhelper: strconv.ParseInt(s, 10, 64)":  "the helper's clock lines",
}

// TestDriversParseNoSettings: the packages under internal/driver/ (the
// core, home of driver.ParseParams and --echo-delay's parser, aside) call
// no strconv parser or time.ParseDuration but those listed in
// parsesBesideSettings, and every listed call is still made.
func TestDriversParseNoSettings(t *testing.T) {
	root := filepath.Join("..", "driver")
	calls := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == root || filepath.Dir(path) == root || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
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
		for _, c := range settingParses("driver/"+filepath.ToSlash(rel), src) {
			calls[c] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parseProblems(calls, parsesBesideSettings) {
		t.Error(p)
	}
}

// settingParses lists the parser calls of one file of package pkg, as
// "pkg: call".
func settingParses(pkg string, src []byte) []string {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, 0)
	if err != nil {
		return []string{pkg + ": " + err.Error()}
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			switch selector(c.Fun) {
			case "strconv.Atoi", "strconv.ParseInt", "strconv.ParseUint", "strconv.ParseFloat", "strconv.ParseBool", "time.ParseDuration":
				out = append(out, pkg+": "+types.ExprString(c))
			}
		}
		return true
	})
	return out
}

// parseProblems: calls not allowed, and allowed calls no longer made.
func parseProblems(calls map[string]bool, allowed map[string]string) []string {
	var out []string
	for c := range calls {
		if _, ok := allowed[c]; !ok {
			out = append(out, fmt.Sprintf("%s: a driver parses a value by hand; read a setting through driver.ParseParams, against its declared flag (or list a value that is no setting in parsesBesideSettings, with why)", c))
		}
	}
	for c := range allowed {
		if !calls[c] {
			out = append(out, fmt.Sprintf("%s is listed in parsesBesideSettings but no longer made: remove it", c))
		}
	}
	sort.Strings(out)
	return out
}

// TestParseRuleCatches: a driver reading a setting by hand, as the
// drivers did before driver.ParseParams, is caught, and so is a listed
// call that went.
func TestParseRuleCatches(t *testing.T) {
	src := []byte(`package nats
func parse(p map[string]string) (int, error) { return strconv.Atoi(p[FlagReplicas]) }
func wait(get func(string) string) (time.Duration, error) { return time.ParseDuration(get(FlagConnectTimeout)) }
`)
	calls := map[string]bool{}
	for _, c := range settingParses("driver/nats", src) {
		calls[c] = true
	}
	got := strings.Join(parseProblems(calls, map[string]string{"driver/nats: strconv.Atoi(port)": "gone"}), "\n")
	for _, want := range []string{"driver/nats: strconv.Atoi(p[FlagReplicas]): a driver parses", "driver/nats: time.ParseDuration(get(FlagConnectTimeout))", "strconv.Atoi(port) is listed"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems %q\nwant %q", got, want)
		}
	}
}
