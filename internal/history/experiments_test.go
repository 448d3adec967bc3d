package history

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestLoadOrder: experiments come in chronological order, meta.json start
// times winning over folder names, labelled with the system's version or
// commit; the folder without summaries is named in a warning.
func TestLoadOrder(t *testing.T) {
	h, err := Load(context.Background(), "testdata/experiments", nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var names, from, labels []string
	for _, e := range h.Experiments {
		names = append(names, e.Name)
		from = append(from, e.StartFrom)
		labels = append(labels, e.Label())
	}
	// meta.json start times (build-a: Nov 4; 2019-11-06_10-00-00: Nov 5,
	// 08:00) win over folder names (2019-11-05_10-00-00: Nov 5, 10:00).
	wantNames := []string{"build-a", "2019-11-06_10-00-00", "2019-11-05_10-00-00"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("order = %q, want %q", names, wantNames)
	}
	if want := []string{"meta.json", "meta.json", "name"}; !slices.Equal(from, want) {
		t.Errorf("start from = %q, want %q", from, want)
	}
	wantLabels := []string{"build-a v1.9.1", "2019-11-06_10-00-00 01234567", "2019-11-05_10-00-00"}
	if !slices.Equal(labels, wantLabels) {
		t.Errorf("labels = %q, want %q", labels, wantLabels)
	}
	if w := strings.Join(h.Warnings, "\n"); !strings.Contains(w, "skipped testdata/experiments/notes: no measurements_<type>_summary.csv in it") {
		t.Errorf("warnings = %q, want one about the folder without summaries", h.Warnings)
	}
}
