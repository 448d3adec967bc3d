package history

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDiscoverOrder(t *testing.T) {
	exps, warnings, err := Discover("testdata/experiments")
	if err != nil {
		t.Fatal(err)
	}
	var names, from, labels []string
	for _, e := range exps {
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
	if len(warnings) != 1 || !strings.Contains(warnings[0], "notes") {
		t.Errorf("warnings = %q, want one about the folder without summaries", warnings)
	}
}

func TestSortExperiments(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2024, 1, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name string
		in   []Experiment
		want []string
	}{
		{"by time", []Experiment{{Name: "a", Start: day(3)}, {Name: "b", Start: day(1)}, {Name: "c", Start: day(2)}}, []string{"b", "c", "a"}},
		{"ties by name", []Experiment{{Name: "b", Start: day(1)}, {Name: "a", Start: day(1)}}, []string{"a", "b"}},
		{"undated last, by name", []Experiment{{Name: "z"}, {Name: "x", Start: day(2)}, {Name: "build-10"}, {Name: "build-9"}}, []string{"x", "build-9", "build-10", "z"}},
		{"all undated", []Experiment{{Name: "r2"}, {Name: "r10"}, {Name: "r1"}}, []string{"r1", "r2", "r10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			SortExperiments(tt.in)
			var got []string
			for _, e := range tt.in {
				got = append(got, e.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNaturalLess(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"a", "b", true},
		{"b", "a", false},
		{"a", "a", false},
		{"build-9", "build-10", true},
		{"build-10", "build-9", false},
		{"v1.9.2", "v1.10.0", true},
		{"x01", "x1", false}, // equal numbers: the shorter spelling first
		{"x1", "x01", true},
		{"", "a", true},
		{"2024-01-02_00-00-00", "2024-01-10_00-00-00", true},
	}
	for _, tt := range tests {
		if got := naturalLess(tt.a, tt.b); got != tt.want {
			t.Errorf("naturalLess(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// FuzzNaturalLess checks that naturalLess is a strict order: irreflexive,
// asymmetric, and total on distinct strings.
func FuzzNaturalLess(f *testing.F) {
	for _, s := range [][2]string{{"a1", "a01"}, {"build-9", "build-10"}, {"", "0"}, {"007", "7"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ab, ba := naturalLess(a, b), naturalLess(b, a)
		if a == b && (ab || ba) {
			t.Fatalf("naturalLess(%q, %q) is not irreflexive", a, b)
		}
		if ab && ba {
			t.Fatalf("naturalLess(%q, %q) and the reverse both hold", a, b)
		}
		if a != b && !ab && !ba {
			t.Fatalf("naturalLess cannot order distinct %q and %q", a, b)
		}
	})
}

func TestDiscoverErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	noSummaries := filepath.Join(dir, "nosummaries")
	for _, d := range []string{empty, filepath.Join(noSummaries, "2024-01-01_00-00-00")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	badMeta := filepath.Join(dir, "badmeta")
	writeFile(t, filepath.Join(badMeta, "e1", "measurements_intraprocess_reliable_summary.csv"), fastrtpsSummary(t))
	writeFile(t, filepath.Join(badMeta, "e1", "meta.json"), "{\n  \"start\": \"2024-01-01T00:00:00Z\",\n  oops\n}\n")

	tests := []struct {
		name, root, want string
	}{
		{"missing", filepath.Join(dir, "missing"), "does not exist"},
		{"not a directory", file, "not a directory"},
		{"empty", empty, "no experiments"},
		{"no summaries", noSummaries, "no experiments"},
		{"bad meta.json", badMeta, "meta.json:3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Discover(tt.root)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.root) {
				t.Errorf("Discover(%s) error = %v, want one naming the directory and saying %q", tt.root, err, tt.want)
			}
		})
	}
}

// writeFile writes data to path, creating directories.
func writeFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fastrtpsSummary is the real Fast-RTPS v1.9.2 summary of the test data.
func fastrtpsSummary(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/experiments/2019-11-05_10-00-00/measurements_interprocess_reliable_summary.csv")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
