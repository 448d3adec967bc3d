package experiment

import (
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// Listed is what an experiment's meta.json says ran (formats §6): the
// sub-experiments selected (config.subexperiments) or recorded
// (subexperiments[].type) and, for each recorded one, the payloads it
// measured (subexperiments[].payloads[].bytes). A file of the folder
// holding data meta.json does not list is not of that run: two runs
// written into one folder, or a file copied in, would otherwise be gated
// as one. What meta.json does not list at all (an older meta.json without
// sub-experiments, a record without payloads) is not checked; a folder
// without meta.json (Fast-RTPS) has nothing to check against. The nil
// *Listed checks nothing.
type Listed struct {
	// Meta is the path of the meta.json, for messages.
	Meta     string
	types    []string         // in meta.json's order
	payloads map[string][]int // by type, in meta.json's order; absent: not listed
}

// listedOf returns what m, read from path, lists; nil when it lists no
// sub-experiment.
func listedOf(path string, m *meta.Meta) *Listed {
	l := &Listed{Meta: path, payloads: map[string][]int{}}
	add := func(t string) {
		if t != "" && !slices.Contains(l.types, t) {
			l.types = append(l.types, t)
		}
	}
	for _, t := range m.Config.SubExperiments {
		add(t)
	}
	for _, s := range m.SubExperiments {
		add(s.Type)
		for _, p := range s.Payloads {
			if s.Type != "" && !slices.Contains(l.payloads[s.Type], p.Bytes) {
				l.payloads[s.Type] = append(l.payloads[s.Type], p.Bytes)
			}
		}
	}
	if len(l.types) == 0 {
		return nil
	}
	return l
}

// ReadListed reads what the meta.json of experiment dir lists; nil (and no
// error) when dir has no meta.json or it lists no sub-experiment. A
// malformed meta.json is an error, as for Load.
func ReadListed(dir string) (*Listed, error) {
	path, m, err := readMeta(dir)
	if err != nil || m == nil {
		return nil, err
	}
	return listedOf(path, m), nil
}

// notOfThisRun ends the errors of Listed: what the mismatch may mean and
// what to do.
const notOfThisRun = "its data is not of that run (two runs written into one folder, or a file copied in?); " +
	"move the file out, or measure again into a folder of its own"

// Type returns an error when file holds data of sub-experiment typ and
// meta.json does not list typ.
func (l *Listed) Type(file, typ string) error {
	if l == nil || slices.Contains(l.types, typ) {
		return nil
	}
	return fileerr.New(file, 0, "", "sub-experiment %s is not in %s, which lists %s: %s",
		typ, l.Meta, strings.Join(l.types, ", "), notOfThisRun)
}

// Payload returns an error when line (0 for none) of file holds a payload
// of sub-experiment typ that meta.json does not list for it. A
// sub-experiment without recorded payloads is not checked.
func (l *Listed) Payload(file string, line int, typ string, payload int) error {
	if l == nil {
		return nil
	}
	listed, ok := l.payloads[typ]
	if !ok || len(listed) == 0 || slices.Contains(listed, payload) {
		return nil
	}
	sizes := make([]string, len(listed))
	for i, p := range listed {
		sizes[i] = strconv.Itoa(p)
	}
	return fileerr.New(file, line, "", "payload %d B of sub-experiment %s is not in %s, which lists %s B for it: %s",
		payload, typ, l.Meta, strings.Join(sizes, ", "), notOfThisRun)
}

// check returns the first error of Listed about e's files: every summary,
// throughput and burst summary, row by row, and every raw file (raws).
func (l *Listed) check(e *Experiment, raws []File) error {
	if l == nil {
		return nil
	}
	for _, s := range e.Summaries {
		if err := CheckRows(l, s.Path, s.Type, s.Rows, func(r result.SummaryRow) int { return r.Bytes }, true); err != nil {
			return err
		}
	}
	for _, t := range e.Throughputs {
		if err := CheckRows(l, t.Path, t.Type, t.Rows, func(r result.ThroughputRow) int { return r.Payload }, true); err != nil {
			return err
		}
	}
	for _, b := range e.Bursts {
		// ReadBurst keeps some rows of each payload: no line to name.
		if err := CheckRows(l, b.Path, b.Type, b.Rows, func(r result.BurstRow) int { return r.Payload }, false); err != nil {
			return err
		}
	}
	for _, r := range raws {
		if err := l.Type(r.Path, r.Type); err != nil {
			return err
		}
	}
	return nil
}

// CheckRows checks with l the type of file and the payload of each of its
// rows; with lines, row i is on line i+2 (after the header).
func CheckRows[R any](l *Listed, file, typ string, rows []R, payload func(R) int, lines bool) error {
	if err := l.Type(file, typ); err != nil {
		return err
	}
	for i, r := range rows {
		line := 0
		if lines {
			line = i + 2
		}
		if err := l.Payload(file, line, typ, payload(r)); err != nil {
			return err
		}
	}
	return nil
}
