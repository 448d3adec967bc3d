package requirementsapp_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
)

// TestBurstRequirements derives burst requirements from three experiments,
// lost samples at the 99th percentile and subscription throughput at the
// 1st (numpy's linear method: the worse side of the runs, so that the runs
// the requirement came from meet it), writes them in the Fast-RTPS format,
// and reads them back.
func TestBurstRequirements(t *testing.T) {
	root := t.TempDir()
	for i, lost := range []string{"0", "10", "1000"} {
		dir := filepath.Join(root, "run"+string(rune('a'+i)))
		os.MkdirAll(dir, 0o755)
		mbps := []string{"100.000", "110.000", "90.000"}[i]
		received := []string{"1000", "990", "0"}[i] // Sent − Lost
		sum := result.BurstHeader + "\n16,100,0,1000,1000.000,1000000.000,128.000," + received + "," + lost + ",1000.000,1000000.000," + mbps + "\n"
		os.WriteFile(filepath.Join(dir, "burst_nats_best_effort_summary.csv"), []byte(sum), 0o644)
	}
	out := filepath.Join(t.TempDir(), "burst_requirements.csv")
	code, stdout, stderr := runRequirements(t, root, "--experiments-results", root, "--burst-output-file", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// numpy.percentile([0, 10, 1000], 99) = 980.2 and
	// numpy.percentile([100, 110, 90], 1) = 90.2: at 109.8, the 99th
	// percentile, two of the three runs fell below their own requirement.
	want := strings.Join(requirements.BurstColumns, ",") + "\nnats_best_effort,16,980.200,90.200\n"
	if got, _ := os.ReadFile(out); string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s\n(stdout %s)", got, want, stdout)
	}
	rows, err := requirements.ReadBurstFile(out)
	if err != nil || len(rows) != 1 || !reflect.DeepEqual(rows[0], requirements.KeyedRow{Type: "nats_best_effort", Key: result.Key{Payload: 16}, Limits: map[string]float64{result.BurstLost: 980.2, result.BurstThroughput: 90.2}}) {
		t.Errorf("%+v, %v", rows, err)
	}
	if !requirements.IsBurstFile(out) {
		t.Error("not taken for a burst requirements file")
	}
	os.WriteFile(out, []byte(strings.Join(requirements.BurstColumns, ",")+"\nt,16,-1,2\n"), 0o644)
	if _, err := requirements.ReadBurstFile(out); err == nil || !strings.Contains(err.Error(), `:2: column "Lost [samples]"`) {
		t.Errorf("negative Lost: %v", err)
	}
}

// TestBurstExperimentFolders: burst requirements read every experiment
// folder as the other modes do: a symbolic link to one counts, a second
// link to a folder already read counts once, and flags of the other modes
// are refused rather than ignored.
func TestBurstExperimentFolders(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	for i, lost := range []string{"0", "10", "1000"} {
		dir := filepath.Join(root, "run"+string(rune('a'+i)))
		if i == 2 {
			dir = filepath.Join(elsewhere, "runc")
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		mbps := []string{"100.000", "110.000", "90.000"}[i]
		received := []string{"1000", "990", "0"}[i] // Sent − Lost
		sum := result.BurstHeader + "\n16,100,0,1000,1000.000,1000000.000,128.000," + received + "," + lost + ",1000.000,1000000.000," + mbps + "\n"
		if err := os.WriteFile(filepath.Join(dir, "burst_nats_best_effort_summary.csv"), []byte(sum), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"runc": filepath.Join(elsewhere, "runc"), "rund": filepath.Join(root, "runa")} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "burst_requirements.csv")
	code, stdout, stderr := runRequirements(t, root, "--experiments-results", root, "--burst-output-file", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := strings.Join(requirements.BurstColumns, ",") + "\nnats_best_effort,16,980.200,90.200\n"
	if got, _ := os.ReadFile(out); string(got) != want || !strings.Contains(stdout, "from 3 summaries") {
		t.Errorf("got:\n%s\nwant (the three runs):\n%s\nstdout: %s", got, want, stdout)
	}
	if !strings.Contains(stderr, "skipped $DIR/rund: the same directory as $DIR/runa, read once") {
		t.Errorf("stderr: %s", stderr)
	}
	for _, flag := range [][]string{{"-o", "x.csv"}, {"--false-fail", "0.01"}, {"--percentile", "90"}, {"--json", "x.json"}} {
		if err := os.Remove(out); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runRequirements(t, root, append([]string{"-e", root, "--burst-output-file", out}, flag...)...)
		if code != 2 || !strings.Contains(stderr, flag[0]) || !strings.Contains(stderr, "does not go with --burst-output-file") {
			t.Errorf("%s with --burst-output-file: exit %d, %s", flag[0], code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s written by a refused call", out)
		}
		os.WriteFile(out, nil, 0o644)
	}
}

// TestBurstOnlyWithoutBurstFlag: experiments holding burst summaries only,
// without --burst-output-file, have nothing to derive latency or
// throughput requirements from: exit 2 naming the flag, and no file
// written (the tool exited 0 having written and said nothing).
func TestBurstOnlyWithoutBurstFlag(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"runa", "runb"} {
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		sum := result.BurstHeader + "\n16,100,0,1000,1000.000,1000000.000,128.000,1000,0,1000.000,1000000.000,100.000\n"
		if err := os.WriteFile(filepath.Join(dir, "burst_nats_best_effort_summary.csv"), []byte(sum), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outDir := t.TempDir()
	out := filepath.Join(outDir, "req.csv")
	for _, mode := range [][]string{nil, {"--false-fail", "1%"}} {
		code, _, stderr := runRequirements(t, root, append([]string{"--experiments-results", root, "-o", out}, mode...)...)
		if code != 2 || !strings.Contains(stderr, "$DIR: no latency summary") || !strings.Contains(stderr, "--burst-output-file") {
			t.Errorf("%v: exit %d: %s", mode, code, stderr)
		}
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
		t.Errorf("wrote %v", entries)
	}
}
