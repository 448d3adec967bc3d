package roles

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/measurements"
	"github.com/mqgate/mqgate/internal/meta"
)

// ReportsDir is the directory of the experiment where every role leaves
// its report (formats §9, "Role reports").
const ReportsDir = "roles"

// lockDir holds an exclusive lock on dir's .roles.lock while f runs, so
// that roles finishing together on one file system merge meta.json one
// after the other.
func lockDir(dir string, f func() error) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	lf, err := os.OpenFile(filepath.Join(dir, ".roles.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lf.Close()
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lf.Fd()), syscall.LOCK_UN)
	return f()
}

// Preflight checks, before anything is measured, that the role can write
// its results into the experiment directory: no raw file of the same
// sub-experiment, and a meta.json (if any) of the same latency definition.
func Preflight(s Settings, latency string, types []string) error {
	dir := s.Dir()
	for _, typ := range types {
		if _, err := os.Stat(filepath.Join(dir, experiment.RawFileName(typ))); err == nil {
			return fmt.Errorf("%s already holds sub-experiment %s: give this role another --label or another --run-id", dir, typ)
		}
	}
	m, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if latency != "" && m.Latency != latency {
		return fmt.Errorf("%s holds %s latencies and this role measures %s (formats §2: one definition per experiment); use another --run-id", dir, m.Latency, latency)
	}
	return nil
}

// Measured is one sub-experiment a role measured.
type Measured struct {
	Type    string
	Payload int
	// Micros are the samples as the raw file holds them.
	Micros []float64
	Counts meta.Payload
	Sub    meta.SubExperiment // without Payloads; filled in by Merge
}

// subExperiment is what meta.json records of a sub-experiment of the role
// on topic (Merge adds its type and payloads).
func (s Settings) subExperiment(topic string, completed bool, reason string, start, end time.Time, sys *meta.SystemInfo, params map[string]string) meta.SubExperiment {
	return meta.SubExperiment{Transport: s.Driver, Reliable: s.Reliable, Echo: "remote", Topic: topic, Completed: completed, Error: reason,
		Start: start.UTC(), End: end.UTC(), System: sys, Params: params}
}

// Merge writes the raw files of ms and merges their sub-experiments into
// the experiment's meta.json (created by the first role to finish), under
// the directory lock.
func Merge(s Settings, latency, mode, clock string, start, end time.Time, interrupted bool, errMsg string, ms []Measured) error {
	dir := s.Dir()
	return lockDir(dir, func() error {
		for _, m := range ms {
			if len(m.Micros) == 0 {
				continue // formats §2: a raw file has samples; meta.json says 0
			}
			path := filepath.Join(dir, experiment.RawFileName(m.Type))
			if _, err := os.Stat(path); err == nil {
				return fmt.Errorf("%s appeared while this role measured: another role wrote sub-experiment %s; give each its own --label", path, m.Type)
			}
			if err := atomicfile.Write(path, func(w io.Writer) error {
				mw := measurements.NewWriter(w)
				for i, us := range m.Micros {
					if err := mw.Write(measurements.Sample{Sample: i + 1, Payload: m.Payload, Latency: us}); err != nil {
						return err
					}
				}
				return mw.Flush()
			}); err != nil {
				return err
			}
		}
		mp := filepath.Join(dir, meta.FileName)
		doc, err := meta.ReadFile(mp)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			doc = &meta.Meta{
				Tool:       meta.Tool{Name: "mqgate run " + s.Role, Version: Version},
				Experiment: s.RunID, Start: start, End: end, Completed: true,
				System: meta.System{Name: s.Driver},
				Host:   meta.HostFingerprint(),
				Config: meta.Config{Args: s.Args, Payloads: []int{}, SubExperiments: []string{}, Timeout: meta.Duration(s.Timeout),
					Echo: "remote", Out: s.OutDir, Params: map[string]string{}},
				Latency: latency, Mode: mode, Clock: clock,
			}
		case err != nil:
			return err
		case doc.Latency != latency:
			return fmt.Errorf("%s: latency %s, this role's %s", mp, doc.Latency, latency)
		}
		if start.Before(doc.Start) {
			doc.Start = start
		}
		if end.After(doc.End) {
			doc.End = end
		}
		if !slices.Contains(doc.System.Scopes, s.Driver) {
			doc.System.Scopes = append(doc.System.Scopes, s.Driver)
		}
		doc.Interrupted = doc.Interrupted || interrupted
		if errMsg != "" && doc.Error == "" {
			doc.Error = errMsg
		}
		for _, m := range ms {
			sub := m.Sub
			sub.Type = m.Type
			sub.Payloads = []meta.Payload{m.Counts}
			doc.Completed = doc.Completed && sub.Completed
			doc.SubExperiments = append(doc.SubExperiments, sub)
			doc.Config.SubExperiments = append(doc.Config.SubExperiments, m.Type)
			if !slices.Contains(doc.Config.Payloads, m.Payload) {
				doc.Config.Payloads = append(doc.Config.Payloads, m.Payload)
			}
			doc.Config.Samples = max(doc.Config.Samples, m.Counts.Samples)
		}
		if doc.Config.Params == nil {
			doc.Config.Params = map[string]string{}
		}
		doc.Config.Params[s.Role+"."+s.Label+".args"] = fmt.Sprint(s.Args)
		return meta.Write(mp, doc)
	})
}

// reportHead is what every role's report starts with: who wrote it.
type reportHead struct {
	Role     string `json:"role"`
	RunID    string `json:"run_id"`
	Host     string `json:"host"`
	Instance int    `json:"instance"`
	Driver   string `json:"driver"`
}

// reportEnd is how a pub, qry or req report ends: when the role ran,
// whether it completed and, if not, what ended it.
type reportEnd struct {
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	Completed bool      `json:"completed"`
	Error     string    `json:"error,omitempty"`
}

// helperEnd is the end of a helper pub's or qry's report: an interrupted
// run did not complete, and has no error.
func helperEnd(run driver.RoleRun, start, end time.Time) reportEnd {
	e := reportEnd{Start: start.UTC(), End: end.UTC(), Completed: run.Completed && !run.Interrupted}
	if !e.Completed && !run.Interrupted {
		e.Error = run.Reason
	}
	return e
}

// head is the report head of role under s.
func (s Settings) head(role string) reportHead {
	return reportHead{Role: role, RunID: s.RunID, Host: hostname(), Instance: s.Instance, Driver: s.Driver}
}

// WriteReport writes the role's report, roles/<role>-<label>-<instance>.json,
// and returns its path.
func WriteReport(s Settings, report any) (string, error) {
	path := s.reportPath(".json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if s.cgroupStart != nil {
		report = withCgroup(report, *s.cgroupStart)
	}
	return path, atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	})
}

// claimReport reserves the role's report, roles/<role>-<label>-<instance>.json,
// once the role has connected and before it measures, by creating it (a
// placeholder, replaced by the report): another role of the run with the
// same role, label and instance would otherwise replace its report at the
// end, and, for pub, send under the same publisher ids. An instance drawn
// at random gives way to the next free one; a given one (--instance) is
// refused. release removes the placeholder when the role wrote no report
// over it.
func claimReport(s *Settings) (release func(), err error) {
	// unmake removes the folders made here that are still empty, so that a
	// role that fails before it measures leaves nothing behind.
	unmake, err := atomicfile.MkdirAll(filepath.Join(s.Dir(), ReportsDir), 0o755)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			unmake()
		}
	}()
	csvDefault := s.CSV != "" && s.CSV == s.reportPath(".csv")
	first := s.Instance
	for range 256 {
		path := s.reportPath(".json")
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			st, serr := f.Stat()
			werr := json.NewEncoder(f).Encode(placeholder{s.head(s.Role), false, "running, or stopped before it wrote its report"})
			if err := cmp.Or(serr, werr, f.Close()); err != nil {
				os.Remove(path)
				return nil, err
			}
			if csvDefault {
				s.CSV = s.reportPath(".csv")
			}
			return func() {
				if now, err := os.Stat(path); err == nil && os.SameFile(st, now) {
					os.Remove(path)
					unmake()
				}
			}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		if !s.instanceDrawn {
			return nil, fmt.Errorf("%s exists: a %s of run %s has --instance %d already (its report would be replaced%s); give another --instance, or none for a free one",
				path, s.Role, s.RunID, s.Instance, map[bool]string{true: ", and its publisher ids used twice"}[s.Role == RolePub])
		}
		if s.Instance = (s.Instance + 1) % 256; s.Instance == first {
			break
		}
	}
	return nil, fmt.Errorf("%s: every instance 0 to 255 of a %s of run %s has a report already; use another --name", filepath.Join(s.Dir(), ReportsDir), s.Role, s.RunID)
}

// placeholder is what a claimed report holds until the role writes it.
type placeholder struct {
	reportHead
	Completed bool   `json:"completed"`
	Error     string `json:"error"`
}

// Version is the tool version written to meta.json; run sets it.
var Version = "(devel)"
