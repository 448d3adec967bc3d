package requirementsapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/program"
)

// repeatedRuns is the "extrapolate" step of the Fast-RTPS scripts: run the
// experiment N times, process each run, then derive requirements from every
// experiment in the output directory.
type repeatedRuns struct {
	// N is the number of runs.
	N int
	// Out is the results root the runs are written to.
	Out string
	// RunArgs are passed to run after the output flags.
	RunArgs []string
	// Run and Process are the command lines that start run and process;
	// when empty, they are found from how this program was started (the
	// context given to Execute, program.Invocation.Command): `mqgate run`
	// under the front, else the tools beside this program or on PATH.
	Run, Process []string
	// Stdout receives progress lines; Stderr the tools' own output.
	Stdout, Stderr io.Writer
	// Now is the clock used to name experiments; time.Now when nil.
	Now func() time.Time
}

// reservedRunFlags are set by Runs itself.
var reservedRunFlags = []string{"--out", "-o", "--name"}

// Execute performs the N runs and processes each. Every experiment is named
// by its UTC start time, as run and the Fast-RTPS scripts name them; a run
// starting within the same second as the previous one waits for the next
// second rather than overwrite it.
func (r *repeatedRuns) Execute(ctx context.Context) (names []string, err error) {
	for _, a := range r.RunArgs {
		for _, f := range reservedRunFlags {
			if a == f || strings.HasPrefix(a, f+"=") {
				return nil, exit.Usagef("run argument %s: requirements --runs sets the output itself (use --out)", a)
			}
		}
	}
	in := program.FromContext(ctx)
	if len(r.Run) == 0 {
		if r.Run, err = in.Command("run"); err != nil {
			return nil, exit.With(exit.Usage, err)
		}
	}
	if len(r.Process) == 0 {
		if r.Process, err = in.Command("process"); err != nil {
			return nil, exit.With(exit.Usage, err)
		}
	}
	now := r.Now
	if now == nil {
		now = time.Now
	}
	for i := 1; i <= r.N; i++ {
		name := now().UTC().Format(experiment.DirTimeLayout)
		for exists(filepath.Join(r.Out, name)) {
			select {
			case <-ctx.Done():
				return names, exit.ErrInterrupted
			case <-time.After(100 * time.Millisecond):
			}
			name = now().UTC().Format(experiment.DirTimeLayout)
		}
		fmt.Fprintf(r.Stdout, "run %d/%d: %s\n", i, r.N, filepath.Join(r.Out, name))
		if err := r.exec(ctx, r.Run, r.runArgs(name)); err != nil {
			return names, err
		}
		names = append(names, name)
		dir := filepath.Join(r.Out, name)
		// run throughput writes its summaries itself and no raw latency
		// files, which are all process reads.
		if raw, err := experiment.RawFiles(dir); err == nil && len(raw) == 0 {
			fmt.Fprintf(r.Stdout, "run %d/%d: no raw latency files to process (throughput summaries only)\n", i, r.N)
			continue
		}
		if err := r.exec(ctx, r.Process, []string{dir}); err != nil {
			return names, err
		}
	}
	return names, nil
}

// runArgs is run's command line for experiment name: the output flags
// first, or right after a subcommand's name (throughput, load, …), whose
// flags they are.
func (r *repeatedRuns) runArgs(name string) []string {
	out := []string{"--out", r.Out, "--name", name}
	if len(r.RunArgs) > 0 && !strings.HasPrefix(r.RunArgs[0], "-") {
		return slices.Concat(r.RunArgs[:1], out, r.RunArgs[1:])
	}
	return append(out, r.RunArgs...)
}

// exec runs one tool, the command line argv followed by args; on
// cancellation the tool gets SIGINT, so that it flushes what it measured,
// and 10 s to exit.
func (r *repeatedRuns) exec(ctx context.Context, argv, args []string) error {
	args = append(slices.Clone(argv[1:]), args...)
	cmd := exec.CommandContext(ctx, argv[0], args...)
	cmd.Stdout, cmd.Stderr = r.Stderr, r.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	if err == nil {
		return nil
	}
	line := filepath.Base(argv[0]) + " " + strings.Join(args, " ")
	if ctx.Err() != nil {
		return exit.With(exit.Interrupted, fmt.Errorf("interrupted during %s", line))
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code := ee.ExitCode()
		if code != exit.Interrupted {
			code = exit.Usage
		}
		return exit.With(code, fmt.Errorf("%s: exited %d", line, ee.ExitCode()))
	}
	return exit.With(exit.Usage, fmt.Errorf("%s: %w", line, err))
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
