package mqgatecmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
)

func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"mqgate"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// TestFront: mqgate TOOL runs the tool's own command line (its flags, its
// errors, its exit codes); no tool or an unknown one is a usage error that
// lists or suggests the tools.
func TestFront(t *testing.T) {
	if code, out, errb := run("run", "--version"); code != 0 || out != "run version "+cliapp.VersionString()+"\n" || errb != "" {
		t.Errorf("mqgate run --version: exit %d, %q, %q", code, out, errb)
	}
	if code, out, _ := run("--version"); code != 0 || out != "mqgate version "+cliapp.VersionString()+"\n" {
		t.Errorf("mqgate --version: exit %d, %q", code, out)
	}
	code, out, errb := run("history", "--help")
	if code != 0 || !strings.Contains(out, "mqgate history - plot latency") || errb != "" {
		t.Errorf("mqgate history --help: exit %d, %q, %q", code, out, errb)
	}
	if code, _, errb := run("run", "--samples", "0"); code != 2 || !strings.HasPrefix(errb, "run: --samples") {
		t.Errorf("mqgate run --samples 0: exit %d, %q; want the tool's own usage error", code, errb)
	}
	if code, _, errb := run("comapre"); code != 2 || errb != "mqgate: unknown tool \"comapre\": did you mean compare? (see 'mqgate --help')\n" {
		t.Errorf("mqgate comapre: exit %d, %q", code, errb)
	}
	code, out, errb = run()
	if code != 2 || out != "" {
		t.Errorf("mqgate: exit %d, stdout %q", code, out)
	}
	for _, name := range []string{"run", "process", "check", "compare", "requirements", "history"} {
		if !strings.Contains(errb, "\n  "+name+" ") {
			t.Errorf("usage does not list %s:\n%s", name, errb)
		}
	}
	if code, out, _ := run("--help"); code != 0 || !strings.HasPrefix(out, "usage: mqgate TOOL") {
		t.Errorf("mqgate --help: exit %d, %q", code, out)
	}
}
