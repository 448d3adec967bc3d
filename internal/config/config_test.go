package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var known = []string{"rate", "topic-prefix", "endpoint", "duration", "payload", "csv"}

func write(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPrecedence checks CLI > MQ_* environment > file > default, for YAML
// and TOML, and that each value says where it came from.
func TestPrecedence(t *testing.T) {
	files := map[string]string{
		"run.yaml": "rate: 100\ntopic_prefix: file\nduration: 3s\nendpoint: [tcp/a:1, tcp/b:2]\npub:\n  payload: 64\nsub:\n  payload: 999\n",
		"run.toml": "rate = 100\ntopic-prefix = \"file\"\nduration = \"3s\"\nendpoint = [\"tcp/a:1\", \"tcp/b:2\"]\n[pub]\npayload = 64\n[sub]\npayload = 999\n",
	}
	for name, body := range files {
		f := write(t, name, body)
		c, err := Load(Sources{File: f, Section: "pub", Known: known,
			Environ: []string{"MQ_RATE=200", "MQ_TOPIC_PREFIX=env", "PATH=/bin", "MQX_RATE=1"},
			Flags:   map[string]any{"rate": "500"}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rate, err := c.Float("rate", 1)
		if err != nil || rate != 500 || c.Source("rate") != "--rate" {
			t.Errorf("%s: rate %v %v from %s", name, rate, err, c.Source("rate"))
		}
		if got := c.String("topic-prefix", "def"); got != "env" || c.Source("topic-prefix") != "environment variable MQ_TOPIC_PREFIX" {
			t.Errorf("%s: topic-prefix %q from %s", name, got, c.Source("topic-prefix"))
		}
		if d, err := c.Duration("duration", time.Second); err != nil || d != 3*time.Second {
			t.Errorf("%s: duration %v %v", name, d, err)
		}
		if p, err := c.Int("payload", 16); err != nil || p != 64 {
			t.Errorf("%s: the pub section's payload: %v %v", name, p, err)
		}
		if got := c.Strings("endpoint", nil); !reflect.DeepEqual(got, []string{"tcp/a:1", "tcp/b:2"}) {
			t.Errorf("%s: endpoints %v", name, got)
		}
		if got := c.String("csv", "x.csv"); got != "x.csv" || c.Source("csv") != "default" {
			t.Errorf("%s: default csv %q from %s", name, got, c.Source("csv"))
		}
	}
}

// TestErrors checks that unknown keys and badly typed values are named
// with their source.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		src  Sources
		want string
	}{
		{Sources{File: write(t, "a.yaml", "rat: 5\n")}, "a.yaml:1: rat: unknown setting; expected one of csv, duration, endpoint"},
		{Sources{File: write(t, "b.yaml", "pub:\n  rat: 5\n"), Section: "pub"}, "b.yaml:2: pub.rat: unknown setting"},
		{Sources{File: write(t, "c.json", "{}")}, "expected a .yaml, .yml or .toml file"},
		{Sources{File: write(t, "d.yaml", "rate: [1\n")}, "d.yaml"},
		{Sources{File: filepath.Join(t.TempDir(), "none.yaml")}, "none.yaml"},
		{Sources{Environ: []string{"MQ_RAET=1"}}, "environment variable MQ_RAET: unknown setting \"raet\"; expected one of MQ_CSV"},
		{Sources{Flags: map[string]any{"bogus": "1"}}, "--bogus: not a setting"},
	} {
		tc.src.Known = known
		_, err := Load(tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.src, err, tc.want)
		}
	}
	c, err := Load(Sources{Known: known, Environ: []string{"MQ_RATE=fast", "MQ_DURATION=soon"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Float("rate", 0); err == nil || err.Error() != "rate (from environment variable MQ_RATE): fast is not a number" {
		t.Errorf("rate: %v", err)
	}
	if _, err := c.Duration("duration", 0); err == nil || !strings.Contains(err.Error(), "MQ_DURATION") {
		t.Errorf("duration: %v", err)
	}
	// A section of another role is not checked against this one's keys.
	if _, err := Load(Sources{File: write(t, "e.yaml", "sub:\n  rat: 1\n"), Section: "pub", Known: known}); err != nil {
		t.Errorf("another role's section: %v", err)
	}
}

// TestValues checks the conversions: bare seconds, booleans, lists from a
// comma-separated value.
func TestValues(t *testing.T) {
	c, err := Load(Sources{Known: []string{"a", "b", "c", "d"}, Flags: map[string]any{"a": "1.5", "b": "true", "c": "x, y,,z", "d": []string{"p", "q,r"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := c.Duration("a", 0); d != 1500*time.Millisecond {
		t.Errorf("a = %v", d)
	}
	if b, _ := c.Bool("b", false); !b {
		t.Error("b")
	}
	if got := c.Strings("c", nil); !reflect.DeepEqual(got, []string{"x", "y", "z"}) {
		t.Errorf("c = %v", got)
	}
	if got := c.Strings("d", nil); !reflect.DeepEqual(got, []string{"p", "q", "r"}) {
		t.Errorf("d = %v", got)
	}
	if !c.k.Exists("a") || c.k.Exists("zz") {
		t.Error("Exists")
	}
}
