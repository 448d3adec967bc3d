package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
)

func TestTypeOf(t *testing.T) {
	cases := []struct {
		name        string
		raw, sum    string
		isRaw, isSm bool
	}{
		{"measurements_interprocess_reliable.csv", "interprocess_reliable", "", true, false},
		{"measurements_interprocess_reliable_summary.csv", "", "interprocess_reliable", false, true},
		{"dir/measurements_amqp_reliable_security.csv", "amqp_reliable_security", "", true, false},
		{"measurements_.csv", "", "", false, false},
		{"measurements_summary.csv", "", "", false, false}, // prefix and suffix share its "_"
		{"measurements__summary.csv", "", "", false, false},
		{"checks_interprocess_reliable.csv", "", "", false, false},
		{"measurements_x.txt", "", "", false, false},
	}
	for _, c := range cases {
		r, ok := TypeOfRaw(c.name)
		if r != c.raw || ok != c.isRaw {
			t.Errorf("TypeOfRaw(%q) = %q, %v", c.name, r, ok)
		}
		s, ok := TypeOfSummary(c.name)
		if s != c.sum || ok != c.isSm {
			t.Errorf("TypeOfSummary(%q) = %q, %v", c.name, s, ok)
		}
	}
	for _, b := range driver.BuiltinTypes() {
		if got, _ := TypeOfRaw(RawFileName(b)); got != b {
			t.Errorf("raw round trip of %s = %s", b, got)
		}
		if got, _ := TypeOfSummary(SummaryFileName(b)); got != b {
			t.Errorf("summary round trip of %s = %s", b, got)
		}
		if err := ValidateType(b); err != nil {
			t.Error(err)
		}
	}
}

func TestValidateType(t *testing.T) {
	for _, bad := range []string{"", "Upper", "a-b", "_a", "a_", "a b"} {
		if ValidateType(bad) == nil {
			t.Errorf("ValidateType(%q) accepted", bad)
		}
	}
}

func TestList(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"measurements_b.csv", "measurements_a.csv", "measurements_a_summary.csv", "meta.json"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	raw, err := RawFiles(dir)
	if err != nil || len(raw) != 2 || raw[0].Type != "a" || raw[1].Type != "b" {
		t.Fatalf("RawFiles = %v, %v", raw, err)
	}
	sum, err := SummaryFiles(dir)
	if err != nil || len(sum) != 1 || sum[0].Type != "a" {
		t.Fatalf("SummaryFiles = %v, %v", sum, err)
	}
	if _, err := RawFiles(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "no such directory") {
		t.Fatalf("missing dir: %v", err)
	}
	// A directory named as a raw file is not skipped silently.
	os.Mkdir(filepath.Join(dir, "measurements_dir.csv"), 0o755)
	if _, err := RawFiles(dir); err == nil || !strings.Contains(err.Error(), "measurements_dir.csv: is a directory, not a regular file") {
		t.Fatalf("RawFiles with a directory named measurements_dir.csv: %v", err)
	}
	if sum, err := SummaryFiles(dir); err != nil || len(sum) != 1 {
		t.Fatalf("SummaryFiles = %v, %v", sum, err)
	}
}
