package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSummaryFileStrict checks that the summary JSON process reads is
// one JSON object and nothing after it, in UTF-8: trailing data (a second
// object, a stray brace, text) is refused at its line and column.
func TestReadSummaryFileStrict(t *testing.T) {
	good := `{"format": "` + SummaryFormat + `"}`
	for _, c := range []struct{ name, in, want string }{
		{"second object", good + "\n" + good + "\n", "s.json:2:1: unexpected data after the JSON object"},
		{"stray brace", good + "}", "s.json:1:36: unexpected data after the JSON object"},
		{"stray bracket", good + "\n ]", "s.json:2:2: unexpected data after the JSON object"},
		{"text", good + "\ngarbage", "s.json:2:1: unexpected data after the JSON object"},
		{"not UTF-8", `{"format": "` + SummaryFormat + `",` + "\n\"transport\": \"tc\xffp\"}", "s.json:2:17: byte 0xFF is not UTF-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.json")
			if err := os.WriteFile(path, []byte(c.in), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadSummaryFile(path)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%q: %v, want %q", c.in, err, c.want)
			}
		})
	}
	for _, in := range []string{good, good + "\n", " \n" + good + " \r\n\t"} {
		path := filepath.Join(t.TempDir(), "s.json")
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadSummaryFile(path); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}
