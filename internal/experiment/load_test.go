package experiment

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

const summaryText = "Bytes,Samples,Max,Min,Mean,Median,Stdev,Mean jitter,Max jitter,90%,99%,99.99%\n" +
	"16,10000,122.599,7.029,8.272,7.486,2.367,0.534,109.092,10.607,14.735,58.631\n"

func write(t testing.TB, path, data string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeMeta writes dir/meta.json; mutate adjusts a completed half-rtt run.
func writeMeta(t testing.TB, dir string, mutate func(*meta.Meta)) {
	t.Helper()
	m := &meta.Meta{Experiment: filepath.Base(dir), Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Completed: true, Latency: meta.LatencyHalfRTT, System: meta.System{Name: "sut", Version: "v2.0.0"}}
	if mutate != nil {
		mutate(m)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := meta.Write(filepath.Join(dir, meta.FileName), m); err != nil {
		t.Fatal(err)
	}
}

// experimentDir writes an experiment with one summary of type typ.
func experimentDir(t testing.TB, dir, typ string) string {
	t.Helper()
	write(t, filepath.Join(dir, SummaryFileName(typ)), summaryText)
	return dir
}

func TestLoad(t *testing.T) {
	root := t.TempDir()
	withMeta := experimentDir(t, filepath.Join(root, "run1"), "a")
	experimentDir(t, withMeta, "b")
	writeMeta(t, withMeta, func(m *meta.Meta) { m.Latency = meta.LatencyRTT; m.System.Commit = "0123456789abcdef" })
	write(t, filepath.Join(withMeta, RawFileName("c")), "Sample,Payload [Bytes],Latency [us]\n")

	e, err := Load(withMeta)
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "run1" || e.Dir != withMeta || e.Meta == nil || e.StartFrom != "meta.json" || !e.Start.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("got %+v", e)
	}
	if e.Latency != meta.LatencyRTT || !e.LatencyStated || !e.Completed() || e.Version != "v2.0.0" || e.Commit != "0123456789abcdef" {
		t.Errorf("latency %q stated %v completed %v version %q commit %q", e.Latency, e.LatencyStated, e.Completed(), e.Version, e.Commit)
	}
	if len(e.Summaries) != 2 || e.Summaries[0].Type != "a" || e.Summary("b") == nil || e.Summary("b").Rows[0].Median != 7.486 {
		t.Errorf("summaries %+v", e.Summaries)
	}
	if len(e.Warnings) != 1 || !strings.Contains(e.Warnings[0], RawFileName("c")+" has no summary") {
		t.Errorf("warnings %q, want one about the raw file without summary", e.Warnings)
	}

	// Fast-RTPS: no meta.json, the start time from the folder name, half-rtt
	// and complete by assumption.
	fast := experimentDir(t, filepath.Join(root, "2019-11-05_10-00-00"), "a")
	e, err = Load(fast)
	if err != nil {
		t.Fatal(err)
	}
	if e.Meta != nil || e.StartFrom != "name" || e.Latency != meta.LatencyHalfRTT || e.LatencyStated || !e.Completed() || e.Host() != nil {
		t.Errorf("Fast-RTPS experiment: %+v", e)
	}
}

func TestLoadErrors(t *testing.T) {
	root := t.TempDir()
	file := write(t, filepath.Join(root, "file"), "x")
	empty := filepath.Join(root, "empty")
	os.Mkdir(empty, 0o755)
	badMeta := experimentDir(t, filepath.Join(root, "badmeta"), "a")
	write(t, filepath.Join(badMeta, meta.FileName), "{\n  \"start\": \"2024-01-01T00:00:00Z\",\n  oops\n}\n")
	badLatency := experimentDir(t, filepath.Join(root, "badlatency"), "a")
	writeMeta(t, badLatency, func(m *meta.Meta) { m.Latency = "round-trip" })
	badSummary := filepath.Join(root, "badsummary")
	write(t, filepath.Join(badSummary, SummaryFileName("a")), "Bytes,Samples\n")
	for _, tt := range []struct{ name, dir, want string }{
		{"missing", filepath.Join(root, "nope"), "nope: no such directory (expected an experiment directory)"},
		{"a file", file, "file: not a directory"},
		{"no summary", empty, "empty: no summary (measurements_<type>_summary.csv): run process on the experiment first (it holds no throughput summary throughput_<type>.csv either)"},
		{"malformed meta.json", badMeta, "badmeta/meta.json:3:3: invalid JSON"},
		{"unknown latency", badLatency, `badlatency/meta.json:42:14: field "latency": unknown latency definition "round-trip": expected half-rtt, rtt or one-way`},
		{"malformed summary", badSummary, "badsummary/measurements_a_summary.csv:1: header is"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load(%s) = %v, want an error containing %q", tt.dir, err, tt.want)
			}
		})
	}
}

// TestStale: a summary older than its raw file (the raw file rewritten after
// process ran) is refused, telling to run process again; a raw file modified
// within StaleTolerance (copies that do not keep modification times), a
// newer summary, and a summary without raw file (published Fast-RTPS
// summaries) are accepted.
func TestStale(t *testing.T) {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		rawAfter time.Duration // raw mtime − summary mtime; 0: no raw file
		noRaw    bool
		stale    bool
	}{
		{"raw rewritten an hour later", time.Hour, false, true},
		{"raw rewritten 2 s later", 2 * time.Second, false, true},
		{"copied in the wrong order", 300 * time.Millisecond, false, false},
		{"summary newer", -time.Minute, false, false},
		{"same time", 0, false, false},
		{"no raw file", 0, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := experimentDir(t, t.TempDir(), "a")
			sum := filepath.Join(dir, SummaryFileName("a"))
			if err := os.Chtimes(sum, base, base); err != nil {
				t.Fatal(err)
			}
			if !tt.noRaw {
				raw := write(t, filepath.Join(dir, RawFileName("a")), "Sample,Payload [Bytes],Latency [us]\n1,16,7.486\n")
				if err := os.Chtimes(raw, base, base.Add(tt.rawAfter)); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(dir)
			if got := err != nil; got != tt.stale {
				t.Fatalf("stale %v, want %v (error %v)", got, tt.stale, err)
			}
			if tt.stale {
				for _, want := range []string{sum + ": stale: " + RawFileName("a") + " was modified", "after this summary was written", "run process on " + dir + " again"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q lacks %q", err, want)
					}
				}
			}
		})
	}
}

// TestLoadRoot: one rule for every tool. Directories and symbolic links to
// directories holding summaries are experiments; every other entry is
// skipped with a warning naming it and why.
func TestLoadRoot(t *testing.T) {
	root := t.TempDir()
	elsewhere := t.TempDir()
	experimentDir(t, filepath.Join(root, "b-real"), "a")
	experimentDir(t, filepath.Join(elsewhere, "linked"), "a")
	must(t, os.Symlink(filepath.Join(elsewhere, "linked"), filepath.Join(root, "a-link")))
	must(t, os.Symlink(filepath.Join(root, "b-real"), filepath.Join(root, "c-second-link")))
	must(t, os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(root, "d-dangling")))
	must(t, os.Symlink(filepath.Join(root, "e-loop"), filepath.Join(root, "e-loop")))
	write(t, filepath.Join(root, "f-file.csv"), "x")
	must(t, os.MkdirAll(filepath.Join(root, "g-plots"), 0o755))
	experimentDir(t, filepath.Join(root, ".hidden"), "a")

	exps, warnings, err := LoadRoot(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range exps {
		names = append(names, e.Name)
	}
	if want := []string{"a-link", "b-real"}; !slices.Equal(names, want) {
		t.Errorf("experiments %q, want %q", names, want)
	}
	want := []string{
		"skipped " + filepath.Join(root, ".hidden") + ": hidden",
		"skipped " + filepath.Join(root, "c-second-link") + ": the same directory as " + filepath.Join(root, "b-real") + ", read once",
		"skipped " + filepath.Join(root, "d-dangling") + ": a symbolic link to nothing (dangling)",
		"skipped " + filepath.Join(root, "e-loop") + ": a symbolic link that cannot be followed (too many levels of symbolic links)",
		"skipped " + filepath.Join(root, "f-file.csv") + ": not a directory",
		"skipped " + filepath.Join(root, "g-plots") + ": no measurements_<type>_summary.csv in it (run process on it first?), nor throughput_<type>.csv",
	}
	if !slices.Equal(warnings, want) {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
}

func TestLoadRootErrors(t *testing.T) {
	root := t.TempDir()
	file := write(t, filepath.Join(root, "file"), "x")
	empty := filepath.Join(root, "empty")
	must(t, os.Mkdir(empty, 0o755))
	flat := experimentDir(t, filepath.Join(root, "flat"), "a")
	noSummaries := filepath.Join(root, "nosummaries")
	must(t, os.MkdirAll(filepath.Join(noSummaries, "2024-01-01_00-00-00"), 0o755))
	bad := filepath.Join(root, "bad")
	experimentDir(t, filepath.Join(bad, "1"), "a")
	write(t, filepath.Join(bad, "2", SummaryFileName("a")), "garbage\n")
	experimentDir(t, filepath.Join(bad, "3"), "a")
	for _, tt := range []struct{ name, root, want string }{
		{"missing", filepath.Join(root, "nope"), "nope: no such directory (expected a directory holding one folder per experiment)"},
		{"a file", file, "file: not a directory"},
		{"empty", empty, "empty: holds nothing"},
		{"an experiment, not a root", flat, "flat: holds summaries itself but no experiment folder"},
		{"no summaries", noSummaries, "nosummaries: no experiment: no folder in it holds a summary"},
		{"a malformed summary", bad, "bad/2/measurements_a_summary.csv:1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := LoadRoot(context.Background(), tt.root)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LoadRoot(%s) = %v, want an error containing %q", tt.root, err, tt.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := LoadRoot(ctx, bad); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

func TestLoadDirsOrder(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for _, n := range []string{"z", "a", "m"} {
		dirs = append(dirs, experimentDir(t, filepath.Join(root, n), "a"))
	}
	exps, err := LoadDirs(context.Background(), dirs)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range exps {
		if e.Dir != dirs[i] {
			t.Errorf("experiment %d is %s, want %s", i, e.Dir, dirs[i])
		}
	}
}

func TestSortChronological(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2024, 1, d, 0, 0, 0, 0, time.UTC) }
	exp := func(name string, start time.Time) *Experiment { return &Experiment{Name: name, Start: start} }
	tests := []struct {
		name string
		in   []*Experiment
		want []string
	}{
		{"by time", []*Experiment{exp("a", day(3)), exp("b", day(1)), exp("c", day(2))}, []string{"b", "c", "a"}},
		{"ties by name", []*Experiment{exp("b", day(1)), exp("a", day(1))}, []string{"a", "b"}},
		{"undated last, by name", []*Experiment{exp("z", time.Time{}), exp("x", day(2)), exp("build-10", time.Time{}), exp("build-9", time.Time{})}, []string{"x", "build-9", "build-10", "z"}},
		{"all undated", []*Experiment{exp("r2", time.Time{}), exp("r10", time.Time{}), exp("r1", time.Time{})}, []string{"r1", "r2", "r10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			SortChronological(tt.in)
			var got []string
			for _, e := range tt.in {
				got = append(got, e.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNaturalLess(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"a", "b", true},
		{"b", "a", false},
		{"a", "a", false},
		{"build-9", "build-10", true},
		{"build-10", "build-9", false},
		{"v1.9.2", "v1.10.0", true},
		{"x01", "x1", false}, // equal numbers: the shorter spelling first
		{"x1", "x01", true},
		{"", "a", true},
		{"2024-01-02_00-00-00", "2024-01-10_00-00-00", true},
	}
	for _, tt := range tests {
		if got := NaturalLess(tt.a, tt.b); got != tt.want {
			t.Errorf("NaturalLess(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// FuzzNaturalLess checks that NaturalLess is a strict order: irreflexive,
// asymmetric, and total on distinct strings.
func FuzzNaturalLess(f *testing.F) {
	for _, s := range [][2]string{{"a1", "a01"}, {"build-9", "build-10"}, {"", "0"}, {"007", "7"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ab, ba := NaturalLess(a, b), NaturalLess(b, a)
		if a == b && (ab || ba) {
			t.Fatalf("NaturalLess(%q, %q) is not irreflexive", a, b)
		}
		if ab && ba {
			t.Fatalf("NaturalLess(%q, %q) and the reverse both hold", a, b)
		}
		if a != b && !ab && !ba {
			t.Fatalf("NaturalLess cannot order distinct %q and %q", a, b)
		}
	})
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

const throughputText = "Payload [Bytes],Mode,Offered,Samples,Median [msg/s],Mean [msg/s],Stdev [msg/s],Median [Mb/s],Mean [Mb/s],Stdev [Mb/s]\n" +
	"16,window,100,100,250000.000,249000.000,1000.000,32.000,31.872,0.128\n" +
	"16,rate,5000,10,4990.000,4995.000,10.000,0.639,0.639,0.001\n"

// TestLoadThroughput: a folder holding throughput summaries only is an
// experiment (for Load and LoadRoot); the search file is not a summary; a
// malformed or ambiguous throughput file is an error naming file and line.
func TestLoadThroughput(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "tput")
	write(t, filepath.Join(dir, ThroughputFileName("intraprocess_best_effort")), throughputText)
	write(t, filepath.Join(dir, "throughput_intraprocess_best_effort_search.csv"), throughputText+"garbage\n")
	writeMeta(t, dir, func(m *meta.Meta) { m.Latency = meta.LatencyOneWay })
	e, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Summaries) != 0 || len(e.Throughputs) != 1 {
		t.Fatalf("summaries %d, throughputs %+v", len(e.Summaries), e.Throughputs)
	}
	tp := e.Throughput("intraprocess_best_effort")
	if tp == nil || len(tp.Rows) != 2 || tp.At(result.Key{Payload: 16, Mode: "window", Offered: 0}).Median != 250000 || tp.At(result.Key{Payload: 16, Mode: "rate", Offered: 5000}).Median != 4990 || tp.At(result.Key{Payload: 16, Mode: "rate", Offered: 100}) != nil {
		t.Errorf("throughput %+v", tp)
	}
	experimentDir(t, filepath.Join(root, "latency"), "a")
	exps, warnings, err := LoadRoot(context.Background(), root)
	if err != nil || len(exps) != 2 || len(warnings) != 0 {
		t.Errorf("LoadRoot: %d experiments, warnings %q, %v", len(exps), warnings, err)
	}

	for _, tt := range []struct{ name, text, want string }{
		{"header", "Payload,Mode\n", ":1: header"},
		{"no rows", strings.SplitAfter(throughputText, "\n")[0], ":2: no rows"},
		{"second window row", throughputText + "16,window,10,100,250000.000,249000.000,1000.000,32.000,31.872,0.128\n", ":4: a second window row for payload 16 B (line 2)"},
		{"repeated rate", throughputText + "16,rate,5000,10,4990.000,4995.000,10.000,0.639,0.639,0.001\n", ":4: payload 16 B, mode rate, offered 5000 repeats line 3"},
		{"not a number", strings.Replace(throughputText, "250000.000", "fast", 1), `:2: column "Median [msg/s]": "fast" is not a finite number`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "bad")
			path := write(t, filepath.Join(bad, ThroughputFileName("x")), tt.text)
			_, err := Load(bad)
			if err == nil || !strings.Contains(err.Error(), path+tt.want) {
				t.Errorf("Load = %v, want an error containing %q", err, path+tt.want)
			}
		})
	}
}

// TestLoadBurst: a folder holding only burst files (run burst writes the
// measurements and their summary) is an experiment; its burst summaries
// are read, a malformed or empty one is an error naming it.
func TestLoadBurst(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "2026-01-02_03-04-05")
	rows := []result.BurstRow{result.NewBurstRow(16, 100, 20, 1000, 5000, 990, 6000)}
	must(t, os.MkdirAll(dir, 0o755))
	must(t, result.WriteBurstFile(filepath.Join(dir, BurstFileName("udp")), rows))
	must(t, result.WriteBurstFile(filepath.Join(dir, BurstSummaryFileName("udp")), rows))
	e, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Bursts) != 1 || e.Bursts[0].Type != "udp" || len(e.Bursts[0].Rows) != 1 || e.Bursts[0].Rows[0].Lost != 10 ||
		e.Summaries != nil || e.Throughputs != nil || len(e.Warnings) != 0 {
		t.Errorf("Load = %+v", e)
	}
	exps, warnings, err := LoadRoot(context.Background(), root)
	if err != nil || len(exps) != 1 || len(warnings) != 0 || len(exps[0].Bursts) != 1 {
		t.Fatalf("LoadRoot = %v, %v, %v", exps, warnings, err)
	}
	if !exps[0].Start.Equal(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("start %v, want the folder name's", exps[0].Start)
	}
	empty := write(t, filepath.Join(dir, BurstSummaryFileName("tcp")), result.BurstHeader+"\n")
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty burst summary: %v", err)
	}
}

// TestStaleBurst: a burst summary whose raw burst file was rewritten after
// it is refused by Load and FreshBurstSummaryFiles, as a latency summary is
// (it was read, and gated, without a word); a fresh one is read.
func TestStaleBurst(t *testing.T) {
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, rawAfter := range []time.Duration{0, 2 * time.Second} {
		dir := t.TempDir()
		row := "\n16,100,0,100,1000.000,100000.000,12.800,100,0,1000.000,100000.000,12.800\n"
		sum := write(t, filepath.Join(dir, BurstSummaryFileName("tcp")), result.BurstHeader+row)
		raw := write(t, filepath.Join(dir, BurstFileName("tcp")), result.BurstHeader+row)
		if err := os.Chtimes(sum, base, base); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(raw, base, base.Add(rawAfter)); err != nil {
			t.Fatal(err)
		}
		_, err := Load(dir)
		_, ferr := FreshBurstSummaryFiles(dir)
		stale := rawAfter > StaleTolerance
		for _, e := range []error{err, ferr} {
			if (e != nil) != stale || (stale && !strings.Contains(e.Error(), sum+": stale: "+BurstFileName("tcp")+" was modified")) {
				t.Errorf("raw %v after: %v", rawAfter, e)
			}
		}
	}
}
