package csvfile

import (
	"strings"
	"testing"
)

func TestReadHeader(t *testing.T) {
	cols := []string{"A", "B"}
	cases := map[string]string{
		"A,B\n1,2\n":     "",
		"\ufeffA,B\n":    "",
		"":               `f.csv: empty file: expected the header "A,B"`,
		"A,C\n":          `f.csv:1: header is "A,C", expected exactly "A,B"`,
		"\"A,B\n":        "f.csv:1: malformed CSV",
		"A\n":            `f.csv:1: header is "A"`,
		"A,B,C\n1,2,3\n": `header is "A,B,C"`,
	}
	for in, want := range cases {
		err := ReadHeader(NewReader(strings.NewReader(in)), "f.csv", cols)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("ReadHeader(%q) = %v, want %q", in, err, want)
		}
	}
}

func TestReadHeaderOf(t *testing.T) {
	short, long := []string{"A", "B"}, []string{"A", "B", "C"}
	for in, want := range map[string]int{"A,B\n": 2, "\ufeffA,B,C\n": 3, "A,C\n": 0} {
		h, err := ReadHeaderOf(NewReader(strings.NewReader(in)), "f.csv", `"A,B" or "A,B,C"`, short, long)
		if len(h) != want || (want == 0) != (err != nil) {
			t.Errorf("ReadHeaderOf(%q) = %v, %v; want %d columns", in, h, err, want)
		}
		if want == 0 && err.Error() != `f.csv:1: header is "A,C", expected exactly "A,B" or "A,B,C"` {
			t.Errorf("ReadHeaderOf(%q): %v", in, err)
		}
	}
}
