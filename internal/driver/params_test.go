package driver

import (
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/exit"
)

var paramFlags = []Flag{
	{Name: "x-count", Default: "5", Range: IntRange(1, 10)},
	{Name: "x-wait", Default: "2s", Range: DurationRange(time.Second, time.Minute)},
	{Name: "x-on", Default: "false", Boolean: true},
	{Name: "x-text", Default: "def"},
}

// TestParseParams: missing values take the declared default, an empty
// numeric one too, and an empty text value stays empty.
func TestParseParams(t *testing.T) {
	p, err := ParseParams(paramFlags, nil)
	if err != nil || p.Int("x-count") != 5 || p.Duration("x-wait") != 2*time.Second || p.Bool("x-on") || p.String("x-text") != "def" {
		t.Fatalf("defaults: %+v, %v", p, err)
	}
	p, err = ParseParams(paramFlags, map[string]string{"x-count": " 10", "x-wait": "", "x-on": "true", "x-text": "", "other": "kept out"})
	if err != nil || p.Int("x-count") != 10 || p.Duration("x-wait") != 2*time.Second || !p.Bool("x-on") || p.String("x-text") != "" {
		t.Fatalf("given: %+v, %v", p, err)
	}
}

// TestParseParamsRefuses: a value outside the declared range, or not of
// the flag's kind, is a usage error naming the flag, worded as run's own
// check of the flag (flagrange).
func TestParseParamsRefuses(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{"x-count", "11", "--x-count 11: expected 1 to 10"},
		{"x-count", "x", `--x-count "x": expected a whole number, 1 to 10`},
		{"x-wait", "500ms", "--x-wait 500ms: expected 1s to 1m"},
		{"x-wait", "soon", `--x-wait "soon": expected a duration such as 10s, 1s to 1m`},
		{"x-on", "maybe", `--x-on "maybe": expected true or false`},
	} {
		_, err := ParseParams(paramFlags, map[string]string{c.name: c.value})
		if err == nil || err.Error() != c.want || exit.Code(err) != exit.Usage {
			t.Errorf("%s=%q: %v; want the usage error %q", c.name, c.value, err, c.want)
		}
	}
}

// TestParamsUndeclared: asking for a flag that was not declared (or of
// another kind) is a programming error caught at once.
func TestParamsUndeclared(t *testing.T) {
	p, _ := ParseParams(paramFlags, nil)
	for name, get := range map[string]func(){
		"String": func() { p.String("nope") }, "Int": func() { p.Int("x-text") },
		"Duration": func() { p.Duration("nope") }, "Bool": func() { p.Bool("nope") },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "driver.Params") {
					t.Errorf("%s of an undeclared flag: recovered %v", name, r)
				}
			}()
			get()
		}()
	}
}
