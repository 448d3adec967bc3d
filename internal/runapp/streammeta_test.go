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
		name    string
		args    []string
		fill    string
		warmup  string // config.warmup_duration; "": absent
		clock   string // "": not checked
		timeout string // config.timeout, the mode's own; "": absent
	}{
		{"load paced", slices.Concat(loadArgs, []string{"--rate", "200", "--warmup", "150ms"}), "random", "150ms", load.ClockName, ""},
		{"load unpaced", slices.Concat(loadArgs, []string{"--warmup", "20ms", "--padding", "zeros"}), "zeros", "20ms", load.ClockNameUnpaced, ""},
		{"load default warm-up", slices.Concat(loadArgs, []string{"--rate", "200", "--padding", "pattern"}), "pattern", load.DefaultWarmup.String(), load.ClockName, ""},
		{"throughput", append(append([]string{"throughput"}, streamArgs...), "--windows", "2", "--window", "1ms",
			"--max-in-flight", "10", "--precision", "0.5", "--timeout", "3s"), "pattern", "", "", "3s"},
		{"throughput random", append(append([]string{"throughput"}, streamArgs...), "--windows", "2", "--window", "1ms",
			"--max-in-flight", "10", "--precision", "0.5", "--padding", "random"), "random", "", "", "1s"},
		{"permessage", append(append([]string{"permessage"}, streamArgs...), "--count", "200", "--window", "10",
			"--cpu-every", "100", "--no-plots", "--timeout", "2s"), "pattern", "", "", "2s"},
		{"burst", []string{"burst", "-s", "intraprocess_reliable", "--payloads", "16", "--demand", "10", "--time", "0.05",
			"--timeout", "1500ms"}, "pattern", "", "", "1.5s"},
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
			// Before, a one-way meta.json carried the round-trip engine's
			// settings: seed and max_lost_in_row it never read, and its
			// timeout (1s) in place of the mode's --timeout.
			for _, key := range []string{"samples", "warmup", "seed", "max_lost_in_row"} {
				if v, ok := raw.Config[key]; ok {
					t.Errorf("config.%s %v: a round-trip setting this mode does not use", key, v)
				}
			}
			if got, ok := raw.Config["timeout"]; c.timeout == "" && ok {
				t.Errorf("config.timeout %v in a mode without one", got)
			} else if c.timeout != "" && got != c.timeout {
				t.Errorf("config.timeout %v, want the mode's --timeout %q", got, c.timeout)
			}
			if seed, ok := raw.Config["padding_seed"].(float64); (c.fill == "random") != (ok && seed != 0) {
				t.Errorf("config.padding_seed %v with padding %s", raw.Config["padding_seed"], c.fill)
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
			if !m.Config.OneWay || m.Config.Fill != c.fill {
				t.Errorf("read back: one-way %v, fill %q", m.Config.OneWay, m.Config.Fill)
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
			if c.fill == "random" && sum.Parameters.PaddingSeed != m.Config.PaddingSeed {
				t.Errorf("padding seed %d in the summary, %d in meta.json", sum.Parameters.PaddingSeed, m.Config.PaddingSeed)
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
