package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/engine"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/program"
)

// TestEchoProgramAsInvoked: under the front (mqgate run), the echo process
// is started as `mqgate run echo …`, not `mqgate echo …`, which names no
// tool; a tool that is its own executable starts `run echo …`.
func TestEchoProgramAsInvoked(t *testing.T) {
	for _, c := range []struct {
		in   program.Invocation
		want []string // after the executable
	}{
		{program.Invocation{Front: program.Front, Tool: "run"}, []string{"run", "echo", "--transport", "tcp"}},
		{program.Invocation{Tool: "run"}, []string{"echo", "--transport", "tcp"}},
	} {
		dir := t.TempDir()
		// The stand-in records its command line and prints no address,
		// so that the run fails at once after starting it.
		exe := filepath.Join(dir, "prog")
		argsFile := filepath.Join(dir, "args")
		script := "#!/bin/sh\nprintf '%s\\n' \"$@\" >'" + argsFile + "'\nexit 3\n"
		if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		c.in.Exe = exe
		ctx := program.NewContext(context.Background(), c.in)
		cfg := Config{
			Scenarios: []string{"interprocess_reliable_tcp"},
			Engine:    engine.Config{Payloads: []int{16}, Samples: 10},
			Echo:      EchoSubprocess,
		}
		s, err := Prepare(ctx, cfg)
		if err != nil {
			t.Fatalf("%+v: Prepare: %v", c.in, err)
		}
		err = s.Run(ctx, Output{Dir: filepath.Join(dir, "exp"), Meta: &meta.Meta{Experiment: "exp"}})
		s.Close()
		if err == nil || !strings.Contains(err.Error(), "echo process did not print its address") {
			t.Errorf("%+v: Run = %v, want the stand-in's failure", c.in, err)
		}
		b, err := os.ReadFile(argsFile)
		if err != nil {
			t.Fatalf("%+v: the echo process was not started as %s: %v", c.in, exe, err)
		}
		got := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(got) < len(c.want) || strings.Join(got[:len(c.want)], " ") != strings.Join(c.want, " ") {
			t.Errorf("%+v: echo process started as %s %q, want %s %q …", c.in, exe, got, exe, c.want)
		}
	}
}

// TestEchoProgramSelfWins: an explicit Self (run's MQGATE_RUN_SELF) is
// started rather than the invocation, and a missing one is refused by
// Prepare, before anything is written.
func TestEchoProgramSelfWins(t *testing.T) {
	ctx := program.NewContext(context.Background(), program.Invocation{Front: program.Front, Tool: "run", Exe: "/nonexistent/mqgate"})
	cfg := Config{
		Scenarios: []string{"interprocess_reliable_tcp"},
		Engine:    engine.Config{Payloads: []int{16}, Samples: 10},
		Echo:      EchoSubprocess,
	}
	_, err := Prepare(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), `"/nonexistent/mqgate" cannot be executed`) {
		t.Errorf("Prepare with a missing front = %v, want it refused naming the program", err)
	}
	cfg.Self = []string{"/nonexistent/self"}
	_, err = Prepare(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), `"/nonexistent/self" cannot be executed`) {
		t.Errorf("Prepare with Self = %v, want Self checked", err)
	}
}
