package history

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
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

// TestLoadWarnsOfFutureStarts: an experiment whose start lies in the
// future (a wrong clock, a wrong 'process --start') stays the newest
// whatever comes later; it was ordered so silently, and is now named in a
// warning. One within the clocks' slack is not.
func TestLoadWarnsOfFutureStarts(t *testing.T) {
	root := t.TempDir()
	copyTree(t, "testdata/experiments", root)
	future := time.Now().Add(48 * time.Hour).UTC()
	soon := time.Now().Add(10 * time.Minute).UTC()
	setMeta(t, filepath.Join(root, "build-a"), "start", future.Format(time.RFC3339Nano))
	setMeta(t, filepath.Join(root, "2019-11-06_10-00-00"), "start", soon.Format(time.RFC3339Nano))
	h, err := Load(context.Background(), root, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(h.Warnings, "\n")
	if !strings.Contains(w, "1 experiment(s) start in the future") || !strings.Contains(w, "build-a ("+future.Format(time.RFC3339)+")") ||
		strings.Contains(w, "2019-11-06_10-00-00 (") {
		t.Errorf("warnings:\n%s", w)
	}
	if last := h.Experiments[len(h.Experiments)-1].Name; last != "build-a" {
		t.Errorf("newest %s, want build-a", last)
	}
}

// TestLoadRefusesCopiedRun: a run's folder copied into the results (the
// same meta.json, start and host) was drawn twice and counted twice by the
// change points' tests; now an input error naming both folders. Folders of
// one start without host (imported), or with other meta.json (the sides of
// an interleaved run ab), are other runs.
func TestLoadRefusesCopiedRun(t *testing.T) {
	root := t.TempDir()
	copyTree(t, "testdata/experiments", root)
	// Without a host (an imported folder's meta.json) one start is no run.
	copyTree(t, filepath.Join(root, "build-a"), filepath.Join(root, "build-b"))
	if _, err := Load(context.Background(), root, nil, false); err != nil {
		t.Fatalf("same start, no host: %v", err)
	}
	if err := os.RemoveAll(filepath.Join(root, "build-b")); err != nil {
		t.Fatal(err)
	}
	setMeta(t, filepath.Join(root, "build-a"), "host", map[string]any{"hostname": "ci-1"})
	// The other side of an interleaved run ab: one start and host, another
	// meta.json; another run.
	copyTree(t, filepath.Join(root, "build-a"), filepath.Join(root, "build-b"))
	setMeta(t, filepath.Join(root, "build-b"), "mode", "round-trip closed-loop, interleaved")
	if _, err := Load(context.Background(), root, nil, false); err != nil {
		t.Fatalf("the interleaved side: %v", err)
	}
	copyTree(t, filepath.Join(root, "build-a"), filepath.Join(root, "build-a (copy)"))
	_, err := Load(context.Background(), root, nil, false)
	if err == nil || !strings.Contains(err.Error(), "build-a (copy): the same run as "+filepath.Join(root, "build-a")+" (the same meta.json: start") {
		t.Errorf("err = %v", err)
	}
}

// copyTree copies the folder from, recursively, to to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

// setMeta sets the field key of dir's meta.json to v.
func setMeta(t *testing.T, dir, key string, v any) {
	t.Helper()
	path := filepath.Join(dir, "meta.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m[key] = v
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
