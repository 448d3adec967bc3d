package process_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/historycmd"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/meta"
)

// fastrtpsVersions holds Fast-RTPS's published v1.9.2 and v1.9.3 summaries
// in folders named v1.9.2, v1.9.3 and 2019-11-15, without meta.json.
const fastrtpsVersions = "../../testdata/fastrtps-versions"

// importVersions copies the fixture's experiment folders under a new root
// and returns it.
func importVersions(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, exp := range []string{"v1.9.2", "v1.9.3", "2019-11-15"} {
		entries, err := os.ReadDir(filepath.Join(fastrtpsVersions, exp))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			copyFile(t, filepath.Join(fastrtpsVersions, exp, e.Name()), filepath.Join(root, exp, e.Name()))
		}
	}
	return root
}

// historyOrder runs history over root and returns the experiments in the
// order of history.csv, and the labels of its interprocess Median plot.
func historyOrder(t *testing.T, root string) (order []string, svg string) {
	t.Helper()
	plots := t.TempDir()
	var out, errb bytes.Buffer
	code := cliapp.Run(context.Background(), historycmd.App(), []string{"history", "-e", root, "-p", plots, "--format", "svg"}, &out, &errb)
	if code != 0 {
		t.Fatalf("history: exit %d: %s", code, errb.String())
	}
	f, err := os.Open(filepath.Join(plots, "history.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[1:] {
		if !slices.Contains(order, r[0]) {
			order = append(order, r[0])
		}
	}
	b, err := os.ReadFile(filepath.Join(plots, "interprocess_reliable", "history_Median.svg"))
	if err != nil {
		t.Fatal(err)
	}
	return order, string(b)
}

// TestLabelImported: process --sut-name, --sut-version and --start write
// the meta.json of imported Fast-RTPS folders (which hold published
// summaries), so that history orders them by start, not by name, and
// labels them by version.
func TestLabelImported(t *testing.T) {
	root := importVersions(t)
	if order, _ := historyOrder(t, root); !slices.Equal(order, []string{"2019-11-15", "v1.9.2", "v1.9.3"}) {
		t.Fatalf("without meta.json: order %v, want by name", order)
	}
	for _, l := range []struct{ dir, version, start string }{
		{"v1.9.2", "1.9.2", "2019-11-05"},
		{"2019-11-15", "1.9.3-rc1", "2019-11-15T09:30:00Z"},
		{"v1.9.3", "1.9.3", "2019-11-22"},
	} {
		dir := filepath.Join(root, l.dir)
		code, stdout, stderr := runProcess(t, "--sut-name", "Fast-RTPS", "--sut-version", l.version, "--start", l.start, dir)
		if code != 0 || !strings.Contains(stdout, filepath.Join(dir, meta.FileName)+": written") {
			t.Fatalf("%s: exit %d\n%s%s", l.dir, code, stdout, stderr)
		}
		m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
		if err != nil {
			t.Fatal(err)
		}
		if m.System.Name != "Fast-RTPS" || m.System.Version != l.version || m.Experiment != l.dir || !m.Completed {
			t.Errorf("%s: meta.json %+v", l.dir, m)
		}
	}
	order, svg := historyOrder(t, root)
	if !slices.Equal(order, []string{"v1.9.2", "2019-11-15", "v1.9.3"}) {
		t.Errorf("labelled: order %v, want by start", order)
	}
	for _, label := range []string{"v1.9.2 1.9.2", "2019-11-15 1.9.3-rc1", "v1.9.3 1.9.3"} {
		if !strings.Contains(svg, label) {
			t.Errorf("history plot does not label %q", label)
		}
	}
}

// TestLabelRefusals: a field that meta.json gives otherwise is refused,
// naming it, and meta.json is left as it was; the same values change
// nothing; a field meta.json lacks is filled in, its other keys kept;
// a new meta.json needs --start; --raw-csv takes no label.
func TestLabelRefusals(t *testing.T) {
	root := importVersions(t)
	dir := filepath.Join(root, "v1.9.2")
	path := filepath.Join(dir, meta.FileName)
	if code, _, stderr := runProcess(t, "--sut-version", "1.9.2", dir); code != exit.Usage || !strings.Contains(stderr, "give --start") {
		t.Errorf("no meta.json, no --start: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("meta.json written by a refused call")
	}
	if code, _, stderr := runProcess(t, "--start", "2019-11-31", dir); code != exit.Usage || !strings.Contains(stderr, `--start "2019-11-31": expected an RFC 3339 time`) {
		t.Errorf("bad --start: exit %d, %q", code, stderr)
	}
	raw := filepath.Join(root, "measurements_interprocess_reliable.csv")
	copyFile(t, filepath.Join(fixtureDir, "measurements_interprocess_reliable.csv"), raw)
	if code, _, stderr := runProcess(t, "--raw-csv", raw, "--start", "2019-11-05"); code != exit.Usage || !strings.Contains(stderr, "give EXPERIMENT_DIR instead of --raw-csv") {
		t.Errorf("--raw-csv with a label: exit %d, %q", code, stderr)
	}

	// A meta.json without a version, with a key this version does not know.
	written := `{"schema": 1, "experiment": "v1.9.2", "start": "2019-11-05T00:00:00Z", "completed": true,
 "system": {"name": "Fast-RTPS"}, "future_field": {"kept": [1, 2.50]}}
`
	if err := os.WriteFile(path, []byte(written), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--sut-name", "FastDDS", "--sut-version", "1.9.2"},
		{"--start", "2019-11-06"},
	} {
		code, _, stderr := runProcess(t, append(args, dir)...)
		if code != exit.Usage || !strings.Contains(stderr, "process does not change what meta.json records") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
		if b, _ := os.ReadFile(path); string(b) != written {
			t.Errorf("%v: meta.json changed:\n%s", args, b)
		}
	}
	code, _, stderr := runProcess(t, "--sut-name", "FastDDS", dir)
	if want := `system.name is "Fast-RTPS", --sut-name "FastDDS"`; code != exit.Usage || !strings.Contains(stderr, want) {
		t.Errorf("conflict: exit %d, %q; want %q", code, stderr, want)
	}
	code, stdout, stderr := runProcess(t, "--sut-name", "Fast-RTPS", "--sut-version", "1.9.2", "--start", "2019-11-05", dir)
	if code != 0 || !strings.Contains(stdout, "filled in system.version") {
		t.Fatalf("fill: exit %d\n%s%s", code, stdout, stderr)
	}
	m, err := meta.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.System.Version != "1.9.2" || m.System.Name != "Fast-RTPS" || !m.Start.Equal(time.Date(2019, 11, 5, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("filled meta.json: %+v", m)
	}
	if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte(`"future_field": {`)) || !bytes.Contains(b, []byte("2.50")) {
		t.Errorf("an unknown key was not kept as it was:\n%s", b)
	}
	before, _ := os.ReadFile(path)
	code, stdout, _ = runProcess(t, "--sut-version", "1.9.2", dir)
	if after, _ := os.ReadFile(path); code != 0 || !strings.Contains(stdout, "already says so") || !bytes.Equal(before, after) {
		t.Errorf("same values: exit %d, %q, changed %v", code, stdout, !bytes.Equal(before, after))
	}
}

// TestLabelWithRawFiles: a folder with raw files is summarised and
// labelled in one call.
func TestLabelWithRawFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "v1.9.2")
	copyFile(t, filepath.Join(fixtureDir, "measurements_interprocess_reliable.csv"), filepath.Join(dir, "measurements_interprocess_reliable.csv"))
	code, stdout, stderr := runProcess(t, "--no-plots", "--sut-version", "1.9.2", "--start", "2019-11-05", dir)
	if code != 0 || !strings.Contains(stdout, "meta.json: written") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, f := range []string{"measurements_interprocess_reliable_summary.csv", meta.FileName} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
