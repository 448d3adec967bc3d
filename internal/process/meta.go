package process

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/clobber"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// Label is what --sut-name, --sut-version and --start say of an imported
// experiment folder (a Fast-RTPS one, which has no meta.json), so that
// history orders it by its start and labels it by its version. Empty
// fields are not given.
type Label struct {
	System, Version string
	Start           time.Time
}

// Given reports whether any field of l was given.
func (l Label) Given() bool { return l.System != "" || l.Version != "" || !l.Start.IsZero() }

// ParseStart reads --start: an RFC 3339 time (2019-11-15T10:00:00Z) or a
// date (2019-11-15, midnight UTC), as the Fast-RTPS results name their
// folders.
func ParseStart(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q: expected an RFC 3339 time (2019-11-15T10:00:00Z) or a date (2019-11-15)", s)
}

// metaPlan is the meta.json that process will write into an experiment
// folder for a Label: the whole file (data), or nothing when meta.json
// already says all of it.
type metaPlan struct {
	path string
	data []byte // nil: meta.json is left as it is
	// what says what is written, for the progress line.
	what string
}

// planMeta works out, before anything is written, the meta.json of dir
// labelled l: a new one when dir has none, else the existing one with the
// fields it lacks filled in. A field that meta.json gives otherwise is an
// input error naming the field, both values and the flag: process does not
// change what a run (or a person) recorded. A malformed meta.json is an
// error too. toolVersion names this program's version in a new file.
func planMeta(dir string, l Label, toolVersion string) (*metaPlan, error) {
	path := filepath.Join(dir, meta.FileName)
	old, err := meta.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return newMeta(dir, path, l, toolVersion)
	case err != nil:
		return nil, err
	}
	var conflicts, filled []string
	for _, f := range []struct {
		field, flag, have, want string
	}{
		{"system.name", "--sut-name", old.System.Name, l.System},
		{"system.version", "--sut-version", old.System.Version, l.Version},
		{"start", "--start", formatStart(old.Start), formatStart(l.Start)},
	} {
		switch {
		case f.want == "" || f.want == f.have:
		case f.have == "":
			filled = append(filled, f.field)
		default:
			conflicts = append(conflicts, fmt.Sprintf("%s is %q, %s %q", f.field, f.have, f.flag, f.want))
		}
	}
	if len(conflicts) > 0 {
		return nil, fileerr.New(path, 0, "", "%s: process does not change what meta.json records; give the same value or leave the flag out",
			strings.Join(conflicts, "; "))
	}
	if len(filled) == 0 {
		return &metaPlan{path: path, what: "already says so"}, nil
	}
	data, err := fill(path, l)
	if err != nil {
		return nil, err
	}
	return &metaPlan{path: path, data: data, what: "filled in " + strings.Join(filled, ", ")}, nil
}

// formatStart is a start time as meta.json writes it, "" for none.
func formatStart(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// newMeta is the meta.json of an imported folder: what l gives, the
// folder's name, the run taken as complete (the folder holds what was
// measured), and nothing about the host or the run's settings, which
// process cannot know. The latency definition is left unsaid, as without
// meta.json (half-rtt, formats §2).
func newMeta(dir, path string, l Label, toolVersion string) (*metaPlan, error) {
	if l.Start.IsZero() {
		return nil, fmt.Errorf("%s has no %s: give --start (the experiment's start, e.g. 2019-11-15) with --sut-name and --sut-version, so that history can order it",
			dir, meta.FileName)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	m := &meta.Meta{
		Schema:     meta.SchemaVersion,
		Tool:       meta.Tool{Name: "mqgate process", Version: toolVersion},
		Experiment: filepath.Base(abs),
		Start:      l.Start,
		End:        l.Start, // unknown: no duration rather than a negative one
		Completed:  true,
		System:     meta.System{Name: l.System, Version: l.Version},
	}
	var b bytes.Buffer
	if err := meta.Encode(&b, m); err != nil {
		return nil, err
	}
	return &metaPlan{path: path, data: b.Bytes(), what: "written"}, nil
}

// fill returns the meta.json at path with the fields of l that it lacks
// set, every other key kept as it is (also those this version does not
// know), indented as run writes it.
func fill(path string, l Label) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fileerr.New(path, 0, "", "%v", err)
	}
	system := map[string]json.RawMessage{}
	if raw, ok := top["system"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &system); err != nil {
			return nil, fileerr.New(path, 0, "", "field \"system\": %v", err)
		}
	}
	set := func(m map[string]json.RawMessage, key, value string) {
		if value == "" {
			return
		}
		if old, ok := m[key]; ok && string(old) != `""` && string(old) != "null" {
			return // the same value (planMeta compared them)
		}
		m[key], _ = json.Marshal(value)
	}
	set(system, "name", l.System)
	set(system, "version", l.Version)
	top["system"], _ = json.Marshal(system)
	set(top, "start", formatStart(l.Start))
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// write writes the planned meta.json, atomically; nothing when meta.json
// already said it all.
func (p *metaPlan) write() error {
	if p.data == nil {
		return nil
	}
	return atomicfile.Write(p.path, func(w io.Writer) error { _, err := w.Write(p.data); return err })
}

// summariesOnly reports whether dir holds result summaries (latency or
// burst) but no file process reads: a folder of published summaries, which
// process can label (meta.json) but not summarise again.
func summariesOnly(dir string) bool {
	for _, list := range []func(string) ([]experiment.File, error){experiment.RawFiles, experiment.BurstFiles, experiment.ThroughputFiles} {
		if files, err := list(dir); err != nil || len(files) > 0 {
			return false
		}
	}
	sums, err := experiment.SummaryFiles(dir)
	if err == nil && len(sums) > 0 {
		return true
	}
	bursts, err := experiment.BurstSummaryFiles(dir)
	return err == nil && len(bursts) > 0
}

// labelOnly is process on a folder of published summaries with a Label:
// it writes the folder's meta.json, and nothing else.
func labelOnly(cfg Config, p *metaPlan, stdout io.Writer) error {
	var guard clobber.Guard
	guard.Experiment("EXPERIMENT_DIR", cfg.Dirs[0])
	if err := guard.Check(); err != nil {
		return err
	}
	if err := p.write(); err != nil {
		return exit.With(exit.Usage, err)
	}
	if !cfg.Quiet {
		fmt.Fprintf(stdout, "%s: %s (the folder holds summaries and no raw file: nothing to summarise)\n", p.path, p.what)
	}
	return nil
}

// measured is what the meta.json of an experiment folder says its run
// wrote into the raw file of one sub-experiment (formats §6): the samples
// of the payloads it marks completed. A payload not completed (the one an
// interrupted run was measuring) has the samples measured until the run
// stopped, which meta.json counts too but a cut file cannot be told from:
// those are not counted here.
type measured struct {
	meta     string // the meta.json, for messages
	samples  int
	payloads []int // the completed payloads, in meta.json's order
	partial  bool  // a payload recorded is not completed
}

// readMeasured returns what the meta.json of dir says its run wrote, by
// sub-experiment; nil when dir has no meta.json. A sub-experiment recorded
// twice, or with no payload completed, is left out: nothing says what its
// raw file holds.
func readMeasured(dir string) (map[string]measured, error) {
	path := filepath.Join(dir, meta.FileName)
	f, err := fileerr.OpenRegular(path, "the run's "+meta.FileName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := meta.Decode(f, path)
	if err != nil {
		return nil, err
	}
	byType, twice := map[string]measured{}, map[string]bool{}
	for _, s := range m.SubExperiments {
		if _, ok := byType[s.Type]; ok {
			twice[s.Type] = true
		}
		w := measured{meta: path}
		for _, p := range s.Payloads {
			if !p.Completed {
				w.partial = true
				continue
			}
			w.samples += p.Samples
			w.payloads = append(w.payloads, p.Bytes)
		}
		byType[s.Type] = w
	}
	for t, w := range byType {
		if twice[t] || len(w.payloads) == 0 {
			delete(byType, t)
		}
	}
	return byType, nil
}

// checkMeasured refuses the raw file path when it holds fewer samples than
// w, what its run wrote of the payloads it completed: a file cut at a line
// end (a copy interrupted, head -n) reads as a complete file with fewer
// samples, and would be summarised as one. The rows are counted, not
// parsed: the reader refuses later whatever else is wrong with them.
func checkMeasured(path string, w measured) error {
	lines, err := countLines(path)
	if err != nil {
		return err
	}
	rows := max(lines-1, 0) // after the header
	if rows >= w.samples {
		return nil
	}
	sizes := make([]string, len(w.payloads))
	for i, p := range w.payloads {
		sizes[i] = strconv.Itoa(p)
	}
	of := "payloads " + strings.Join(sizes, ", ") + " B"
	if w.partial {
		of = "in the payloads it completed, " + strings.Join(sizes, ", ") + " B"
	}
	return fileerr.New(path, lines, "", "the file ends after %s samples, %s says the run measured %s (%s): "+
		"the file is cut (copied before it was complete?); copy it whole from the run's folder, or measure again",
		result.Count(rows), w.meta, result.Count(w.samples), of)
}

// countLines counts the line ends of the file at path.
func countLines(path string) (int, error) {
	f, err := fileerr.OpenRegular(path, "a raw measurements file")
	if err != nil {
		return 0, fileerr.Unreadable(path, "raw measurements", err)
	}
	defer f.Close()
	buf := make([]byte, 1<<16)
	n := 0
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		switch {
		case errors.Is(err, io.EOF):
			return n, nil
		case err != nil:
			return 0, fileerr.Unreadable(path, "raw measurements", err)
		}
	}
}
