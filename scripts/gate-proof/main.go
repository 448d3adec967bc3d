// Command gate-proof measures on this machine what the deciding gate,
// `run ab --max-runs` in its default configuration (the interleaved
// design, 5 % margins, 1 % false-fail), does with real runs: how often an
// unchanged system passes, how often the same system 10 % slower fails,
// how long a decision takes, and the spread of a unit's log ratio it
// worked with, per case over repeated gates.
//
// The cases, each a full gate from the command line a user would type:
//
//   - unchanged: two copies of the same run build as the two sides' echo
//     programs (--echo-command), the default 11 payloads of
//     intraprocess_reliable and interprocess_reliable_tcp (22 checks);
//   - slower: the same with the candidate's echo spending 10 % of the TCP
//     median round trip more per message (--echo-delay; the round trip
//     measured by a pilot run);
//   - nats-unchanged, nats-slower: the same for nats_reliable, both sides'
//     echo programs behind one nats-server (-nats URL), the delay 10 % of
//     its round trip;
//   - drift-unchanged, drift-slower, nats-drift-unchanged, nats-drift-slower:
//     the case named after "drift-" with a neighbour whose demand for the
//     CPUs changes while each gate runs (phases of 1 to 8 s: idle, one or
//     two threads spinning, one busy 1 ms in every 2), the drifting machine
//     a shared runner is.
//
// It prints a Markdown table: per case the gates run, PASS, FAIL and
// inconclusive counts with 95 % Clopper–Pearson intervals, the median and
// largest time to a verdict, the median rounds, the median and largest
// per-check spread of a round's log ratio beside the margin, for the
// latency checks and for the echo CPU checks apart, and the gates that
// failed on an echo CPU check.
//
//	go run ./scripts/gate-proof -out /tmp/gate-proof -gates 20
//	go run ./scripts/gate-proof -out /tmp/gate-proof -gates 20 -cases nats-unchanged,nats-slower -nats nats://127.0.0.1:4222
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/measurements"
	"github.com/mqgate/mqgate/internal/stats"
	"github.com/mqgate/mqgate/internal/stats/dist"
)

type options struct {
	run, out, nats string
	gates, budget  int
	cases          []string
	extra, abExtra []string
}

// allCases are the cases the proof knows. A drift- case is the case after
// it with a drifting neighbour on the machine while each gate runs
// (drifter).
var allCases = []string{"unchanged", "slower", "drift-unchanged", "drift-slower",
	"nats-unchanged", "nats-slower", "nats-drift-unchanged", "nats-drift-slower"}

// gateResult is one gate's outcome.
type gateResult struct {
	code   int
	rounds int
	took   time.Duration
	// spreads are the latency checks', cpu the echo CPU checks' (one per
	// sub-experiment whose echo ends are processes of their own).
	spreads, cpu []float64
	// cpuFailed counts the echo CPU checks the gate failed on.
	cpuFailed int
}

func main() {
	var o options
	var cases, extra, abExtra string
	flag.StringVar(&o.run, "run", "", "the run program (default: built from this repository)")
	flag.StringVar(&o.out, "out", "", "folder for the gates' outputs (required)")
	flag.StringVar(&o.nats, "nats", "nats://127.0.0.1:4222", "the nats-server of the NATS cases")
	flag.IntVar(&o.gates, "gates", 20, "gates per case")
	flag.IntVar(&o.budget, "max-runs", 150, "each gate's budget (run ab --max-runs)")
	flag.StringVar(&cases, "cases", "unchanged,slower", "cases, comma-separated, among "+strings.Join(allCases, ", "))
	flag.StringVar(&extra, "run-flags", "", "more run flags for both sides, space-separated (e.g. --warmup 20)")
	flag.StringVar(&abExtra, "ab-flags", "", "more run ab flags, space-separated (e.g. --blocks 3)")
	flag.Parse()
	o.cases = strings.Split(cases, ",")
	o.extra = strings.Fields(extra)
	o.abExtra = strings.Fields(abExtra)
	if err := proof(o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gate-proof:", err)
		os.Exit(2)
	}
}

func proof(o options, stdout, stderr io.Writer) error {
	if o.out == "" {
		return errors.New("-out: a folder for the gates' outputs is required")
	}
	if o.gates < 1 || o.budget < 1 {
		return fmt.Errorf("-gates %d, -max-runs %d: expected at least 1", o.gates, o.budget)
	}
	for _, c := range o.cases {
		if !slices.Contains(allCases, c) {
			return fmt.Errorf("-cases: %q: expected one of %s", c, strings.Join(allCases, ", "))
		}
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	if o.run == "" {
		o.run = filepath.Join(o.out, "run")
		if out, err := exec.Command("go", "build", "-o", o.run, "./cmd/run").CombinedOutput(); err != nil {
			return fmt.Errorf("building run: %v\n%s", err, out)
		}
	}
	// Two files of one build: the two sides' echo programs of an
	// unchanged system, as two builds of one commit would be.
	twin := filepath.Join(o.out, "run-twin")
	b, err := os.ReadFile(o.run)
	if err != nil {
		return err
	}
	if err := os.WriteFile(twin, b, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "| case | gates | PASS | FAIL | inconclusive | median / largest time | median rounds | latency spread median / largest (margin %.3f) | echo CPU spread median / largest | gates failed on echo CPU |\n", math.Log(1.05))
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|---|---|---|---|")
	for _, c := range o.cases {
		subs := []string{"-s", "intraprocess_reliable,interprocess_reliable_tcp"}
		pilot := []string{"-s", "interprocess_reliable_tcp"}
		if strings.HasPrefix(c, "nats-") {
			subs = []string{"-s", "nats_reliable", "--target", o.nats}
			pilot = subs
		}
		cand := "--echo-command " + twin
		if strings.HasSuffix(c, "slower") {
			rtt, err := pilotRTT(o.run, pilot, filepath.Join(o.out, c+"-pilot"))
			if err != nil {
				return err
			}
			d := time.Duration(0.1 * float64(rtt)).Round(100 * time.Nanosecond)
			cand += " --echo-delay " + d.String()
			fmt.Fprintf(stderr, "%s: median round trip %v, candidate echo delay %v\n", c, rtt, d)
		}
		var rs []gateResult
		for g := 1; g <= o.gates; g++ {
			var d *drifter
			if strings.Contains(c, "drift-") {
				d = startDrift(uint64(g))
			}
			r, err := gate(o, c, g, subs, cand)
			if d != nil {
				fmt.Fprintf(stderr, "%s %d/%d: %s\n", c, g, o.gates, d.Stop())
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "%s %d/%d: exit %d after %d rounds, %v\n", c, g, o.gates, r.code, r.rounds, r.took.Round(time.Second))
			rs = append(rs, r)
		}
		fmt.Fprintln(stdout, row(c, rs))
	}
	return nil
}

// pilotRTT is the median round trip of one run of flags.
func pilotRTT(run string, flags []string, dir string) (time.Duration, error) {
	args := append([]string{"--out", filepath.Dir(dir), "--name", filepath.Base(dir), "--payloads", "64", "--samples", "5000", "--latency", "rtt", "-q"}, flags...)
	if out, err := exec.Command(run, args...).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("pilot run: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "measurements_*.csv"))
	if len(files) != 1 {
		return 0, fmt.Errorf("pilot run %s: %d raw files", dir, len(files))
	}
	f, err := os.Open(files[0])
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var x []float64
	r := measurements.NewReader(f, files[0])
	for r.Next() {
		x = append(x, r.Sample().Latency)
	}
	if err := r.Err(); err != nil {
		return 0, fmt.Errorf("pilot run: %w", err)
	}
	if len(x) == 0 {
		return 0, fmt.Errorf("pilot run %s: no samples", dir)
	}
	return time.Duration(stats.Median(x) * 1000), nil
}

// gate runs one gate and reads its verdict.
func gate(o options, c string, g int, subs []string, cand string) (gateResult, error) {
	name := fmt.Sprintf("%s-%02d", c, g)
	report := filepath.Join(o.out, name+".json")
	args := []string{"ab", "--max-runs", strconv.Itoa(o.budget), "--out", filepath.Join(o.out, "ab"), "--name", name,
		"--reference", "--echo-command " + o.run, "--candidate", cand, "--json", report}
	args = append(append(append(args, o.abExtra...), "--", "--quiet"), subs...)
	args = append(args, o.extra...)
	start := time.Now()
	cmd := exec.Command(o.run, args...)
	out, err := cmd.CombinedOutput()
	r := gateResult{took: time.Since(start), code: cmd.ProcessState.ExitCode()}
	if err != nil && r.code != 1 && r.code != 3 {
		return r, fmt.Errorf("%s: exit %d: %v\n%s", name, r.code, err, out)
	}
	var v struct {
		Checks []struct {
			Metric struct {
				Name string `json:"name"`
			} `json:"metric"`
			Status string `json:"status"`
			Stats  *struct {
				N          int     `json:"n_reference"`
				Dispersion float64 `json:"dispersion"`
			} `json:"stats"`
		} `json:"checks"`
	}
	b, err := os.ReadFile(report)
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil {
		return r, fmt.Errorf("%s: report: %v", name, err)
	}
	for _, ch := range v.Checks {
		cpu := ch.Metric.Name == echoCPU
		if cpu && strings.EqualFold(ch.Status, "fail") {
			r.cpuFailed++
		}
		if ch.Stats == nil {
			continue
		}
		r.rounds = max(r.rounds, ch.Stats.N)
		if cpu {
			r.cpu = append(r.cpu, ch.Stats.Dispersion)
		} else {
			r.spreads = append(r.spreads, ch.Stats.Dispersion)
		}
	}
	return r, nil
}

// echoCPU is the metric name of run ab's echo CPU checks.
const echoCPU = "Echo CPU/message"

// row is a case's line of the table.
func row(c string, rs []gateResult) string {
	n := len(rs)
	count := func(code int) string {
		k := 0
		for _, r := range rs {
			if r.code == code {
				k++
			}
		}
		lo, hi := dist.ClopperPearson(k, n, 0.05)
		return fmt.Sprintf("%d (%.0f–%.0f %%)", k, 100*lo, 100*hi)
	}
	var took, rounds []float64
	var lat, cpu spreads
	cpuFailed := 0
	for _, r := range rs {
		took = append(took, r.took.Seconds())
		rounds = append(rounds, float64(r.rounds))
		lat.add(r.spreads)
		cpu.add(r.cpu)
		if r.cpuFailed > 0 {
			cpuFailed++
		}
	}
	return fmt.Sprintf("| %s | %d | %s | %s | %s | %s / %s | %.0f | %s | %s | %d |", c, n, count(0), count(1), count(3),
		seconds(stats.Median(took)), seconds(slices.Max(took)),
		stats.Median(rounds), lat, cpu, cpuFailed)
}

// spreads gathers, over a case's gates, the median and the largest of each
// gate's checks' spreads.
type spreads struct{ med, largest []float64 }

func (s *spreads) add(x []float64) {
	if len(x) > 0 {
		s.med = append(s.med, stats.Median(x))
		s.largest = append(s.largest, slices.Max(x))
	}
}

// String is "median / largest", or "–" without a check.
func (s spreads) String() string {
	if len(s.med) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.3f / %.3f", stats.Median(s.med), slices.Max(s.largest))
}

// seconds writes s seconds as a duration.
func seconds(s float64) time.Duration {
	return time.Duration(s * float64(time.Second)).Round(time.Second)
}
