package roles_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/cliapp"
	"github.com/mqgate/mqgate/internal/cliapp/checkcmd"
	"github.com/mqgate/mqgate/internal/cliapp/processcmd"
	"github.com/mqgate/mqgate/internal/config"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/measurements"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/meta/metatest"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/roles"
)

// embeddedNATS starts a NATS server inside the test process.
func embeddedNATS(t *testing.T) string {
	t.Helper()
	url, stop, err := nats.Transport{}.StartEmbedded(context.Background(), driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop() })
	return url
}

// merged is base with extra's flags added over it, a new map.
func merged(base, extra map[string]any) map[string]any {
	m := maps.Clone(base)
	maps.Copy(m, extra)
	return m
}

// settings resolves a role's settings from flags, as the command does.
func settings(t *testing.T, role string, flags map[string]any) roles.Settings {
	t.Helper()
	c, err := config.Load(config.Sources{Flags: flags, Known: roles.Keys})
	if err != nil {
		t.Fatal(err)
	}
	s, err := roles.Resolve(role, c, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func rawRows(t *testing.T, dir, typ string) []measurements.Sample {
	t.Helper()
	path := filepath.Join(dir, experiment.RawFileName(typ))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []measurements.Sample
	r := measurements.NewReader(f, path)
	for r.Next() {
		out = append(out, r.Sample())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkSubLatency checks a sub's latency percentiles, in its report and
// its summary line, against its raw file's samples.
func checkSubLatency(t *testing.T, dir string, rows []measurements.Sample, summary string) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, roles.ReportsDir, "sub-*.json"))
	if len(paths) != 1 {
		t.Fatalf("sub reports %v", paths)
	}
	var sr roles.SubReport
	readJSON(t, paths[0], &sr)
	got := checkPercentiles(t, "sub latency", rows, []float64{50, 90, 95, 99},
		[]*float64{sr.LatencyP50Us, sr.LatencyP90Us, sr.LatencyP95Us, sr.LatencyP99Us})
	want := fmt.Sprintf(", latency p50 %s, p90 %s, p95 %s, p99 %s", result.Micros(got[0]), result.Micros(got[1]), result.Micros(got[2]), result.Micros(got[3]))
	if !strings.Contains(summary, want) {
		t.Errorf("summary %q lacks %q", summary, want)
	}
}

// checkReqTimes checks a req's times to the first and last reply in its
// report against its two raw files' samples.
func checkReqTimes(t *testing.T, rr roles.ReqReport, first, last []measurements.Sample) {
	t.Helper()
	checkPercentiles(t, "time to first reply", first, []float64{50, 99}, []*float64{rr.FirstP50Us, rr.FirstP99Us})
	checkPercentiles(t, "time to last reply", last, []float64{50, 99}, []*float64{rr.LastP50Us, rr.LastP99Us})
}

// checkPercentiles checks that a report's ps-th percentiles (µs) are those
// of the samples of rows, and returns them; a null one fails t.
func checkPercentiles(t *testing.T, what string, rows []measurements.Sample, ps []float64, report []*float64) []float64 {
	t.Helper()
	us := make([]float64, len(rows))
	for i, r := range rows {
		us[i] = r.Latency
	}
	slices.Sort(us)
	got := make([]float64, len(ps))
	for i, p := range ps {
		got[i] = measured(t, fmt.Sprintf("%s p%g", what, p), report[i])
		if want := numpyPercentile(us, p); len(us) == 0 || !(math.Abs(got[i]-want) <= 0.01) {
			t.Errorf("%s p%g: report %g, raw file %g (%d samples)", what, p, got[i], want, len(us))
		}
	}
	return got
}

// numpyPercentile is numpy's default percentile (linear interpolation
// between the closest ranks) of sorted, written apart from the code under
// test.
func numpyPercentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	rank := p / 100 * float64(len(sorted)-1)
	lo := int(math.Floor(rank))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (rank-float64(lo))*(sorted[hi]-sorted[lo])
}

// measured is *v, a figure a report measured; a null one (nothing
// measured) fails t, and is NaN.
func measured(t *testing.T, what string, v *float64) float64 {
	t.Helper()
	if v == nil {
		t.Errorf("%s: null in the report, want a measured value", what)
		return math.NaN()
	}
	return *v
}

// checkNull checks that a report (path) writes each of fields as JSON
// null: nothing was measured, and 0 would read as a measurement.
func checkNull(t *testing.T, path string, fields ...string) {
	t.Helper()
	var rep map[string]json.RawMessage
	readJSON(t, path, &rep)
	for _, f := range fields {
		if v, ok := rep[f]; !ok || string(v) != "null" {
			t.Errorf("%s: %q is %s, want null (nothing measured)", path, f, v)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestResolve checks defaults, derived keys and the errors of bad values.
func TestResolve(t *testing.T) {
	s := settings(t, roles.RoleSub, map[string]any{})
	if s.Driver != "nats" || s.Expr != "mqgate.bench.data" || s.Type() != "nats_best_effort_pubsub" || s.RunID != "2026-01-02_03-04-05" || s.Dir() != filepath.Join("results", "2026-01-02_03-04-05") {
		t.Errorf("defaults: %+v", s)
	}
	q := settings(t, roles.RoleReq, map[string]any{"reliability": "reliable", "serve-prefix": "svc.a"})
	if q.Expr != "svc.a" || q.Type() != "nats_reliable_query" || q.LastType() != "nats_reliable_querylast" {
		t.Errorf("req: %+v", q)
	}
	for flags, want := range map[string]string{
		"rate=0":             "--rate 0: expected more than 0, up to 1000000000",
		"rate=NaN":           "--rate NaN: expected more than 0, up to 1000000000",
		"rate=1e308":         "--rate 1e+308: expected",
		"qps=Inf":            "--qps +Inf: expected",
		"duration=1000000h":  "--duration 1000000h: expected 1ms to 24h",
		"seed=-1":            "--seed -1: expected 0 to",
		"prom-port=70000":    "--prom-port 70000: expected 0 (none) or 1 to 65535",
		"prom-addr=x":        `--prom-addr "x": expected HOST:PORT`,
		"proc-delay=2h":      "--proc-delay 2h0m0s±0s: expected delays of 0 to 1h",
		"payload=8":          "--payload 8: expected 24",
		"reliability=maybe":  `reliability (from --reliability): "maybe", expected best_effort or reliable`,
		"proc-delay=2ms±x":   "proc-delay (from --proc-delay)",
		"label=Bad":          "--label",
		"run-id=../x":        "--run-id",
		"log-level=loud":     "--log-level",
		"timeout=soon":       "timeout (from --timeout): soon is not a duration",
		"publishers=300":     "--publishers 300: expected 1 to 256",
		"instance=-1":        "--instance -1: expected 0 to 255",
		"instance=256":       "--instance 256: expected 0 to 255",
		"clock-offset=maybe": "clock-offset (from --clock-offset)",
	} {
		k, v, _ := strings.Cut(flags, "=")
		c, err := config.Load(config.Sources{Flags: map[string]any{k: v}, Known: roles.Keys})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := roles.Resolve(roles.RolePub, c, time.Now()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", flags, err, want)
		}
	}
	d, j, err := roles.ParseProcDelay("2ms±500us")
	if err != nil || d != 2*time.Millisecond || j != 500*time.Microsecond {
		t.Errorf("ParseProcDelay: %v %v %v", d, j, err)
	}
	if d, j, err = roles.ParseProcDelay("0.001,0.0002"); err != nil || d != time.Millisecond || j != 200*time.Microsecond {
		t.Errorf("ParseProcDelay seconds: %v %v %v", d, j, err)
	}
}

// TestPubSub runs a sub and two pub processes' worth of roles over an
// embedded NATS server: every message is a sample, nothing is lost, the
// clock offset (one host: near 0) is recorded, and the experiment is the
// pipeline's (meta.json required fields, a raw file process can read).
func TestPubSub(t *testing.T) {
	url := embeddedNATS(t)
	out := t.TempDir()
	common := map[string]any{"endpoint": []string{url}, "run-id": "ps", "out-dir": out, "timeout": "10s", "payload": "100"}
	with := func(extra map[string]any) map[string]any { return merged(common, extra) }
	sub := settings(t, roles.RoleSub, with(map[string]any{"publishers": "3", "subscribers": "2", "csv": filepath.Join(out, "sub.csv"), "snapshot-interval": "200ms"}))
	var subOut roles.Outcome
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		subOut = roles.Run(context.Background(), sub)
	}()
	time.Sleep(300 * time.Millisecond) // the subscription is in place
	var pubs [2]roles.Outcome
	for i, n := range []string{"2", "1"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pubs[i] = roles.Run(context.Background(), settings(t, roles.RolePub, with(map[string]any{"publishers": n, "rate": "200", "duration": "1s", "instance": []string{"1", "2"}[i], "topics": "2"})))
		}()
	}
	wg.Wait()
	for _, o := range append(pubs[:], subOut) {
		if o.Err != nil || o.Incomplete || o.Interrupted {
			t.Fatalf("%+v", o)
		}
	}
	dir := filepath.Join(out, "ps")
	var sr roles.SubReport
	readJSON(t, filepath.Join(dir, roles.ReportsDir, "sub-pubsub-"+strconv.Itoa(sub.Instance)+".json"), &sr)
	var sent uint64
	for _, p := range sr.Publishers {
		if p.Sent == nil || p.Lost != 0 || p.Duplicates != 0 {
			t.Errorf("publisher %+v", p)
		}
		if p.Sent != nil {
			sent += *p.Sent
		}
	}
	// Two subscriptions each count every message.
	rows := rawRows(t, dir, "nats_best_effort_pubsub")
	if len(sr.Publishers) != 6 || sent == 0 || uint64(len(rows)) != sent || sr.Samples != len(rows) {
		t.Fatalf("%d publishers, %d sent, %d rows, report %d samples", len(sr.Publishers), sent, len(rows), sr.Samples)
	}
	checkSubLatency(t, dir, rows, subOut.Summary)
	for _, r := range rows {
		if r.Payload != 100 {
			t.Fatalf("row %+v", r)
		}
	}
	if len(sr.ClockOffset) != 2 {
		t.Errorf("clock offsets %+v", sr.ClockOffset)
	}
	for inst, est := range sr.ClockOffset {
		// One host, one clock: the estimate is 0 within its bound.
		if est.Disabled || est.Method != "ntp-min-delay" || abs(est.OffsetNs) > est.ErrorBoundNs+1000 {
			t.Errorf("instance %s: %+v", inst, est)
		}
	}
	doc, err := os.ReadFile(filepath.Join(dir, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if missing, _ := metatest.MissingFields(doc); len(missing) > 0 {
		t.Errorf("meta.json lacks %v", missing)
	}
	m, _ := meta.ReadFile(filepath.Join(dir, meta.FileName))
	if m.Latency != meta.LatencyOneWay || !m.Completed || len(m.SubExperiments) != 1 || m.SubExperiments[0].System.Extra["clock_offset_method.1"] != "ntp-min-delay" {
		t.Errorf("meta: %s", doc)
	}
	// The gates read the merged experiment: process summarises it, check
	// passes generous requirements and fails impossible ones.
	var o, e bytes.Buffer
	if code := cliapp.Run(context.Background(), processcmd.App(), []string{"process", "--no-plots", dir}, &o, &e); code != 0 {
		t.Fatalf("process: exit %d: %s", code, e.String())
	}
	for req, want := range map[string]int{"1000000000.000": 0, "0.001": 1} {
		rf := filepath.Join(out, "req"+strconv.Itoa(want)+".csv")
		os.WriteFile(rf, []byte("Experiment type,Bytes,Median,99%,Max,Latency\nnats_best_effort_pubsub,100,"+req+","+req+","+req+",one-way\n"), 0o644)
		if code := cliapp.Run(context.Background(), checkcmd.App(), []string{"check", "--requirements", rf, "--experiment-directory", dir,
			"--plots-directory", filepath.Join(out, "checkplots")}, &o, &e); code != want {
			t.Errorf("check against %s: exit %d, want %d: %s", req, code, want, e.String())
		}
	}
	snap, _ := os.ReadFile(filepath.Join(out, "sub.csv"))
	if !strings.HasPrefix(string(snap), roles.SnapshotHeader+"\n") || strings.Count(string(snap), "\n") < 3 {
		t.Errorf("snapshot CSV:\n%s", snap)
	}
	// The windows add up to the run: every sample, nothing lost.
	csv := filepath.Join(out, "sub.csv")
	if got := csvTotal(t, csv, "Received"); got != uint64(len(rows)) || csvTotal(t, csv, "Lost")+csvTotal(t, csv, "Duplicates") != 0 || slices.Max(csvColumn(t, csv, "p95 [µs]")) == 0 {
		t.Errorf("snapshots: %d received of %d samples:\n%s", got, len(rows), snap)
	}
	// A second sub of the same label is refused before it measures.
	if o := roles.Run(context.Background(), sub); o.Err == nil || !strings.Contains(o.Err.Error(), "already holds sub-experiment nats_best_effort_pubsub") {
		t.Errorf("second sub: %+v", o)
	}
	// A req into this one-way experiment would mix definitions.
	if o := roles.Run(context.Background(), settings(t, roles.RoleReq, with(nil))); o.Err == nil || !strings.Contains(o.Err.Error(), "holds one-way latencies and this role measures rtt") {
		t.Errorf("req into a one-way experiment: %+v", o)
	}
}

// TestSubNoMessage: a sub no publisher reaches measures nothing; its run is
// incomplete, and its report's latency percentiles are null, not 0 (which
// would read as instant delivery), as its summary line says none.
func TestSubNoMessage(t *testing.T) {
	url := embeddedNATS(t)
	out := t.TempDir()
	sub := settings(t, roles.RoleSub, map[string]any{"endpoint": []string{url}, "run-id": "nm", "out-dir": out,
		"duration": "300ms", "timeout": "200ms"})
	o := roles.Run(context.Background(), sub)
	if o.Err != nil || !o.Incomplete || !strings.Contains(o.Summary, "no message within --duration + --timeout") {
		t.Fatalf("%+v", o)
	}
	if strings.Contains(o.Summary, "latency") {
		t.Errorf("summary %q: a latency without samples", o.Summary)
	}
	path := filepath.Join(out, "nm", roles.ReportsDir, "sub-pubsub-"+strconv.Itoa(sub.Instance)+".json")
	var sr roles.SubReport
	readJSON(t, path, &sr)
	if sr.Samples != 0 || sr.Completed {
		t.Errorf("report: %d samples, completed %v", sr.Samples, sr.Completed)
	}
	checkNull(t, path, "latency_p50_us", "latency_p90_us", "latency_p95_us", "latency_p99_us")
	var raw map[string]json.RawMessage
	readJSON(t, path, &raw)
	if got := string(raw["publishers"]); got != "[]" {
		t.Errorf("publishers: %s, want [] (none seen, not an unknown list)", got)
	}
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// TestPubSubClockOffsetDisabled: with --clock-offset false the sub's report
// says so as the Zenoh helper's report and meta.json do: method
// "disabled" (it was empty).
func TestPubSubClockOffsetDisabled(t *testing.T) {
	url := embeddedNATS(t)
	out := t.TempDir()
	common := map[string]any{"endpoint": []string{url}, "run-id": "co", "out-dir": out, "timeout": "10s", "payload": "100"}
	with := func(extra map[string]any) map[string]any { return merged(common, extra) }
	sub := settings(t, roles.RoleSub, with(map[string]any{"publishers": "1", "clock-offset": "false"}))
	var subOut roles.Outcome
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		subOut = roles.Run(context.Background(), sub)
	}()
	time.Sleep(300 * time.Millisecond) // the subscription is in place
	pubOut := roles.Run(context.Background(), settings(t, roles.RolePub, with(map[string]any{"publishers": "1", "rate": "100", "duration": "1s", "instance": "1"})))
	wg.Wait()
	if pubOut.Err != nil || subOut.Err != nil {
		t.Fatalf("pub %+v, sub %+v", pubOut, subOut)
	}
	var sr roles.SubReport
	readJSON(t, filepath.Join(out, "co", roles.ReportsDir, "sub-pubsub-"+strconv.Itoa(sub.Instance)+".json"), &sr)
	if est, ok := sr.ClockOffset["1"]; !ok || !est.Disabled || est.Method != "disabled" {
		t.Errorf("clock offsets %+v", sr.ClockOffset)
	}
}
