package history_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/history"
	"github.com/mqgate/mqgate/internal/result"
)

// TestBurstHistory: experiment folders holding only burst summaries are
// read; history plots their lost samples and subscription throughput per
// payload under the Fast-RTPS throughput script's names, with the
// requirements of a burst requirements file, and writes their values to
// history.csv.
func TestBurstHistory(t *testing.T) {
	root := t.TempDir()
	const typ = "interprocess_best_effort"
	// lost[e] and mbps[e] of payloads 16 and 1024 in experiment e.
	lost := [][2]int{{3, 0}, {5, 1}, {7, 2}}
	mbps := [][2]float64{{120.5, 900.25}, {110, 950}, {90.125, 1000}}
	names := []string{"2026-01-01_00-00-00", "2026-01-02_00-00-00", "2026-01-03_00-00-00"}
	for e, name := range names {
		dir := filepath.Join(root, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var rows []result.BurstRow
		for p, b := range []int{16, 1024} {
			rows = append(rows, result.BurstRow{Payload: b, Demand: 1000, RecoveryMs: 20, Sent: 1000,
				Received: 1000 - lost[e][p], Lost: lost[e][p], SubMbps: mbps[e][p]})
		}
		// A row tied at the greatest throughput comes after the first:
		// history follows the first, in file order.
		rows = append(rows, result.BurstRow{Payload: 16, Demand: 100, Sent: 1000, Received: 900, Lost: 100, SubMbps: mbps[e][0]})
		if err := result.WriteBurstFile(filepath.Join(dir, experiment.BurstSummaryFileName(typ)), rows); err != nil {
			t.Fatal(err)
		}
	}
	reqs := filepath.Join(t.TempDir(), "burst_requirements.csv")
	if err := os.WriteFile(reqs, []byte("Experiment type,Payload [Bytes],Lost [samples],Subscription throughput [Mb/s]\n"+
		typ+",16,6.000,100.000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plots := filepath.Join(t.TempDir(), "plots")
	code, stdout, stderr := runHistoryApp(t, "-e", root, "-r", reqs, "-p", plots, "--format", "svg")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.HasPrefix(stdout, "3 experiment(s), 1 sub-experiment(s): 6 plots") {
		t.Errorf("stdout %q", stdout)
	}
	for _, name := range []string{"history_lost_samples", "history_subscription_throughput_mbs",
		"16_bytes_lost_samples", "16_bytes_subscription_throughput_mbs", "1024_bytes_lost_samples", "1024_bytes_subscription_throughput_mbs"} {
		if _, err := os.Stat(filepath.Join(plots, typ, name+".svg")); err != nil {
			t.Error(err)
		}
	}
	svg, err := os.ReadFile(filepath.Join(plots, typ, "16_bytes_subscription_throughput_mbs.svg"))
	if err != nil {
		t.Fatal(err)
	}
	// 90.125 Mb/s is below the requirement of 100: higher is better.
	for _, want := range []string{"Subscription throughput [Mb/s]", "requirement (100.000)", "below requirement (1)"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("16 B throughput plot lacks %q", want)
		}
	}
	csv, err := os.ReadFile(filepath.Join(plots, history.CSVFileName))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(string(csv)), "\n")[1:] {
		got = append(got, strings.TrimSuffix(line, ",,,"))
	}
	want := []string{
		"2026-01-01_00-00-00," + typ + ",16,Lost [samples],3.000,6.000",
		"2026-01-02_00-00-00," + typ + ",16,Lost [samples],5.000,6.000",
		"2026-01-03_00-00-00," + typ + ",16,Lost [samples],7.000,6.000",
		"2026-01-01_00-00-00," + typ + ",16,Subscription throughput [Mb/s],120.500,100.000",
		"2026-01-02_00-00-00," + typ + ",16,Subscription throughput [Mb/s],110.000,100.000",
		"2026-01-03_00-00-00," + typ + ",16,Subscription throughput [Mb/s],90.125,100.000",
		"2026-01-01_00-00-00," + typ + ",1024,Lost [samples],0.000,",
		"2026-01-02_00-00-00," + typ + ",1024,Lost [samples],1.000,",
		"2026-01-03_00-00-00," + typ + ",1024,Lost [samples],2.000,",
		"2026-01-01_00-00-00," + typ + ",1024,Subscription throughput [Mb/s],900.250,",
		"2026-01-02_00-00-00," + typ + ",1024,Subscription throughput [Mb/s],950.000,",
		"2026-01-03_00-00-00," + typ + ",1024,Subscription throughput [Mb/s],1000.000,",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("history.csv rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
