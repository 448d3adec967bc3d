package requirementsapp

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/requirements"
)

// deriveBurstFile is requirements --burst-output-file: the burst
// requirements of the burst summaries of every experiment folder in
// cfg.ExperimentsResults, as the Fast-RTPS throughput script derives them
// but for the throughput limit (requirements.BurstPercentile says why).
func deriveBurstFile(cfg Config, stdout, stderr io.Writer) error {
	if cfg.ExperimentsResults == "" {
		return exit.Usagef("--burst-output-file needs --experiments-results ROOT")
	}
	if cfg.Set["runs"] || cfg.Calibrate {
		return exit.Usagef("--burst-output-file derives from the experiments as they are: it excludes --runs and --calibrate")
	}
	if i := slices.IndexFunc(burstExcludes, func(f string) bool { return cfg.Set[f] }); i >= 0 {
		return exit.Usagef("--%s does not go with --burst-output-file, which derives burst requirements only: lost samples at their %s percentile, subscription throughput at its %s",
			burstExcludes[i], requirements.Ordinal(requirements.BurstPercentile), requirements.Ordinal(100-requirements.BurstPercentile))
	}
	var g clobber.Guard
	g.Experiments("--experiments-results", cfg.ExperimentsResults)
	g.OutputOutside("--burst-output-file", cfg.BurstOutputFile)
	if err := g.Check(); err != nil {
		return err
	}
	if err := checkOutputFile("--burst-output-file", cfg.BurstOutputFile); err != nil {
		return err
	}
	dirs, err := burstDirs(cfg.ExperimentsResults, stderr)
	if err != nil {
		return err
	}
	var runs []requirements.BurstSummary
	for _, dir := range dirs {
		files, err := experiment.FreshBurstSummaryFiles(dir)
		if err != nil {
			return exit.With(exit.Usage, err)
		}
		for _, f := range files {
			s, err := requirements.ReadBurstSummary(f.Type, f.Path)
			if err != nil {
				return exit.With(exit.Usage, err)
			}
			runs = append(runs, s)
		}
	}
	if len(runs) == 0 {
		return exit.With(exit.Usage, fileerr.New(cfg.ExperimentsResults, 0, "", "no experiment folder in it holds a burst summary (%s): run process on them first",
			experiment.BurstSummaryFileName("<type>")))
	}
	reqs := requirements.DeriveBurst(runs)
	if err := atomicfile.Write(cfg.BurstOutputFile, func(w io.Writer) error { return requirements.WriteBurst(w, reqs) }); err != nil {
		return exit.Usagef("--burst-output-file: %v", err)
	}
	fmt.Fprintf(stdout, "%d burst requirements from %d summaries -> %s\n", len(reqs), len(runs), cfg.BurstOutputFile)
	return nil
}

// burstExcludes are the flags of the latency and throughput requirements,
// which mean nothing to burst requirements.
var burstExcludes = append([]string{"output-file", "throughput-output-file", "out", "false-fail", "method", "order-rank", "normality-level", "percentile"}, calibrateOnly...)

// burstDirs lists the experiment folders in root in name order: its
// directories and symbolic links to directories, each directory once. The
// entries skipped (hidden, not a directory, a second link to a directory
// already listed, a link that cannot be followed) are warned about on
// stderr.
func burstDirs(root string, stderr io.Writer) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, exit.With(exit.Usage, fileerr.New(root, 0, "", "cannot read the experiments directory: %v", fileerr.Cause(err)))
	}
	skip := func(path, why string) { fmt.Fprintf(stderr, "requirements: warning: skipped %s: %s\n", path, why) }
	var dirs []string
	var seen []os.FileInfo
next:
	for _, e := range entries {
		path := filepath.Join(root, e.Name())
		if strings.HasPrefix(e.Name(), ".") {
			skip(path, "hidden")
			continue
		}
		st, err := os.Stat(path)
		switch {
		case err != nil:
			skip(path, fmt.Sprintf("cannot be followed (%v)", fileerr.Cause(err)))
			continue
		case !st.IsDir():
			continue // a file beside the experiments
		}
		for i, s := range seen {
			if os.SameFile(s, st) {
				skip(path, fmt.Sprintf("the same directory as %s, read once", dirs[i]))
				continue next
			}
		}
		seen = append(seen, st)
		dirs = append(dirs, path)
	}
	return dirs, nil
}
