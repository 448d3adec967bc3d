package requirements

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/summary"
)

// Load reads the summaries of every experiment folder directly under root,
// in name order, and returns their Median, 99% and Max values. Folders
// without any summary are skipped with a warning. It is an error when root
// does not exist, is not a directory, or holds no experiment with a summary.
func Load(ctx context.Context, root string) (obs []Observation, experiments []string, warnings []string, err error) {
	st, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, nil, fmt.Errorf("experiments directory %s does not exist", root)
	case err != nil:
		return nil, nil, nil, err
	case !st.IsDir():
		return nil, nil, nil, fmt.Errorf("experiments directory %s is not a directory", root)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, nil, nil, err
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	sort.Strings(dirs)
	for _, name := range dirs {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		dir := filepath.Join(root, name)
		files, err := experiment.SummaryFiles(dir)
		if err != nil {
			return nil, nil, nil, err
		}
		if len(files) == 0 {
			warnings = append(warnings, fmt.Sprintf("skipped %s: no %s in it", dir, experiment.SummaryFileName("<type>")))
			continue
		}
		experiments = append(experiments, name)
		for _, f := range files {
			rows, err := summary.ReadFile(f.Path)
			if err != nil {
				return nil, nil, nil, err
			}
			seen := map[int]bool{}
			for i, r := range rows {
				if seen[r.Bytes] {
					// A summary holds one row per payload; two would make one
					// experiment count twice.
					return nil, nil, nil, fmt.Errorf("%s:%d: column \"Bytes\": payload %d appears twice", f.Path, i+2, r.Bytes)
				}
				seen[r.Bytes] = true
				obs = append(obs, Observation{Experiment: name, Type: f.Type, Bytes: r.Bytes, Median: r.Median, P99: r.P99, Max: r.Max})
			}
		}
	}
	if len(experiments) == 0 {
		if files, _ := experiment.SummaryFiles(root); len(files) > 0 {
			return nil, nil, warnings, fmt.Errorf("%s holds no experiment folder, but summaries itself: pass the directory that holds the experiment folders", root)
		}
		if len(dirs) == 0 {
			return nil, nil, warnings, fmt.Errorf("%s is empty: expected one folder per experiment, each holding %s files", root, experiment.SummaryFileName("<type>"))
		}
		return nil, nil, warnings, fmt.Errorf("no experiment under %s holds a summary (%s): run process on them first", root, experiment.SummaryFileName("<type>"))
	}
	return obs, experiments, warnings, nil
}
