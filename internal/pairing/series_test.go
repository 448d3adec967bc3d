package pairing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/experiment"
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
