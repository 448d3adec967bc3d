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
