package process_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/meta"
)

// TestLoadSummaryTrailingData: a load summary with data after its JSON
// object (a second object appended, a stray brace) is refused with exit
// code 2 at the line and character of that data, before process writes
// anything: no latency summary, no plot.
func TestLoadSummaryTrailingData(t *testing.T) {
	for name, tail := range map[string]string{"brace": "}\n", "second object": "{}\n", "text": "x"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			copyFile(t, "testdata/golden/n2/measurements_n2.csv", filepath.Join(dir, "measurements_n_reliable.csv"))
			src := "testdata/load/load_intraprocess_best_effort_summary.json"
			data, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Count(string(data), "\n")
			if !strings.HasSuffix(string(data), "\n") {
				t.Fatalf("%s does not end in a newline", src)
			}
			js := filepath.Join(dir, "load_intraprocess_best_effort_summary.json")
			if err := os.WriteFile(js, append(data, tail...), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runProcess(t, dir)
			want := js + ":" + strconv.Itoa(lines+1) + ":1: unexpected data after the JSON object"
			if code != 2 || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
			}
			for _, p := range []string{"measurements_n_reliable_summary.csv", "plots"} {
				if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
					t.Errorf("%s was written though the input was refused", p)
				}
			}
		})
	}
}

// writeListedMeta writes dir/meta.json listing sub-experiment n_reliable
// with the payloads given.
func writeListedMeta(t *testing.T, dir string, payloads ...int) string {
	t.Helper()
	m := &meta.Meta{Experiment: "run", Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Completed: true, Latency: meta.LatencyHalfRTT,
		Config: meta.Config{SubExperiments: []string{"n_reliable"}}}
	sub := meta.SubExperiment{Type: "n_reliable", Completed: true}
	for _, p := range payloads {
		sub.Payloads = append(sub.Payloads, meta.Payload{Bytes: p, Completed: true})
	}
	m.SubExperiments = []meta.SubExperiment{sub}
	path := filepath.Join(dir, meta.FileName)
	if err := meta.Write(path, m); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestUnlistedData: a raw file of a sub-experiment, or holding a payload,
// that meta.json does not list (another run's data in the folder) is
// refused with exit code 2 naming the file and meta.json, before anything
// is written; the earlier summary is left as it was.
func TestUnlistedData(t *testing.T) {
	t.Run("payload", func(t *testing.T) {
		dir, sum, before := processedDir(t)
		metaPath := writeListedMeta(t, dir, 16)
		if code, _, stderr := runProcess(t, "--no-plots", dir); code != 0 {
			t.Fatalf("the run as listed: exit %d: %s", code, stderr)
		}
		before, _ = os.ReadFile(sum)
		raw := filepath.Join(dir, "measurements_n_reliable.csv")
		f, err := os.OpenFile(raw, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Count(string(must(os.ReadFile(raw))), "\n")
		f.WriteString("1,256,9.5\n2,256,9.7\n")
		f.Close()
		code, _, stderr := runProcess(t, dir)
		want := raw + ":" + strconv.Itoa(lines+1) + ": payload 256 B of sub-experiment n_reliable is not in " + metaPath + ", which lists 16 B for it"
		if code != 2 || !strings.Contains(stderr, want) {
			t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
		}
		sameContent(t, sum, before)
		if _, err := os.Stat(filepath.Join(dir, "plots")); err == nil {
			t.Error("plots were drawn though the input was refused")
		}
	})
	t.Run("sub-experiment", func(t *testing.T) {
		dir, sum, before := processedDir(t)
		metaPath := writeListedMeta(t, dir, 16)
		other := filepath.Join(dir, "measurements_x_reliable.csv")
		copyFile(t, "testdata/golden/n2/measurements_n2.csv", other)
		code, _, stderr := runProcess(t, dir)
		want := other + ": sub-experiment x_reliable is not in " + metaPath + ", which lists n_reliable"
		if code != 2 || !strings.Contains(stderr, want) {
			t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
		}
		sameContent(t, sum, before)
		if _, err := os.Stat(filepath.Join(dir, "measurements_x_reliable_summary.csv")); err == nil {
			t.Error("the unlisted file was summarised")
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestMalformedMetaLocated: a meta.json that is not JSON is refused with
// exit code 2 at the line and character of its first wrong byte (the
// character after it was named), before anything is written.
func TestMalformedMetaLocated(t *testing.T) {
	for _, c := range []struct{ name, content, at string }{
		{"text", "garbage", ":1:1: invalid JSON: invalid character 'g' looking for beginning of value"},
		{"bad value", "{\n  \"schema\": 1,\n  \"completed\": garbage\n}\n", ":3:16: invalid JSON: invalid character 'g'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			copyFile(t, "testdata/golden/n2/measurements_n2.csv", filepath.Join(dir, "measurements_n_reliable.csv"))
			metaPath := filepath.Join(dir, meta.FileName)
			if err := os.WriteFile(metaPath, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runProcess(t, dir)
			if want := metaPath + c.at; code != 2 || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
			}
			for _, p := range []string{"measurements_n_reliable_summary.csv", "plots"} {
				if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
					t.Errorf("%s was written though meta.json was refused", p)
				}
			}
		})
	}
}
