package load

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/mqgate/mqgate/internal/meta"
)

// StartMeta records m as a run under way: no sub-experiment yet, neither
// completed nor interrupted, written into dir (made when missing). It
// returns the path of meta.json and finish, to be deferred with the run's
// named error: finish records the end and whether the run completed, was
// interrupted or failed, and writes m again; a failed write becomes the
// run's error when it had none. The load, throughput and per-message
// runners share it so that each leaves meta.json by the same rule.
func StartMeta(dir string, m *meta.Meta) (path string, finish func(err *error), err error) {
	m.Completed, m.Interrupted, m.Error = false, false, ""
	m.SubExperiments = []meta.SubExperiment{}
	path = filepath.Join(dir, meta.FileName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	m.End = m.Start
	if err := meta.Write(path, m); err != nil {
		return "", nil, err
	}
	finish = func(err *error) {
		m.End = time.Now().UTC()
		m.Completed = *err == nil
		m.Interrupted = errors.Is(*err, ErrInterrupted)
		if *err != nil {
			m.Error = (*err).Error()
		}
		if werr := meta.Write(path, m); werr != nil && *err == nil {
			*err = werr
		}
	}
	return path, finish, nil
}
