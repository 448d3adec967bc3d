package pairing

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/stats/paired"
)

// TestSeriesABBA: an ABBA series of two blocks and the first run of a
// third (interrupted) gives two blocks of two pairs each, the block's
// first reference run with its first candidate run; the third block's run
// is left out with a warning.
func TestSeriesABBA(t *testing.T) {
	dir := t.TempDir()
	rows := []string{
		"1,1,reference,1,reference/s-01", "1,2,candidate,1,candidate/s-01", "1,3,candidate,2,candidate/s-02", "1,4,reference,2,reference/s-02",
		"2,5,reference,3,reference/s-03", "2,6,candidate,3,candidate/s-03", "2,7,candidate,4,candidate/s-04", "2,8,reference,4,reference/s-04",
		"3,9,reference,5,reference/s-05",
	}
	text := strings.Join(SeriesHeader, ",") + "\n"
	for _, r := range rows {
		text += r + ",2026-11-27T13:03:07.97873606Z,abba,\n"
	}
	path := filepath.Join(dir, "s"+SeriesSuffix)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSeries(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Units != 2 || len(s.Partial) != 1 || s.PairedDesign() != paired.ABBA || s.UnitWord() != "blocks" {
		t.Fatalf("series %+v", s)
	}
	side := func(name string, n int) []*experiment.Experiment {
		var out []*experiment.Experiment
		for i := 1; i <= n; i++ {
			out = append(out, &experiment.Experiment{Name: "s-0" + string(rune('0'+i)), Dir: filepath.Join(dir, name, "s-0"+string(rune('0'+i)))})
		}
		return out
	}
	refs, cands := side("reference", 5), side("candidate", 4)
	pairs, warnings, err := s.Pairs(refs, cands)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{0, 0}, {1, 1}, {2, 2}, {3, 3}}
	for i, w := range want {
		if pairs[i].Reference != refs[w[0]] || pairs[i].Candidate != cands[w[1]] {
			t.Errorf("pair %d: %s with %s", i+1, pairs[i].Reference.Name, pairs[i].Candidate.Name)
		}
	}
	if len(pairs) != 4 || pairs[2].Name != "block 2" || len(warnings) != 1 || !strings.Contains(warnings[0], "left out: reference/s-05") {
		t.Errorf("%d pairs (%q), warnings %q", len(pairs), pairs[2].Name, warnings)
	}
	if _, _, err := s.Pairs(cands, refs); err == nil || !strings.Contains(err.Error(), `s-series.csv:3: column "Side": candidate/s-01 is a candidate run here, but --reference gives it`) {
		t.Errorf("sides swapped: %v", err)
	}
}

// writeSeriesFile writes rows (Unit,Position,Side,Run,Experiment) as the
// series file dir/s-series.csv of design random, seed 1.
func writeSeriesFile(t *testing.T, dir string, rows []string) string {
	t.Helper()
	text := strings.Join(SeriesHeader, ",") + "\n"
	for _, r := range rows {
		text += r + ",2026-11-27T13:03:07.97873606Z,random,1\n"
	}
	path := filepath.Join(dir, "s"+SeriesSuffix)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSeriesRunNumber: the Experiment column must be the folder of the
// row's side and run number, in one series' name: two Experiment cells
// swapped would otherwise pair other runs without a word.
func TestSeriesRunNumber(t *testing.T) {
	good := []string{"1,1,reference,1,reference/s-01", "1,2,candidate,1,candidate/s-01", "2,3,candidate,2,candidate/s-02", "2,4,reference,2,reference/s-02"}
	for _, c := range []struct {
		name string
		edit func(r []string)
		want string
	}{
		{"two references swapped", func(r []string) {
			r[0], r[3] = "1,1,reference,1,reference/s-02", "2,4,reference,2,reference/s-01"
		}, `s-series.csv:2: column "Experiment": reference/s-02 is run 2 of its side, but column "Run" says 1: expected reference/s-01`},
		{"sides swapped", func(r []string) {
			r[0], r[1] = "1,1,reference,1,candidate/s-01", "1,2,candidate,1,reference/s-01"
		}, `s-series.csv:2: column "Experiment": candidate/s-01 lies in candidate/, but column "Side" says reference: expected reference/s-01`},
		{"no run number", func(r []string) { r[1] = "1,2,candidate,1,candidate/s" },
			`s-series.csv:3: column "Experiment": "candidate/s": expected candidate/NAME-01, the folder of candidate run 1`},
		{"another series", func(r []string) { r[2] = "2,3,candidate,2,candidate/t-02" },
			`s-series.csv:4: column "Experiment": candidate/t-02 is named t-NN, but line 2 says s-NN`},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows := slices.Clone(good)
			c.edit(rows)
			_, err := ReadSeries(writeSeriesFile(t, t.TempDir(), rows))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ReadSeries: %v\nwant %s", err, c.want)
			}
		})
	}
	if _, err := ReadSeries(writeSeriesFile(t, t.TempDir(), good)); err != nil {
		t.Errorf("the good series: %v", err)
	}
}

// TestSeriesInterruptedLastRun: a series interrupted during a pair's
// second run lists both runs of the pair, but the second's meta.json says
// it did not complete: the pair is left out with a warning, as a pair
// with one run listed is, and the complete pairs are compared.
func TestSeriesInterruptedLastRun(t *testing.T) {
	dir := t.TempDir()
	path := writeSeriesFile(t, dir, []string{"1,1,reference,1,reference/s-01", "1,2,candidate,1,candidate/s-01",
		"2,3,candidate,2,candidate/s-02", "2,4,reference,2,reference/s-02",
		"3,5,candidate,3,candidate/s-03", "3,6,reference,3,reference/s-03"})
	s, err := ReadSeries(path)
	if err != nil {
		t.Fatal(err)
	}
	side := func(name string, interrupted int) []*experiment.Experiment {
		var out []*experiment.Experiment
		for i := 1; i <= 3; i++ {
			e := &experiment.Experiment{Name: fmt.Sprintf("s-%02d", i), Dir: filepath.Join(dir, name, fmt.Sprintf("s-%02d", i)),
				Meta: &meta.Meta{Completed: i != interrupted, Interrupted: i == interrupted}}
			out = append(out, e)
		}
		return out
	}
	pairs, warnings, err := s.Pairs(side("reference", 3), side("candidate", 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 || s.Units != 2 || len(warnings) != 1 ||
		!strings.Contains(warnings[0], "unit 3 lists its 2 runs, but its last, reference/s-03, did not complete (meta.json says the run was interrupted") ||
		!strings.Contains(warnings[0], "left out: candidate/s-03, reference/s-03") {
		t.Errorf("%d pairs, %d units, warnings %q", len(pairs), s.Units, warnings)
	}
	// A run that did not complete anywhere else is not an interruption:
	// the pairs keep it, and the tools' completeness rule refuses it.
	s, _ = ReadSeries(path)
	if pairs, warnings, err := s.Pairs(side("reference", 0), side("candidate", 2)); err != nil || len(pairs) != 3 || len(warnings) != 0 {
		t.Errorf("an incomplete run before the last: %d pairs, %q, %v", len(pairs), warnings, err)
	}
}

// TestSeriesABBAOrientations: a block may run B A A B as well as A B B A
// (run ab draws each block's orientation from its seed), and gives the
// same two pairs, each reference run with the candidate run of its number;
// a block in neither orientation is refused naming the line, the column
// and the side expected.
func TestSeriesABBAOrientations(t *testing.T) {
	dir := t.TempDir()
	write := func(rows []string) string {
		text := strings.Join(SeriesHeader, ",") + "\n"
		for _, r := range rows {
			text += r + ",2026-11-27T13:03:07.97873606Z,abba,9\n"
		}
		path := filepath.Join(dir, "s"+SeriesSuffix)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	s, err := ReadSeries(write([]string{
		"1,1,candidate,1,candidate/s-01", "1,2,reference,1,reference/s-01", "1,3,reference,2,reference/s-02", "1,4,candidate,2,candidate/s-02",
		"2,5,reference,3,reference/s-03", "2,6,candidate,3,candidate/s-03", "2,7,candidate,4,candidate/s-04", "2,8,reference,4,reference/s-04",
	}))
	if err != nil {
		t.Fatal(err)
	}
	var refs, cands []*experiment.Experiment
	for i := 1; i <= 4; i++ {
		name := fmt.Sprintf("s-%02d", i)
		refs = append(refs, &experiment.Experiment{Name: name, Dir: filepath.Join(dir, "reference", name)})
		cands = append(cands, &experiment.Experiment{Name: name, Dir: filepath.Join(dir, "candidate", name)})
	}
	pairs, _, err := s.Pairs(refs, cands)
	if err != nil || s.Units != 2 || len(pairs) != 4 {
		t.Fatalf("%d units, %d pairs: %v", s.Units, len(pairs), err)
	}
	for i, p := range pairs {
		if p.Reference != refs[i] || p.Candidate != cands[i] || p.Name != fmt.Sprintf("block %d", i/2+1) {
			t.Errorf("pair %d: %s %s with %s", i+1, p.Name, p.Reference.Dir, p.Candidate.Dir)
		}
	}
	_, err = ReadSeries(write([]string{"1,1,candidate,1,candidate/s-01", "1,2,reference,1,reference/s-01", "1,3,candidate,2,candidate/s-02"}))
	if err == nil || !strings.Contains(err.Error(), `s-series.csv:4: column "Side": candidate: expected reference, run 3 of block 1, which began with candidate on line 2`) {
		t.Errorf("a block C R C: %v", err)
	}
}
