package zenohhelper

import (
	"fmt"
	"strconv"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Window is what a role counted in one window of Common.Window, from its
// `window …` line (formats §9): the windows of a role add up to the
// counts of its summary.json.
type Window struct {
	Role string
	// Sent: pub messages, query queries, queryable replies. Received: sub
	// unique measured messages, query replies (of the queries that ended),
	// queryable queries. Bytes: of what was received.
	Sent, Received, Errors, Timeouts, Bytes uint64
	// Lost is the change in sequence numbers missing (sub; negative when
	// late arrivals fill gaps of an earlier window).
	Lost                   int64
	Duplicates, OutOfOrder uint64
	// Queries ended in the window (query), with Replies replies.
	Queries, Replies uint64
	// Latency holds the one-way latencies (sub, as measured, clamped at 0)
	// or times to the first reply (query), Last the times to the last
	// reply (query), ns; nil when none.
	Latency, Last *hdrhistogram.Histogram
}

// ParseWindow parses a `window role=R sent=N … hdr=B64 hdr_last=B64` line;
// a histogram written as `-` is empty.
func ParseWindow(line string) (Window, error) {
	fields := strings.Fields(line)
	if len(fields) == 0 || fields[0] != "window" {
		return Window{}, fmt.Errorf("%q is not a window line", line)
	}
	var w Window
	counts := map[string]*uint64{"sent": &w.Sent, "received": &w.Received, "errors": &w.Errors, "timeouts": &w.Timeouts,
		"bytes": &w.Bytes, "duplicates": &w.Duplicates, "out_of_order": &w.OutOfOrder, "queries": &w.Queries, "replies": &w.Replies}
	for _, f := range fields[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return Window{}, fmt.Errorf("window line: field %q is not key=value", f)
		}
		var err error
		switch k {
		case "role":
			w.Role = v
		case "lost":
			w.Lost, err = strconv.ParseInt(v, 10, 64)
		case "hdr", "hdr_last":
			h := &w.Latency
			if k == "hdr_last" {
				h = &w.Last
			}
			if v != "-" {
				*h, err = hdrhistogram.Decode([]byte(v))
			}
		default:
			if c, ok := counts[k]; ok {
				*c, err = strconv.ParseUint(v, 10, 64)
			}
		}
		if err != nil {
			return Window{}, fmt.Errorf("window line: %s: %w", k, err)
		}
	}
	if w.Role == "" {
		return Window{}, fmt.Errorf("window line %q lacks role=", line)
	}
	return w, nil
}

// Values are the values recorded in h, each at the lowest value of its
// bucket (recorded again into a histogram of the same precision, they give
// its quantiles exactly); nil for nil.
func Values(h *hdrhistogram.Histogram) []int64 {
	if h == nil {
		return nil
	}
	v := make([]int64, 0, h.TotalCount())
	for _, b := range h.Distribution() {
		for range b.Count {
			v = append(v, b.From)
		}
	}
	return v
}
