package history

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/goldenfile"

	"github.com/mqgate/mqgate/internal/requirements"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/synth"
)

// golden compares got with testdata/<name>, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

func loadTestdata(t *testing.T) *History {
	t.Helper()
	reqs, err := requirements.ReadFile("testdata/latency_requirements.csv")
	if err != nil {
		t.Fatal(err)
	}
	h, err := Load(context.Background(), "testdata/experiments", reqs, false)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHistoryCSVGolden(t *testing.T) {
	h := loadTestdata(t)
	var b bytes.Buffer
	if err := h.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "history.golden.csv", b.Bytes())
}

func TestGaps(t *testing.T) {
	h := loadTestdata(t)
	if len(h.SubExperiments) != 2 {
		t.Fatalf("%d sub-experiments, want 2", len(h.SubExperiments))
	}
	// Experiments: build-a, 2019-11-06_10-00-00, 2019-11-05_10-00-00.
	intra := h.SubExperiments[1]
	if intra.Type != "intraprocess_best_effort" {
		t.Fatalf("second sub-experiment %s", intra.Type)
	}
	med := intra.Series("Median", 0)
	if med[0] != 1.2 || !math.IsNaN(med[1]) || !math.IsNaN(med[2]) {
		t.Errorf("intraprocess_best_effort median = %v, want [1.2 NaN NaN]", med)
	}
	inter := h.SubExperiments[0]
	if !slices.Equal(inter.Payloads, []int{16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}) {
		t.Errorf("payloads = %v", inter.Payloads)
	}
	p32 := inter.Series("99%", 1)
	if p32[0] != 54 || !math.IsNaN(p32[1]) || p32[2] != 55.018 {
		t.Errorf("interprocess_reliable 32 B 99%% = %v, want [54 NaN 55.018]", p32)
	}
	warn := strings.Join(h.Warnings, "\n")
	for _, want := range []string{
		"intraprocess_best_effort: missing in 2 of 3 experiment(s), drawn as gaps: 2019-11-06_10-00-00, 2019-11-05_10-00-00",
		"interprocess_reliable: payload 32 bytes missing in 1 of 3 experiment(s), drawn as gaps: 2019-11-06_10-00-00",
		"interprocess_reliable: payload 128 bytes missing in 2 of 3 experiment(s)",
		"interprocess_reliable: no requirements for payload(s) 256, 512, 1024, 2048, 4096, 8192, 16384 bytes",
		"notes",
	} {
		if !strings.Contains(warn, want) {
			t.Errorf("warnings lack %q:\n%s", want, warn)
		}
	}
}

func TestRequirementMarking(t *testing.T) {
	tests := []struct {
		y    []float64
		req  float64
		want []bool
		over int
	}{
		{[]float64{1, 2, 3}, 2, []bool{false, false, true}, 1},
		{[]float64{3, math.NaN(), 1}, 2, []bool{true, false, false}, 1},
		{[]float64{1, 2}, math.NaN(), nil, 0},
		{[]float64{5, 5}, 4.999, []bool{true, true}, 2},
	}
	for _, tt := range tests {
		got, over := overRequirement("Median", tt.y, tt.req)
		if !slices.Equal(got, tt.want) || over != tt.over {
			t.Errorf("overRequirement(%v, %v) = %v, %d; want %v, %d", tt.y, tt.req, got, over, tt.want, tt.over)
		}
	}

	// In the test data the Fast-RTPS experiment's 16 B median, 7.486, is
	// over its 7.450 requirement; build-a's 7.400 is not.
	h := loadTestdata(t)
	for _, j := range h.Jobs() {
		if j.Kind == KindPayload && j.Type == "interprocess_reliable" && j.Payload == 16 && j.Magnitude == "Median" {
			if j.Over != 2 {
				t.Errorf("16 B median: %d experiments over requirement, want 2 (7.900 and 7.486 > 7.450)", j.Over)
			}
			return
		}
	}
	t.Fatal("no 16 B median payload plot")
}

func TestJobs(t *testing.T) {
	h := loadTestdata(t)
	jobs := h.Jobs()
	// 4 magnitude plots per type, 3 payload plots per payload.
	want := 4*2 + 3*(11+1)
	if len(jobs) != want {
		t.Fatalf("%d plots, want %d", len(jobs), want)
	}
	names := map[string]bool{}
	for _, j := range jobs {
		names[j.Name] = true
	}
	for _, n := range []string{
		"interprocess_reliable/history_Min", "interprocess_reliable/history_99",
		"interprocess_reliable/16_bytes_Median", "interprocess_reliable/16384_bytes_99",
		"intraprocess_best_effort/16_bytes_Max",
	} {
		if !names[filepath.FromSlash(n)] {
			t.Errorf("no plot %s", n)
		}
	}
}

func TestLabelledIndices(t *testing.T) {
	for _, n := range []int{1, 2, 11, 12, 13, 40, 199, 200, 1000} {
		idx := LabelledIndices(n)
		if len(idx) == 0 || len(idx) > MaxLabels {
			t.Errorf("n=%d: %d labels, want 1..%d", n, len(idx), MaxLabels)
			continue
		}
		if idx[len(idx)-1] != n-1 {
			t.Errorf("n=%d: newest experiment %d not labelled: %v", n, n-1, idx)
		}
		if n <= MaxLabels && len(idx) != n {
			t.Errorf("n=%d: %d labels, want all", n, len(idx))
		}
		for i := 1; i < len(idx); i++ {
			if idx[i]-idx[i-1] != idx[1]-idx[0] {
				t.Errorf("n=%d: uneven label spacing %v", n, idx)
				break
			}
		}
		// Thinning must not leave more than a step unlabelled at the start.
		if idx[0] >= (n+MaxLabels-1)/MaxLabels {
			t.Errorf("n=%d: first label at %d", n, idx[0])
		}
	}
}

func TestGenerateDeterministic(t *testing.T) {
	read := func(dir string) map[string]string {
		files := map[string]string{}
		filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(path)
				rel, _ := filepath.Rel(dir, path)
				files[rel] = string(b)
			}
			return err
		})
		return files
	}
	opt := synth.GenerateOptions{Seed: 7, Meta: true, Gaps: 0.1, Types: []string{"intraprocess_reliable", "interprocess_reliable_tcp"}}
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if _, err := synth.Generate(d, 5, opt); err != nil {
			t.Fatal(err)
		}
	}
	opt.Seed = 8
	if _, err := synth.Generate(c, 5, opt); err != nil {
		t.Fatal(err)
	}
	fa, fb, fc := read(a), read(b), read(c)
	if len(fa) == 0 || len(fa) != len(fb) {
		t.Fatalf("generated %d and %d files", len(fa), len(fb))
	}
	for k, v := range fa {
		if fb[k] != v {
			t.Errorf("%s differs between two runs with the same seed", k)
		}
	}
	same := 0
	for k, v := range fa {
		if fc[k] == v {
			same++
		}
	}
	if same == len(fa) {
		t.Error("a different seed generated the same files")
	}
	// Every generated summary is valid and consistent.
	for k, v := range fa {
		if !strings.HasSuffix(k, "_summary.csv") {
			continue
		}
		rows, err := result.ReadSummary(strings.NewReader(v), k)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if !(r.Min <= r.Median && r.Median <= r.P90 && r.P90 <= r.P99 && r.P99 <= r.P9999 && r.P9999 <= r.Max) {
				t.Errorf("%s: inconsistent row %+v", k, r)
			}
		}
	}
}

func TestGeneratedHistory(t *testing.T) {
	dir := t.TempDir()
	opt := synth.GenerateOptions{Seed: 3, Meta: true, Gaps: 0.05}
	if _, err := synth.Generate(filepath.Join(dir, "e"), 30, opt); err != nil {
		t.Fatal(err)
	}
	if err := GenerateRequirements(filepath.Join(dir, "r.csv"), opt); err != nil {
		t.Fatal(err)
	}
	reqs, err := requirements.ReadFile(filepath.Join(dir, "r.csv"))
	if err != nil {
		t.Fatal(err)
	}
	h, err := Load(context.Background(), filepath.Join(dir, "e"), reqs, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Experiments) != 30 || len(h.SubExperiments) != 10 {
		t.Fatalf("%d experiments, %d sub-experiments", len(h.Experiments), len(h.SubExperiments))
	}
	over := 0
	for _, j := range h.Jobs() {
		over += j.Over
	}
	if over == 0 {
		t.Error("no value over its requirement: the generator should inject regressions")
	}
	if len(h.Warnings) == 0 {
		t.Error("no gap warnings despite Gaps")
	}
}

func TestPage(t *testing.T) {
	h := loadTestdata(t)
	jobs := h.Jobs()
	svgs := make([][]byte, len(jobs))
	for i := range svgs {
		svgs[i] = []byte("<svg></svg>")
	}
	p := h.Page(jobs, svgs, nil)
	if len(p.Sections) != 2 {
		t.Fatalf("%d sections, want one per sub-experiment", len(p.Sections))
	}
	inter := p.Sections[0]
	if inter.Title != "interprocess_reliable" || len(inter.Plots) != 4 || len(inter.Sections) != 11 {
		t.Fatalf("section %q: %d plots, %d payload sections; want 4 and 11", inter.Title, len(inter.Plots), len(inter.Sections))
	}
	// Newest (2019-11-05_10-00-00, the Fast-RTPS run): 16 B median 7.486 is
	// over 7.450, 99% 14.735 over 14.600.
	p16 := inter.Sections[0]
	if p16.Title != "16 bytes" || p16.Status != "failed" || len(p16.Plots) != 3 {
		t.Errorf("16 B section: title %q, status %q, %d plots", p16.Title, p16.Status, len(p16.Plots))
	}
	if rows := p16.Tables[0].Rows; len(rows) != 3 || rows[2][1].Status != "failed" || rows[0][1].Status != "passed" {
		t.Errorf("16 B table rows %+v", rows)
	}
	// 256 B has no requirement: no status.
	if s := inter.Sections[4]; s.Title != "256 bytes" || s.Status != "" {
		t.Errorf("256 B section: title %q, status %q", s.Title, s.Status)
	}
	if inter.Status != "failed" {
		t.Errorf("interprocess_reliable status %q, want failed", inter.Status)
	}
}
