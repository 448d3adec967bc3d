package zenohhelper

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/mqgate/mqgate/internal/fileerr"
)

// SummaryFormat is the format name every summary.json carries.
const SummaryFormat = "mqgate-zenoh-summary/1"

// Latency definitions a summary may declare (formats §2).
const (
	LatencyHalfRTT = "half-rtt"
	LatencyRTT     = "rtt"
	LatencyOneWay  = "one-way"
)

// Summary is summary.json (formats §9): what a role ran and what it counted,
// per payload. Field order is the file's.
type Summary struct {
	Format            string `json:"format"`
	Role              string `json:"role"`
	HelperVersion     string `json:"helper_version"`
	ZenohVersion      string `json:"zenoh_version"`
	ZID               string `json:"zid"`
	Mode              string `json:"mode"`
	Key               string `json:"key"`
	Reliability       string `json:"reliability"`
	CongestionControl string `json:"congestion_control"`
	Express           bool   `json:"express"`
	// Latency is the definition of the raw file's values; empty for roles
	// that measure nothing (pong, queryable, router).
	Latency   string `json:"latency"`
	Completed bool   `json:"completed"`
	// Reason says why the run is incomplete; empty when it completed.
	Reason string `json:"reason"`
	// Links to the far end once it answered: "SRC -> DST", then the link's
	// reliability ("reliable", "best-effort") when Zenoh reports one.
	Links    []string        `json:"links"`
	Payloads []PayloadCounts `json:"payloads"`
}

// PayloadCounts are one payload's counts; formats §9 says which role counts
// what, the other fields are zero.
type PayloadCounts struct {
	Payload    uint64 `json:"payload"`
	Warmup     uint64 `json:"warmup"`
	Sent       uint64 `json:"sent"`
	Received   uint64 `json:"received"`
	Lost       uint64 `json:"lost"`
	Timeouts   uint64 `json:"timeouts"`
	Duplicates uint64 `json:"duplicates"`
	OutOfOrder uint64 `json:"out_of_order"`
	Late       uint64 `json:"late"`
	Skipped    uint64 `json:"skipped"`
	Clamped    uint64 `json:"clamped"`
	Errors     uint64 `json:"errors"`
	Replies    uint64 `json:"replies"`
	RepliesMin uint64 `json:"replies_min"`
	RepliesMax uint64 `json:"replies_max"`
	// ResultBytes are the payload bytes of the replies to the measured
	// queries; nil unless the query role was asked to count them.
	ResultBytes *uint64           `json:"result_bytes,omitempty"`
	Latency     *LatencyStats     `json:"latency"`
	LatencyLast *LatencyStats     `json:"latency_last"`
	Publishers  []PublisherCounts `json:"publishers"`
}

// LatencyStats summarise an HDR histogram (3 significant digits, 1 ns to 10 s)
// of the values in the raw file, in nanoseconds.
type LatencyStats struct {
	Count      uint64 `json:"count"`
	MinNs      uint64 `json:"min_ns"`
	P50Ns      uint64 `json:"p50_ns"`
	P90Ns      uint64 `json:"p90_ns"`
	P99Ns      uint64 `json:"p99_ns"`
	P999Ns     uint64 `json:"p999_ns"`
	MaxNs      uint64 `json:"max_ns"`
	MeanNs     uint64 `json:"mean_ns"`
	AboveRange uint64 `json:"above_range"`
	// HDR is the histogram in HdrHistogram's V2 compressed encoding, base64.
	HDR string `json:"hdr"`
}

// PublisherCounts are what a subscriber counted of one publisher (and, in
// a publisher's summary, what each of its publishers sent).
type PublisherCounts struct {
	Publisher uint16  `json:"publisher"`
	RunID     *uint32 `json:"run_id"`
	// Sent is the count the publisher's end marker announced; nil when the
	// marker never arrived.
	Sent       *uint64 `json:"sent"`
	Received   uint64  `json:"received"`
	Lost       uint64  `json:"lost"`
	Duplicates uint64  `json:"duplicates"`
	OutOfOrder uint64  `json:"out_of_order"`
}

// ReadSummary reads a summary.json; file names it in errors, which give the
// line and column of a syntax error or of an unknown field.
func ReadSummary(r io.Reader, file string) (Summary, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Summary{}, fmt.Errorf("%s: %w", file, err)
	}
	var s Summary
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Summary{}, jsonError(file, data, dec.InputOffset(), err)
	}
	// Not dec.More(), which takes a stray '}' or ']' for the end.
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return Summary{}, fmt.Errorf("%s: data after the summary object", file)
	}
	if s.Format != SummaryFormat {
		return Summary{}, fmt.Errorf("%s: format %q, expected %q (a summary.json written by mqgate-zenoh)", file, s.Format, SummaryFormat)
	}
	switch s.Latency {
	case "", LatencyHalfRTT, LatencyRTT, LatencyOneWay:
	default:
		return Summary{}, fmt.Errorf("%s: latency %q, expected %s, %s, %s or empty", file, s.Latency, LatencyHalfRTT, LatencyRTT, LatencyOneWay)
	}
	for i, p := range s.Payloads {
		if p.Payload == 0 {
			return Summary{}, fmt.Errorf("%s: payloads[%d]: payload 0, expected a size in bytes", file, i)
		}
		for _, l := range []*LatencyStats{p.Latency, p.LatencyLast} {
			if l != nil && (l.MinNs > l.P50Ns || l.P50Ns > l.P90Ns || l.P90Ns > l.P99Ns || l.P99Ns > l.P999Ns || l.P999Ns > l.MaxNs) {
				return Summary{}, fmt.Errorf("%s: payload %d: latency percentiles are not in order", file, p.Payload)
			}
		}
	}
	if !s.Completed && s.Reason == "" {
		return Summary{}, fmt.Errorf("%s: an incomplete run without a reason", file)
	}
	return s, nil
}

// jsonError places a decoding error at its line and column.
func jsonError(file string, data []byte, off int64, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = int64(fileerr.SyntaxOffset(data, int(syn.Offset)))
	case errors.As(err, &typ):
		off = typ.Offset
	}
	line, col := fileerr.Position(data, int(off))
	return fmt.Errorf("%s:%d:%d: %w", file, line, col, err)
}
