package runapp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/meta/metatest"
)

// TestStreamMetaConfig: meta.json of run load, throughput and permessage
// records what each mode used, not the round-trip mode's defaults: the
// padding as config.fill, run load's warm-up as config.warmup_duration,
// no config.samples nor config.warmup (round-trip counts these modes do
// not measure), and run load's clock as the summary's latency_from says
// (the intended send time when paced, the send call when unpaced).
func TestStreamMetaConfig(t *testing.T) {
	loadArgs := []string{"load", "-s", "intraprocess_reliable", "--duration", "100ms", "--interval", "10ms",
		"--payloads", "64", "--no-plots", "--max-raw", "1000"}
	streamArgs := []string{"-s", "intraprocess_reliable", "--payloads", "16"}
	for _, c := range []struct {
		name   string
		args   []string
		fill   string
		warmup string // config.warmup_duration; "": absent
		clock  string // "": not checked
	}{
		{"load paced", slices.Concat(loadArgs, []string{"--rate", "200", "--warmup", "150ms"}), "random", "150ms", load.ClockName},
		{"load unpaced", slices.Concat(loadArgs, []string{"--warmup", "20ms", "--padding", "zeros"}), "zeros", "20ms", load.ClockNameUnpaced},
		{"load default warm-up", slices.Concat(loadArgs, []string{"--rate", "200", "--padding", "pattern"}), "pattern", load.DefaultWarmup.String(), load.ClockName},
		{"throughput", append(append([]string{"throughput"}, streamArgs...), "--windows", "2", "--window", "1ms",
			"--max-in-flight", "10", "--precision", "0.5"), "pattern", "", ""},
		{"throughput random", append(append([]string{"throughput"}, streamArgs...), "--windows", "2", "--window", "1ms",
			"--max-in-flight", "10", "--precision", "0.5", "--padding", "random"), "random", "", ""},
		{"permessage", append(append([]string{"permessage"}, streamArgs...), "--count", "200", "--window", "10",
			"--cpu-every", "100", "--no-plots"), "pattern", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.warmup == load.DefaultWarmup.String() {
				t.Skip("a full default warm-up")
			}
			out := t.TempDir()
			if code, _, stderr := run(t, append(c.args, "-q", "-o", out, "--name", "m")...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			dir := filepath.Join(out, "m")
			doc, err := os.ReadFile(filepath.Join(dir, meta.FileName))
			if err != nil {
				t.Fatal(err)
			}
			var raw struct {
				Config map[string]any `json:"config"`
				Clock  string         `json:"clock"`
			}
			if err := json.Unmarshal(doc, &raw); err != nil {
				t.Fatal(err)
			}
			if got := raw.Config["fill"]; got != c.fill {
				t.Errorf("config.fill %v, want %q", got, c.fill)
			}
			for _, key := range []string{"samples", "warmup"} {
				if v, ok := raw.Config[key]; ok {
					t.Errorf("config.%s %v: a round-trip count this mode does not measure", key, v)
				}
			}
			if got, ok := raw.Config["warmup_duration"]; c.warmup == "" && ok {
				t.Errorf("config.warmup_duration %v in a mode without a warm-up setting", got)
			} else if c.warmup != "" && got != c.warmup {
				t.Errorf("config.warmup_duration %v, want %q", got, c.warmup)
			}
			if c.clock != "" && raw.Clock != c.clock {
				t.Errorf("clock %q, want %q", raw.Clock, c.clock)
			}
			if missing, err := metatest.MissingFields(doc); err != nil || len(missing) > 0 {
				t.Errorf("meta.json lacks %v (%v)", missing, err)
			}
			m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
			if err != nil {
				t.Fatal(err)
			}
			if !m.Config.OmitCounts || m.Config.Fill != c.fill {
				t.Errorf("read back: omit counts %v, fill %q", m.Config.OmitCounts, m.Config.Fill)
			}
			if c.clock == "" {
				return
			}
			// The clock says what the summary's latency_from says.
			f, err := os.Open(filepath.Join(dir, load.SummaryFileName("intraprocess_reliable")))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sum, err := readLoadSummary(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Payloads) != 1 {
				t.Fatalf("%d payloads in the summary", len(sum.Payloads))
			}
			latencyFrom := sum.Payloads[0].LatencyFrom
			from := "intended send"
			if strings.Contains(latencyFrom, "send call") {
				from = "send call"
			}
			if !strings.Contains(raw.Clock, from) {
				t.Errorf("clock %q, summary latency_from %q", raw.Clock, latencyFrom)
			}
		})
	}
}
