package process_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/meta"
)

// cutRun writes into dir a raw file of 40 samples of each of the payloads
// 16, 64 and 256 B and a meta.json recording them, the last payload
// completed or not, and returns the raw file's lines and the paths of the
// raw file and the meta.json.
func cutRun(t *testing.T, dir string, lastCompleted bool) (lines []string, raw, metaPath string) {
	t.Helper()
	lines = []string{"Sample,Payload [Bytes],Latency [us]"}
	sub := meta.SubExperiment{Type: "n_reliable", Completed: lastCompleted}
	for k, p := range []int{16, 64, 256} {
		for i := 1; i <= 40; i++ {
			lines = append(lines, fmt.Sprintf("%d,%d,%d.%03d", i, p, 10+k, (i*37)%1000))
		}
		sub.Payloads = append(sub.Payloads, meta.Payload{Bytes: p, Samples: 40, Completed: p != 256 || lastCompleted})
	}
	m := &meta.Meta{Experiment: "run", Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Completed: lastCompleted,
		Interrupted: !lastCompleted, Latency: meta.LatencyHalfRTT,
		Config: meta.Config{SubExperiments: []string{sub.Type}, Payloads: []int{16, 64, 256}, Samples: 40}, SubExperiments: []meta.SubExperiment{sub}}
	metaPath = filepath.Join(dir, meta.FileName)
	if err := meta.Write(metaPath, m); err != nil {
		t.Fatal(err)
	}
	raw = filepath.Join(dir, "measurements_n_reliable.csv")
	writeLines(t, raw, lines)
	return lines, raw, metaPath
}

func writeLines(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// tree returns the content of every file below dir but the raw file, by
// path.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, "measurements_n_reliable.csv") {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCutRawFile: a raw file cut at a line end (a copy interrupted, head
// -n of a whole file) reads as a complete file of fewer samples. When
// meta.json says how many samples the run measured, process refuses it
// with exit code 2, naming the file, where it ends, both counts and the
// meta.json, and writes nothing: the summary and plots of the whole file
// are left as they were. The samples of a payload meta.json does not mark
// completed (an interrupted run's last) are not counted: a file cut in it
// is summarised, as the run left it.
func TestCutRawFile(t *testing.T) {
	for _, keep := range []int{
		61, // within 64 B
		41, // at the end of 16 B
		1,  // the header alone
		120,
	} {
		t.Run(fmt.Sprint(keep, " lines"), func(t *testing.T) {
			dir := t.TempDir()
			lines, raw, metaPath := cutRun(t, dir, true)
			if code, _, stderr := runProcess(t, "--format", "svg", dir); code != 0 {
				t.Fatalf("the whole file: exit %d: %s", code, stderr)
			}
			before := tree(t, dir)
			if _, ok := before[filepath.Join(dir, "plots", "measurements_n_reliable", "histogram_16.svg")]; !ok {
				t.Fatalf("the whole file's plots are not where expected: %v", before)
			}
			writeLines(t, raw, lines[:keep])
			code, _, stderr := runProcess(t, "--format", "svg", dir)
			want := fmt.Sprintf("%s:%d: the file ends after %d samples, %s says the run measured 120 (payloads 16, 64, 256 B): "+
				"the file is cut (copied before it was complete?)", raw, keep, keep-1, metaPath)
			if code != 2 || !strings.Contains(stderr, want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
			}
			after := tree(t, dir)
			for path, content := range before {
				if after[path] != content {
					t.Errorf("%s changed or was removed", path)
				}
			}
			for path := range after {
				if _, ok := before[path]; !ok {
					t.Errorf("%s was written", path)
				}
			}
		})
	}
	t.Run("payload not completed", func(t *testing.T) {
		dir := t.TempDir()
		lines, raw, _ := cutRun(t, dir, false)
		writeLines(t, raw, lines[:101]) // 20 of the last payload's 40
		code, stdout, stderr := runProcess(t, "--no-plots", dir)
		if code != 0 || !strings.Contains(stdout, "3 payloads, 100 samples") {
			t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and 100 samples summarised", code, stdout, stderr)
		}
		writeLines(t, raw, lines[:61])
		code, _, stderr = runProcess(t, "--no-plots", dir)
		want := "the file ends after 60 samples, " + filepath.Join(dir, meta.FileName) +
			" says the run measured 80 (in the payloads it completed, 16, 64 B): the file is cut"
		if code != 2 || !strings.Contains(stderr, want) {
			t.Fatalf("cut in a completed payload: exit %d, stderr %q; want 2 and %q", code, stderr, want)
		}
	})
}
