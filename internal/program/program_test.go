package program

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// executable writes an empty executable file at dir/name.
func executable(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestContext(t *testing.T) {
	if got := FromContext(context.Background()); got != (Invocation{}) {
		t.Errorf("FromContext of a bare context = %+v, want the zero Invocation", got)
	}
	in := Invocation{Front: Front, Tool: "run"}
	if got := FromContext(NewContext(context.Background(), in)); got != in {
		t.Errorf("FromContext = %+v, want %+v", got, in)
	}
}

func TestName(t *testing.T) {
	for _, c := range []struct {
		in         Invocation
		name, proc string
	}{
		{Invocation{Tool: "run"}, "run", "process"},
		{Invocation{Front: Front, Tool: "run"}, "mqgate run", "mqgate process"},
	} {
		if got := c.in.Name(); got != c.name {
			t.Errorf("%+v.Name() = %q, want %q", c.in, got, c.name)
		}
		if got := c.in.NameOf("process"); got != c.proc {
			t.Errorf("%+v.NameOf(process) = %q, want %q", c.in, got, c.proc)
		}
	}
}

// TestCommandUnderFront: `mqgate run` starts itself, and any other tool,
// as the front's executable followed by the tool's name, whatever lies
// beside it or on PATH.
func TestCommandUnderFront(t *testing.T) {
	dir := t.TempDir()
	exe := executable(t, dir, "mqgate")
	executable(t, dir, "run")
	t.Setenv("PATH", dir)
	in := Invocation{Exe: exe, Front: Front, Tool: "requirements"}
	for _, tool := range []string{"run", "process", "requirements"} {
		got, err := in.Command(tool)
		if want := []string{exe, tool}; err != nil || !slices.Equal(got, want) {
			t.Errorf("Command(%s) = %q, %v; want %q", tool, got, err, want)
		}
	}
	got, err := Invocation{Exe: exe, Front: Front, Tool: "run"}.Self()
	if want := []string{exe, "run"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Self() = %q, %v; want %q", got, err, want)
	}
}

// TestCommandOwnExecutable: bin/run starts itself as itself, and finds the
// other tools beside it before PATH, then the front.
func TestCommandOwnExecutable(t *testing.T) {
	bin, other := t.TempDir(), t.TempDir()
	exe := executable(t, bin, "requirements")
	run := executable(t, bin, "run")
	executable(t, other, "run")
	otherProcess := executable(t, other, "process")
	t.Setenv("PATH", other)
	in := Invocation{Exe: exe, Tool: "requirements"}
	for tool, want := range map[string][]string{
		"requirements": {exe},
		"run":          {run},          // beside, though one is on PATH too
		"process":      {otherProcess}, // on PATH
	} {
		got, err := in.Command(tool)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Command(%s) = %q, %v; want %q", tool, got, err, want)
		}
	}
	self, err := in.Self()
	if err != nil || !slices.Equal(self, []string{exe}) {
		t.Errorf("Self() = %q, %v; want [%s]", self, err, exe)
	}
}

// TestCommandFrontAsFallback: a tool built alone finds another tool
// through mqgate when that tool's own executable is nowhere.
func TestCommandFrontAsFallback(t *testing.T) {
	bin, path := t.TempDir(), t.TempDir()
	exe := executable(t, bin, "requirements")
	t.Setenv("PATH", path)
	front := executable(t, path, "mqgate")
	got, err := Invocation{Exe: exe, Tool: "requirements"}.Command("run")
	if want := []string{front, "run"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Command(run) = %q, %v; want %q", got, err, want)
	}
	beside := executable(t, bin, "mqgate")
	got, err = Invocation{Exe: exe, Tool: "requirements"}.Command("run")
	if want := []string{beside, "run"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("with mqgate beside: Command(run) = %q, %v; want %q", got, err, want)
	}
}

func TestCommandNotFound(t *testing.T) {
	bin := t.TempDir()
	exe := executable(t, bin, "requirements")
	os.WriteFile(filepath.Join(bin, "run"), nil, 0o644) // not executable
	t.Setenv("PATH", t.TempDir())
	_, err := Invocation{Exe: exe, Tool: "requirements"}.Command("run")
	if err == nil {
		t.Fatal("Command(run) found a tool where there is none")
	}
	for _, want := range []string{"cannot find the run tool", "mqgate", bin, "PATH", "make install"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestReword(t *testing.T) {
	front := Invocation{Front: Front, Tool: "run"}
	for _, c := range []struct{ in, want string }{
		{"unknown flag --bad (see 'run --help')", "unknown flag --bad (see 'mqgate run --help')"},
		{"--x needs a value (see 'run echo --help')", "--x needs a value (see 'mqgate run echo --help')"},
		{"summarise it with 'process' first; see 'check --help'", "summarise it with 'mqgate process' first; see 'mqgate check --help'"},
		{"already named: 'mqgate run --help'", "already named: 'mqgate run --help'"},
		{"the program's run, 'runner' and 'history2'", "the program's run, 'runner' and 'history2'"},
		{"the echo's 'run --list'", "the echo's 'mqgate run --list'"},
		{`unexpected argument "x"`, `unexpected argument "x"`},
		{"'run --help' at the start", "'mqgate run --help' at the start"},
	} {
		if got := front.Reword(c.in); got != c.want {
			t.Errorf("Reword(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	own := Invocation{Tool: "run"}
	if msg := "see 'run --help'"; own.Reword(msg) != msg {
		t.Errorf("Reword outside the front changed %q to %q", msg, own.Reword(msg))
	}
}
