package experiment_test

import (
	"testing"

	"github.com/mqgate/mqgate/internal/experiment"
	loadfiles "github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/permessagefile"
)

// TestOwned is an external test: the names it checks come from the
// packages that write the files, which import experiment.
func TestOwned(t *testing.T) {
	for _, tt := range []struct {
		rel  string
		want bool
	}{
		{"meta.json", true},
		{"measurements_interprocess_reliable.csv", true},
		{"measurements_interprocess_reliable_summary.csv", true},
		{"checks_interprocess_reliable.csv", true},
		{"plots/measurements_a/histogram_16.png", true},
		{"plots/report.html", true},
		{"./meta.json", true},
		{"report.html", false},
		{"check.md", false},
		{"notes/meta.json", false},
		{"latency_requirements.csv", false},
		{"measurements_.csv", false},
		{"throughput_interprocess_reliable.csv", true},
		{loadfiles.SnapshotsFileName("nats_reliable"), true},
		{loadfiles.SummaryFileName("nats_reliable"), true},
		{loadfiles.HistogramLogFileName("nats_reliable"), true},
		{permessagefile.FileName("interprocess_best_effort_tcp"), true},
		{permessagefile.CPUFileName("interprocess_best_effort_tcp"), true},
		{permessagefile.SummaryFileName("interprocess_best_effort_tcp"), true},
		{"load_notes.md", false},
		{"load_.hlog", false},
		{"load_summary.csv", false},
		{"permessage_.csv", false},
		{"permessage_notes.md", false},
	} {
		if _, got := experiment.Owned(tt.rel); got != tt.want {
			t.Errorf("Owned(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}
