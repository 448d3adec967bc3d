package process_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/result"
)

// burstFile holds two payloads, three cases each; the best of 16 B ties at
// 3 decimals with another row, and both are kept, as the Fast-RTPS script
// keeps them.
var burstFile = result.BurstHeader + `
16,100,0,1000,1000.000,1000000.000,128.000,1000,0,1000.000,1000000.000,128.000
16,100,20,500,1000.000,500000.000,64.000,400,100,1000.000,400000.000,51.200
16,1000,0,1000,1000.000,1000000.000,128.000,1000,0,1000.000,1000000.000,128.000
1024,100,0,1000,1000.000,1000000.000,8192.000,900,100,1000.000,900000.000,7372.800
1024,100,20,1000,1000.000,1000000.000,8192.000,1000,0,1000.000,1000000.000,8192.000
1024,1000,0,1000,1000.000,1000000.000,8192.000,10,990,1000.000,10000.000,81.920
`

const burstSummary = result.BurstHeader + `
16,100,0,1000,1000.000,1000000.000,128.000,1000,0,1000.000,1000000.000,128.000
16,1000,0,1000,1000.000,1000000.000,128.000,1000,0,1000.000,1000000.000,128.000
1024,100,20,1000,1000.000,1000000.000,8192.000,1000,0,1000.000,1000000.000,8192.000
`

// TestBurstFiles: process summarises a burst measurements file and draws
// its scatter plots, in an experiment directory (burst_<type>.csv) and in
// the Fast-RTPS script's single-file mode, whatever the file's name.
func TestBurstFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "burst_nats_best_effort.csv"), []byte(burstFile), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runProcess(t, dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "burst_nats_best_effort_summary.csv")); string(got) != burstSummary {
		t.Errorf("summary:\n%s\nwant:\n%s", got, burstSummary)
	}
	for _, name := range []string{"throughput_scatterplot_16.png", "lost_samples_scatterplot_16.png", "throughput_scatterplot_1024.png", "lost_samples_scatterplot_1024.png"} {
		if _, err := os.Stat(filepath.Join(dir, "plots", "burst_nats_best_effort", name)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(stdout, "6 test cases") || !strings.Contains(stdout, "4 plots") {
		t.Errorf("stdout:\n%s", stdout)
	}

	raw := filepath.Join(t.TempDir(), "measurements_interprocess_reliable.csv")
	os.WriteFile(raw, []byte(burstFile), 0o644)
	out := filepath.Join(filepath.Dir(raw), "summary.csv")
	if code, _, stderr := runProcess(t, "--raw_csv", raw, "--output_csv", out, "--no-plots"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(out); string(got) != burstSummary {
		t.Errorf("--raw_csv summary:\n%s", got)
	}
}

// TestBadBurstFileWritesNothing: a damaged burst measurements file stops
// process with exit 2, naming the file, line, column and what was
// expected, before anything is written: no summary or plot of the folder's
// raw latency file, nor of a good burst file read before it.
func TestBadBurstFileWritesNothing(t *testing.T) {
	real := filepath.Join("testdata", "fastrtps-throughput", "results_all_2019-11-04_15-39-11.csv")
	b, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(b), "\n")
	for _, tc := range []struct{ name, content, want string }{
		{"bad cell", strings.Replace(string(b), ",2883887,", ",28x3887,", 1),
			`:3: column "Publication time [us]": "28x3887" is not a finite number ≥ 0`},
		{"header only", header + "\n", `: no measurements after the header`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			copyFile(t, filepath.Join("testdata", "golden", "one_payload", "measurements_one_payload.csv"),
				filepath.Join(dir, "measurements_intraprocess_best_effort.csv"))
			copyFile(t, real, filepath.Join(dir, "burst_intraprocess_best_effort.csv"))
			bad := filepath.Join(dir, "burst_nats_best_effort.csv")
			if err := os.WriteFile(bad, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			before := files(t, dir)
			code, _, stderr := runProcess(t, "--html", filepath.Join(dir, "report.html"), dir)
			if code != 2 || !strings.Contains(stderr, bad+tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, bad+tc.want)
			}
			after := files(t, dir)
			for p, b := range after {
				if before[p] != b {
					t.Errorf("refused, yet %s was written", p)
				}
			}
			if len(after) != len(before) {
				t.Errorf("refused, yet %d files became %d", len(before), len(after))
			}
		})
	}
}

// TestBurstPayloadNotListed: a burst measurements file holding a payload
// that meta.json does not list for its sub-experiment (another run's rows
// copied in) is refused before anything is written, as a raw latency
// file's is (formats §6); its summary was written, and gated.
func TestBurstPayloadNotListed(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "burst_nats_best_effort.csv"), []byte(burstFile), 0o644); err != nil {
		t.Fatal(err)
	}
	meta := `{"schema": 1, "experiment": "b", "start": "2026-11-20T09:00:00Z", "end": "2026-11-20T09:01:00Z", "completed": true, ` +
		`"subexperiments": [{"type": "nats_best_effort", "payloads": [{"bytes": 16}]}]}`
	if err := os.WriteFile(filepath.Join(dir, "meta.json"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runProcess(t, "--no-plots", dir)
	want := filepath.Join(dir, "burst_nats_best_effort.csv") + ": payload 1024 B of sub-experiment nats_best_effort is not in "
	if code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "burst_nats_best_effort_summary.csv")); !os.IsNotExist(err) {
		t.Errorf("refused, yet the summary was written: %v", err)
	}
}
