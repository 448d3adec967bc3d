package compare_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/compare"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/pairing"
)

// seriesRow is one run of a series file: unit, side, run number.
type seriesRow struct {
	unit int
	side string
	run  int
}

// writeSeries writes the series file root/name-series.csv of rows, in
// order, with experiments side/run-NN.
func writeSeries(t *testing.T, root, name, design string, rows []seriesRow) string {
	t.Helper()
	seed := "1"
	if design == pairing.DesignABBA {
		seed = ""
	}
	var b strings.Builder
	b.WriteString(strings.Join(pairing.SeriesHeader, ",") + "\n")
	start := time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC)
	for i, r := range rows {
		fmt.Fprintf(&b, "%d,%d,%s,%d,%s/run-%02d,%s,%s,%s\n", r.unit, i+1, r.side, r.run, r.side, r.run,
			start.Add(time.Duration(i)*time.Minute).Format(time.RFC3339Nano), design, seed)
	}
	path := filepath.Join(root, name+pairing.SeriesSuffix)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const ref, cand = pairing.SideReference, pairing.SideCandidate

// pairRows are the rows of n pairs of runs of the same number, each
// reference first.
func pairRows(n int) []seriesRow {
	var rows []seriesRow
	for u := 1; u <= n; u++ {
		rows = append(rows, seriesRow{u, ref, u}, seriesRow{u, cand, u})
	}
	return rows
}

// abbaRows are the rows of blocks A B B A over runs 1 … 2·blocks per side.
func abbaRows(blocks int) []seriesRow {
	var rows []seriesRow
	for u := 1; u <= blocks; u++ {
		rows = append(rows, seriesRow{u, ref, 2*u - 1}, seriesRow{u, cand, 2*u - 1}, seriesRow{u, cand, 2 * u}, seriesRow{u, ref, 2 * u})
	}
	return rows
}

// TestSeriesPairs: the units of a series file decide the pairs, not the
// experiments' names. A random-design file that pairs reference run 1 with
// candidate run 2 (and 2 with 1, …) gives other pairs and another ratio
// than the names; an ABBA file gives one unit per block (4 blocks, where
// the names give 8 pairs), and its reports name the file.
func TestSeriesPairs(t *testing.T) {
	root := t.TempDir()
	ab := filepath.Join(root, "ab")
	refs := writeRuns(t, filepath.Join(ab, ref), "v192", 8, 1, 0.05, 11)
	cands := writeRuns(t, filepath.Join(ab, cand), "v192", 8, 1.02, 0.05, 12)
	ctx := context.Background()
	r, _, err := compare.LoadSide(ctx, []string{refs})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := compare.LoadSide(ctx, []string{cands})
	if err != nil {
		t.Fatal(err)
	}
	var crossed []seriesRow
	for u := 1; u <= 8; u++ {
		crossed = append(crossed, seriesRow{u, ref, u}, seriesRow{u, cand, u + 1 - 2*((u+1)%2)})
	}
	s, err := pairing.ReadSeries(writeSeries(t, t.TempDir(), "crossed", pairing.DesignRandom, crossed))
	if err == nil {
		// The file lies in another folder: its experiments are not these.
		_, err = compare.CompareRuns(r, c, compare.Config{Series: s})
	}
	if err == nil || !strings.Contains(err.Error(), "is not listed") {
		t.Errorf("a series file of other runs: %v", err)
	}
	s, err = pairing.ReadSeries(writeSeries(t, ab, "crossed", pairing.DesignRandom, crossed))
	if err != nil {
		t.Fatal(err)
	}
	byFile, err := compare.CompareRuns(r, c, compare.Config{Series: s})
	if err != nil {
		t.Fatal(err)
	}
	byName, err := compare.CompareRuns(r, c, compare.Config{Pairing: compare.PairAlways})
	if err != nil {
		t.Fatal(err)
	}
	if byFile.Pairs[0].Reference.Name != "run-01" || byFile.Pairs[0].Candidate.Name != "run-02" || byName.Pairs[0].Candidate.Name != "run-01" {
		t.Errorf("pair 1: %s with %s from the file, %s with %s by name", byFile.Pairs[0].Reference.Name, byFile.Pairs[0].Candidate.Name,
			byName.Pairs[0].Reference.Name, byName.Pairs[0].Candidate.Name)
	}
	// The geometric mean of the ratios is the same for any pairing; the
	// median of the pairs' ratios, the verdict's estimand, is not.
	if f, n := byFile.Analysis.Checks[0], byName.Analysis.Checks[0]; f.Ratio == n.Ratio || math.Abs(f.GeometricMean/n.GeometricMean-1) > 1e-12 {
		t.Errorf("the file's pairs and the names' give median ratios %v and %v, geometric means %v and %v: want other medians, the same mean",
			f.Ratio, n.Ratio, f.GeometricMean, n.GeometricMean)
	}
	if d := byFile.Verdict().Decision; !strings.Contains(d.Drift, "crossed-series.csv (design random, 8 pairs)") {
		t.Errorf("the decision does not name the series file: %q", d.Drift)
	}
	if err := os.Remove(s.Path); err != nil {
		t.Fatal(err)
	}

	writeSeries(t, ab, "blocks", pairing.DesignABBA, abbaRows(4))
	code, stdout, stderr := runCompare(t, root, "--reference", refs, "--results", cands, "--columns", "Median",
		"--json", filepath.Join(root, "abba.json"), "--plots-directory", filepath.Join(root, "plots"))
	if code == exit.Usage {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	// Each check counts its units as blocks too: it said "pairs 4" of the 8
	// pairs measured.
	for _, want := range []string{"N = 4 blocks", "A B B A block", "$OUT/ab/blocks-series.csv (design abba; N counts blocks)",
		"(median of the blocks' ratios)", "(Bonferroni 1.0000), blocks 4: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "pairs 4") {
		t.Errorf("a check counts the 4 blocks as pairs:\n%s", stdout)
	}
	b, err := os.ReadFile(filepath.Join(root, "abba.json"))
	if err != nil || !strings.Contains(string(b), `"n": 4`) || !strings.Contains(string(b), `"units": "blocks"`) || !strings.Contains(string(b), "blocks-series.csv") {
		t.Errorf("the JSON report does not give 4 blocks from the series file: %v\n%.3000s", err, b)
	}
}

// TestSeriesRefused: a series file that is corrupted, or does not match the
// runs given, is an input error (exit 2) naming the file, the line and what
// was expected; an interrupted series' incomplete last unit is left out
// with a warning.
func TestSeriesRefused(t *testing.T) {
	good := func() []seriesRow {
		var rows []seriesRow
		for u := 1; u <= 4; u++ {
			rows = append(rows, seriesRow{u, cand, u}, seriesRow{u, ref, u})
		}
		return rows
	}
	for _, tt := range []struct {
		name   string
		design string
		edit   func(rows []seriesRow) []seriesRow
		text   func(string) string
		want   []string
	}{
		{name: "two references in a pair", edit: func(r []seriesRow) []seriesRow { r[3] = seriesRow{2, cand, 9}; return r },
			want: []string{"x-series.csv:5: column \"Side\": candidate: expected reference (pair 2 has its candidate run on line 4"}},
		{name: "a row lost", edit: func(r []seriesRow) []seriesRow { return append(r[:2], r[3:]...) },
			want: []string{"x-series.csv:5: column \"Unit\": 3: expected 2 (unit 2 has 1 of its 2 runs)"}},
		{name: "an ABBA block out of order", design: pairing.DesignABBA, edit: func([]seriesRow) []seriesRow {
			r := abbaRows(2)
			r[1], r[2] = r[2], r[1]
			r[1].side, r[2].side = ref, cand
			return r
		}, want: []string{"x-series.csv:3: column \"Side\": reference: expected candidate, run 2 of block 1"}},
		{name: "a run not given", edit: func(r []seriesRow) []seriesRow { return append(r, seriesRow{5, ref, 5}, seriesRow{5, cand, 5}) },
			want: []string{"x-series.csv:10: column \"Experiment\": reference/run-05, reference run 5 of unit 5, is not among the runs of --reference"}},
		{name: "a run not listed", edit: func(r []seriesRow) []seriesRow { return r[:6] },
			want: []string{"x-series.csv: ", "run-04 (given by --reference) is not listed"}},
		{name: "a bad start time", text: func(s string) string { return strings.Replace(s, "2026-11-27T13:02:00Z", "13:02", 1) },
			want: []string{"x-series.csv:4: column \"Start\": \"13:02\": expected a time in RFC 3339"}},
		{name: "runs out of order", text: func(s string) string { return strings.Replace(s, "2026-11-27T13:02:00Z", "2026-11-27T12:02:00Z", 1) },
			want: []string{"x-series.csv:4: column \"Start\": 2026-11-27T12:02:00Z is earlier than the run before (line 3"}},
		{name: "another header", text: func(s string) string { return strings.Replace(s, "Unit,", "Block,", 1) },
			want: []string{"x-series.csv:1: header is"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			ab := filepath.Join(root, "ab")
			n := 4
			refs := writeRuns(t, filepath.Join(ab, ref), "v192", n, 1, 0.01, 1)
			cands := writeRuns(t, filepath.Join(ab, cand), "v192", n, 1, 0.01, 2)
			design := tt.design
			if design == "" {
				design = pairing.DesignRandom
			}
			rows := good()
			if tt.edit != nil {
				rows = tt.edit(rows)
			}
			path := writeSeries(t, ab, "x", design, rows)
			if tt.text != nil {
				b, _ := os.ReadFile(path)
				if err := os.WriteFile(path, []byte(tt.text(string(b))), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, stdout, stderr := runCompare(t, root, "--reference", refs, "--results", cands, "--plots-directory", filepath.Join(root, "plots"))
			if code != exit.Usage {
				t.Errorf("exit %d, want 2\n%s%s", code, stdout, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			// The same runs unpaired do not read the file.
			if code, stdout, stderr := runCompare(t, root, "--reference", refs, "--results", cands, "--unpaired",
				"--plots-directory", filepath.Join(root, "plots")); code == exit.Usage {
				t.Errorf("--unpaired: exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}

	t.Run("interrupted", func(t *testing.T) {
		root := t.TempDir()
		ab := filepath.Join(root, "ab")
		refs := writeRuns(t, filepath.Join(ab, ref), "v192", 5, 1, 0.01, 1)
		cands := writeRuns(t, filepath.Join(ab, cand), "v192", 4, 1, 0.01, 2)
		series := writeSeries(t, ab, "x", pairing.DesignRandom, append(good(), seriesRow{5, ref, 5}))
		code, stdout, stderr := runCompare(t, root, "--reference", refs, "--results", cands, "--columns", "Median",
			"--plots-directory", filepath.Join(root, "plots"), "--series", series)
		if code == exit.Usage || !strings.Contains(stdout, "unit 5 has 1 of its 2 runs (the series was interrupted); left out: reference/run-05") ||
			!strings.Contains(stdout, "N = 4 pairs") {
			t.Errorf("exit %d\n%s%s", code, stdout, stderr)
		}
	})
}

// TestSeriesOnePair: run ab --runs 1 then compare: the series file's one
// pair is compared by the single-run rule, as before there was a series
// file; with --series it is an input error, a pair being too few to pair.
func TestSeriesOnePair(t *testing.T) {
	root := t.TempDir()
	ab := filepath.Join(root, "ab")
	refs := writeRuns(t, filepath.Join(ab, ref), "v192", 1, 1, 0.01, 1)
	cands := writeRuns(t, filepath.Join(ab, cand), "v192", 1, 1, 0.01, 2)
	series := writeSeries(t, ab, "one", pairing.DesignRandom, []seriesRow{{1, cand, 1}, {1, ref, 1}})
	code, stdout, stderr := runCompare(t, root, "--reference", refs, "--results", cands, "--plots-directory", filepath.Join(root, "plots"))
	if code != exit.OK || !strings.Contains(stdout, "mode: single-run") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCompare(t, root, "--reference", refs, "--results", cands, "--plots-directory", filepath.Join(root, "plots"), "--series", series)
	if code != exit.Usage || !strings.Contains(stderr, "one-series.csv: 1 complete unit(s) of the series: a paired comparison needs at least 2 pairs") {
		t.Errorf("--series: exit %d\n%s%s", code, stdout, stderr)
	}
}
