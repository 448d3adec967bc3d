package burst

import (
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/fileerr"
)

// ReadDemandsFile reads a Fast-RTPS payload demands file: one line per
// payload, "payload;demand;demand;…" (payloads_demands.csv). It returns the
// payloads in file order and the demands of each.
func ReadDemandsFile(path string) ([]int, map[int][]int, error) {
	lines, err := numberLines(path, "a payload demands file")
	if err != nil {
		return nil, nil, err
	}
	var payloads []int
	demands := map[int][]int{}
	for _, l := range lines {
		p := l.values[0]
		if len(l.values) < 2 {
			return nil, nil, fileerr.New(path, l.line, "", "payload %d has no demand: expected payload;demand;demand;…", p)
		}
		if _, dup := demands[p]; dup {
			return nil, nil, fileerr.New(path, l.line, "", "payload %d again", p)
		}
		payloads = append(payloads, p)
		demands[p] = l.values[1:]
	}
	return payloads, demands, nil
}

// ReadRecoveriesFile reads a Fast-RTPS recoveries file: recovery times in
// ms separated by ';' (recoveries.csv), on one line or several.
func ReadRecoveriesFile(path string) ([]int, error) {
	lines, err := numberLines(path, "a recoveries file")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, l := range lines {
		out = append(out, l.values...)
	}
	return out, nil
}

// numberLine is one non-empty line of ';'-separated integers ≥ 0.
type numberLine struct {
	line   int
	values []int
}

// numberLines reads the non-empty lines of the file at path as
// ';'-separated integers ≥ 0; errors name the file and line.
func numberLines(path, what string) ([]numberLine, error) {
	data, err := fileerr.ReadRegular(path, what)
	if err != nil {
		return nil, err
	}
	var out []numberLine
	for i, s := range strings.Split(string(data), "\n") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		l := numberLine{line: i + 1}
		for _, f := range strings.Split(s, ";") {
			v, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || v < 0 {
				return nil, fileerr.New(path, i+1, "", "%q is not a whole number ≥ 0", f)
			}
			l.values = append(l.values, v)
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return nil, fileerr.New(path, 0, "", "empty file: expected %s", what)
	}
	return out, nil
}
