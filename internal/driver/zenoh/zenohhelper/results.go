package zenohhelper

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mqgate/mqgate/internal/measurements"
)

// Output file names in a role's --out directory (formats §9).
const (
	SummaryFile = "summary.json"
	RawFile     = "measurements.csv"      // formats §2; for query: time to first reply
	RawLastFile = "measurements_last.csv" // query only: time to last reply
)

// Results are what a role wrote into its output directory.
type Results struct {
	Summary Summary
	// Samples are the raw file's rows, in file order (nil for roles that
	// measure nothing).
	Samples []measurements.Sample
	// Last are a query's times to the last reply, row for row with Samples.
	Last []measurements.Sample
}

// ReadResults reads summary.json and, for measuring roles, the raw files
// in dir, and checks that they agree: each payload has as many rows, in
// the summary's order and numbered from 1, as the summary says were
// received. A role that measured nothing writes no raw file.
func ReadResults(dir string) (Results, error) {
	var res Results
	sp := filepath.Join(dir, SummaryFile)
	f, err := os.Open(sp)
	if err != nil {
		return res, err
	}
	res.Summary, err = ReadSummary(f, sp)
	f.Close()
	if err != nil {
		return res, err
	}
	if res.Summary.Latency == "" {
		return res, nil
	}
	if res.Samples, err = readRaw(filepath.Join(dir, RawFile), res.Summary); err != nil {
		return res, err
	}
	if res.Summary.Role == "query" {
		if res.Last, err = readRaw(filepath.Join(dir, RawLastFile), res.Summary); err != nil {
			return res, err
		}
	}
	return res, nil
}

func readRaw(path string, s Summary) ([]measurements.Sample, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		// The helper writes no raw file when it measured nothing.
		for _, p := range s.Payloads {
			if p.Received > 0 {
				return nil, fmt.Errorf("%s: missing, but the %s summary beside it says %d samples of payload %d were received", path, s.Role, p.Received, p.Payload)
			}
		}
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []measurements.Sample
	r := measurements.NewReader(f, path)
	pi, n := 0, 0 // payload index in the summary, rows of it so far
	for r.Next() {
		smp := r.Sample()
		for pi < len(s.Payloads) && (int(s.Payloads[pi].Payload) != smp.Payload) {
			if uint64(n) != s.Payloads[pi].Received {
				return nil, fmt.Errorf("%s:%d: payload %d has %d rows, the summary says %d were received", path, r.Line(), s.Payloads[pi].Payload, n, s.Payloads[pi].Received)
			}
			pi, n = pi+1, 0
		}
		if pi == len(s.Payloads) {
			return nil, fmt.Errorf("%s:%d: payload %d is not in the summary (or out of its order)", path, r.Line(), smp.Payload)
		}
		n++
		if smp.Sample != n {
			return nil, fmt.Errorf("%s:%d: sample %d, expected %d", path, r.Line(), smp.Sample, n)
		}
		out = append(out, smp)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	for ; pi < len(s.Payloads); pi, n = pi+1, 0 {
		if uint64(n) != s.Payloads[pi].Received {
			return nil, fmt.Errorf("%s: payload %d has %d rows, the summary says %d were received", path, s.Payloads[pi].Payload, n, s.Payloads[pi].Received)
		}
	}
	return out, nil
}
