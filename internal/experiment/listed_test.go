package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// listedRun lists sub-experiment a with payloads 16 and 64 B (recorded)
// and b (selected, not yet measured: an interrupted run).
func listedRun(m *meta.Meta) {
	m.Config.SubExperiments = []string{"a", "b"}
	m.SubExperiments = []meta.SubExperiment{{Type: "a", Payloads: []meta.Payload{{Bytes: 16}, {Bytes: 64}}}}
}

// TestLoadRefusesUnlistedData: a file holding a sub-experiment or a
// payload that meta.json does not list (data of another run, written into
// the same folder) is refused, naming the file, its line when there is
// one, and meta.json.
func TestLoadRefusesUnlistedData(t *testing.T) {
	const row64 = "64,10000,122.599,7.029,8.272,7.486,2.367,0.534,109.092,10.607,14.735,58.631\n"
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the file to name
		want  string
	}{
		{"summary of another sub-experiment", func(t *testing.T, dir string) string {
			return write(t, filepath.Join(dir, SummaryFileName("c")), summaryText)
		}, ": sub-experiment c is not in %s, which lists a, b: its data is not of that run"},
		{"raw file of another sub-experiment", func(t *testing.T, dir string) string {
			return write(t, filepath.Join(dir, RawFileName("c")), "Sample,Payload [Bytes],Latency [us]\n1,16,1.0\n")
		}, ": sub-experiment c is not in %s"},
		{"payload not recorded", func(t *testing.T, dir string) string {
			return write(t, filepath.Join(dir, SummaryFileName("a")), summaryText+strings.Replace(row64, "64,", "256,", 1))
		}, ":3: payload 256 B of sub-experiment a is not in %s, which lists 16, 64 B for it"},
		{"throughput payload not recorded", func(t *testing.T, dir string) string {
			writeMeta(t, dir, func(m *meta.Meta) {
				listedRun(m)
				m.SubExperiments = append(m.SubExperiments, meta.SubExperiment{Type: "b", Payloads: []meta.Payload{{Bytes: 64}}})
			})
			return write(t, filepath.Join(dir, ThroughputFileName("b")), throughputText)
		}, ":2: payload 16 B of sub-experiment b is not in %s, which lists 64 B for it"},
		{"burst of another sub-experiment", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, BurstSummaryFileName("udp"))
			must(t, result.WriteBurstFile(path, []result.BurstRow{result.NewBurstRow(16, 100, 20, 1000, 5000, 990, 6000)}))
			return path
		}, ": sub-experiment udp is not in %s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := experimentDir(t, filepath.Join(t.TempDir(), "run"), "a")
			write(t, filepath.Join(dir, SummaryFileName("a")), summaryText+row64)
			writeMeta(t, dir, listedRun)
			if _, err := Load(dir); err != nil {
				t.Fatalf("the run as listed: %v", err)
			}
			file := tt.setup(t, dir)
			want := file + strings.Replace(tt.want, "%s", filepath.Join(dir, meta.FileName), 1)
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("Load = %v, want an error containing %q", err, want)
			}
			if _, err := ReadListed(dir); err != nil {
				t.Errorf("ReadListed: %v", err)
			}
		})
	}
}

// TestLoadListedOnlyWhatIsListed: what meta.json does not list is not
// checked: a folder without meta.json (Fast-RTPS), a meta.json listing no
// sub-experiment (older formats), a sub-experiment recorded without
// payloads, one only selected (config.subexperiments).
func TestLoadListedOnlyWhatIsListed(t *testing.T) {
	for name, mutate := range map[string]func(*meta.Meta){
		"no meta.json":         nil,
		"nothing listed":       func(*meta.Meta) {},
		"no payloads recorded": func(m *meta.Meta) { m.SubExperiments = []meta.SubExperiment{{Type: "a"}} },
		"only selected":        func(m *meta.Meta) { m.Config.SubExperiments = []string{"a"} },
	} {
		t.Run(name, func(t *testing.T) {
			dir := experimentDir(t, filepath.Join(t.TempDir(), "run"), "a")
			if mutate != nil {
				writeMeta(t, dir, mutate)
			}
			if _, err := Load(dir); err != nil {
				t.Fatal(err)
			}
			l, err := ReadListed(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Payload("f", 2, "a", 4096); err != nil {
				t.Errorf("Payload: %v", err)
			}
		})
	}
	dir := filepath.Join(t.TempDir(), "run")
	must(t, os.MkdirAll(dir, 0o755))
	write(t, filepath.Join(dir, meta.FileName), "{}\n{}")
	if _, err := ReadListed(dir); err == nil {
		t.Error("ReadListed accepted a malformed meta.json")
	}
}
