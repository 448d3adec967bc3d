package runapp_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/processcmd"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/permessage"
	"github.com/mqgate/mqgate/internal/permessagefile"
	"github.com/mqgate/mqgate/internal/result"
)

// TestRunLoad runs `run load` over an in-process and a TCP link and an
// embedded NATS broker, then `process` over the experiment: one-way raw
// files are ordinary formats §2 files.
func TestRunLoad(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run(t, "load", "-s", "intraprocess_reliable,interprocess_best_effort_tcp,nats_best_effort", "--broker", "embedded",
		"--scenario", "fan-in", "--publishers", "2", "--rate", "300", "--duration", "500ms", "--warmup", "200ms",
		"--interval", "100ms", "--payloads", "16,64", "-o", out, "--name", "x")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// 500 ms in intervals of 100 ms: 5 rate samples, said on stderr and
	// in every summary's notes.
	const few = "gives 5 rate sample(s) per payload"
	if !strings.Contains(stderr, "run load: warning: a measured period of 500ms in intervals of 100ms "+few) {
		t.Errorf("no warning of few rate samples:\n%s", stderr)
	}
	dir := filepath.Join(out, "x")
	m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if m.Latency != meta.LatencyOneWay || !m.Completed || len(m.SubExperiments) != 3 || !strings.Contains(m.Mode, "fan-in 2×1") {
		t.Fatalf("meta: latency %q completed %v subs %d mode %q", m.Latency, m.Completed, len(m.SubExperiments), m.Mode)
	}
	for _, s := range m.SubExperiments {
		f, err := os.Open(filepath.Join(dir, load.SummaryFileName(s.Type)))
		if err != nil {
			t.Fatal(err)
		}
		sum, err := readLoadSummary(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(sum.Payloads) != 2 || len(s.Payloads) != 2 {
			t.Fatalf("%s: %d payloads in the summary, %d in meta.json", s.Type, len(sum.Payloads), len(s.Payloads))
		}
		for i, p := range sum.Payloads {
			if !slices.ContainsFunc(p.Notes, func(n string) bool { return strings.Contains(n, few) }) {
				t.Errorf("%s %d B: notes %q do not say the rate samples are few", s.Type, p.Payload, p.Notes)
			}
			if p.Received != p.Expected || p.Expected == 0 || p.Lost != 0 {
				t.Errorf("%s %d B: received %d of %d, lost %d", s.Type, p.Payload, p.Received, p.Expected, p.Lost)
			}
			if s.Payloads[i].Samples != p.RawKept || uint64(p.RawKept) != p.Received {
				t.Errorf("%s %d B: meta.json samples %d, raw kept %d, received %d", s.Type, p.Payload, s.Payloads[i].Samples, p.RawKept, p.Received)
			}
		}
		tf, err := os.Open(filepath.Join(dir, experiment.ThroughputFileName(s.Type)))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := result.ReadThroughput(tf, tf.Name())
		tf.Close()
		if err != nil || len(rows) != 2 || rows[0].Mode != result.ModeRate || rows[0].Offered != 300 || rows[0].Samples < 3 {
			t.Fatalf("%s: throughput rows %+v, %v", s.Type, rows, err)
		}
		// The rates count only what arrived within the measured intervals
		// (about 100 ms each; their lengths vary under load): not much more
		// than was received. A starved receiver on a loaded machine may see
		// intervals with nothing, so no lower bound is asserted; and one
		// interval cut short there weighs its rate into the mean, so the
		// median is held to the bound.
		for i, r := range rows {
			if r.Median < 0 || r.Mean < 0 || r.Median*0.1*float64(r.Samples) > 1.25*float64(sum.Payloads[i].Received)+10 {
				t.Errorf("%s %d B: throughput row %+v, received %d", s.Type, r.Payload, r, sum.Payloads[i].Received)
			}
		}
		for _, f := range []string{load.SnapshotsFileName(s.Type), load.HistogramLogFileName(s.Type)} {
			if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
	if pngs, _ := filepath.Glob(filepath.Join(dir, load.PlotsDir, "*.png")); len(pngs) != 3*2*2 {
		t.Errorf("%d figures in load/: %v", len(pngs), pngs)
	}
	var pout, perr strings.Builder
	if code := cliapp.Run(context.Background(), processcmd.App(), []string{"process", dir}, &pout, &perr); code != 0 {
		t.Fatalf("process exit %d: %s", code, perr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "measurements_nats_best_effort_summary.csv")); err != nil {
		t.Fatal(err)
	}
	// meta.json's JSON carries the one-way definition for the gates.
	raw, _ := os.ReadFile(filepath.Join(dir, meta.FileName))
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil || generic["latency"] != "one-way" {
		t.Fatalf("latency field: %v %v", generic["latency"], err)
	}
}

func TestRunLoadUsageErrors(t *testing.T) {
	out := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--scenario", "mesh"}, "expected one of fan-in"},
		{[]string{"--scenario", "fan-out", "--publishers", "2"}, "2 publishers, expected 1"},
		{[]string{"--rate", "-5"}, "rate -5"},
		{[]string{"--payloads", "8"}, "smaller than the 16-byte"},
		{[]string{"--prom-port", "70000"}, "--prom-port 70000"},
		{[]string{"-s", "nosuch_best_effort"}, "unknown sub-experiment"},
		{[]string{"-s", "amqp_best_effort", "--scenario", "fan-out", "--subscribers", "2", "--broker", "embedded"}, "cannot run its broker embedded"},
		{[]string{"extra"}, "unexpected argument"},
		{[]string{"-s", "interprocess_reliable"}, "a one-way link is best effort"},
	} {
		code, _, stderr := run(t, append([]string{"load", "-o", out, "--duration", "100ms"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a usage error left %d entries in --out", len(entries))
	}
}

// TestRunThroughputAndPerMessage runs the two throughput subcommands over
// an in-process link and reads what they wrote.
func TestRunThroughputAndPerMessage(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run(t, "throughput", "-s", "intraprocess_reliable", "--payloads", "16", "--windows", "5", "--window", "1ms",
		"--max-in-flight", "100", "--precision", "0.5", "-o", out, "--name", "t")
	if code != 0 || !strings.Contains(stderr, "exponential  F = 1 ") || !strings.Contains(stderr, "Mb/s over 5 periods") {
		t.Fatalf("throughput: exit %d: %s", code, stderr)
	}
	f, err := os.Open(filepath.Join(out, "t", experiment.ThroughputFileName("intraprocess_reliable")))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := result.ReadThroughput(f, f.Name())
	f.Close()
	if err != nil || len(rows) != 1 || rows[0].Mode != result.ModeWindow || rows[0].Samples != 5 {
		t.Fatalf("%+v %v", rows, err)
	}

	code, _, stderr = run(t, "permessage", "-s", "intraprocess_reliable", "--payloads", "16,64", "--count", "2000", "--window", "20", "--rate", "50000",
		"--cpu-every", "200", "-o", out, "--name", "p")
	if code != 0 {
		t.Fatalf("permessage: exit %d: %s", code, stderr)
	}
	dir := filepath.Join(out, "p")
	pf, err := os.Open(filepath.Join(dir, permessagefile.SummaryFileName("intraprocess_reliable")))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(pf).ReadAll()
	pf.Close()
	if err != nil || len(recs) != 1+2*len(permessagefile.Quantities) || !slices.Equal(recs[0], permessagefile.SummaryHeader) {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	for _, rec := range recs[1:] {
		for i, c := range rec {
			if h := permessagefile.SummaryHeader[i]; h != "Quantity" && h != "Multimodal" && h != "Note" && c != "" {
				if _, err := strconv.ParseFloat(c, 64); err != nil {
					t.Errorf("column %s: %q is not a number", h, c)
				}
			}
		}
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, permessage.PlotsDir, "*.png"))
	if len(pngs) != 2*5+2 {
		t.Fatalf("%d figures: %v", len(pngs), pngs)
	}
	for _, args := range [][]string{
		{"throughput", "--windows", "1"},
		{"throughput", "--precision", "2"},
		{"permessage", "--count", "10", "--window", "10"},
		{"permessage", "--cpu-every", "-1"},
		{"permessage", "--rate", "-1"},
	} {
		if code, _, stderr := run(t, append(args, "-o", out)...); code != 2 {
			t.Errorf("%v: exit %d, %s", args, code, stderr)
		}
	}
}

// TestRunLoadPadding: --padding and --padding-seed reach the messages and
// the summary JSON records them; an unknown padding is a usage error.
func TestRunLoadPadding(t *testing.T) {
	code, _, stderr := run(t, "load", "-s", "intraprocess_reliable", "--padding", "gzip", "-o", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "--padding: padding \"gzip\": expected random, zeros or pattern") {
		t.Fatalf("--padding gzip: exit %d, %s", code, stderr)
	}
	for _, c := range []struct {
		args    []string
		padding load.Padding
		seed    uint64 // 0: any non-zero seed
	}{
		{nil, load.PaddingRandom, 0},
		{[]string{"--padding-seed", "42"}, load.PaddingRandom, 42},
		{[]string{"--padding", "zeros"}, load.PaddingZeros, 0},
	} {
		out := t.TempDir()
		args := append([]string{"load", "-s", "intraprocess_reliable", "--rate", "200", "--duration", "100ms", "--warmup", "0s",
			"--interval", "10ms", "--payloads", "64", "--no-plots", "-o", out, "--name", "p"}, c.args...)
		if code, _, stderr := run(t, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		files, _ := filepath.Glob(filepath.Join(out, "*", "load_intraprocess_reliable_summary.json"))
		if len(files) != 1 {
			t.Fatalf("%v: summaries %v", c.args, files)
		}
		f, err := os.Open(files[0])
		if err != nil {
			t.Fatal(err)
		}
		sum, err := readLoadSummary(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		p := sum.Parameters
		if load.Padding(p.Padding) != c.padding || (c.seed != 0 && p.PaddingSeed != c.seed) || (c.padding == load.PaddingRandom && p.PaddingSeed == 0) {
			t.Errorf("%v: padding %q seed %d, want %q seed %d", c.args, p.Padding, p.PaddingSeed, c.padding, c.seed)
		}
	}
}

// readLoadSummary decodes a load summary JSON, refusing unknown fields.
func readLoadSummary(f *os.File) (load.Summary, error) {
	var s load.Summary
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, err
	}
	if s.Format != load.SummaryFormat {
		return s, fmt.Errorf("%s: format %q, expected %q", f.Name(), s.Format, load.SummaryFormat)
	}
	return s, nil
}

// TestThroughputPaddingFlag: run throughput takes run load's --padding and
// --padding-seed, names them in meta.json's mode, and refuses an unknown
// padding before anything is written.
func TestThroughputPaddingFlag(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run(t, "throughput", "-s", "intraprocess_reliable", "--payloads", "16", "--windows", "2", "--window", "1ms",
		"--max-in-flight", "10", "--precision", "0.5", "--padding", "random", "--padding-seed", "7", "-q", "-o", out, "--name", "r")
	if code != 0 {
		t.Fatalf("throughput --padding random: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "r", "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "padded after the header with random (seed 7)") {
		t.Fatalf("meta.json does not name the padding asked for:\n%s", b)
	}
	code, _, stderr = run(t, "throughput", "-s", "intraprocess_reliable", "--payloads", "16", "--padding", "bogus", "-q", "-o", out, "--name", "bad")
	if code != 2 || !strings.Contains(stderr, "--padding") {
		t.Fatalf("--padding bogus: exit %d, %s; want exit 2 naming --padding", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "bad")); !os.IsNotExist(err) {
		t.Fatalf("a refused run left its folder: %v", err)
	}
}
