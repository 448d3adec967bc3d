package zenohhelper

import (
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// TestParseWindow parses a window line whose histogram holds known
// latencies: its counts, and Values, which recorded again give the
// quantiles and count of the latencies themselves.
func TestParseWindow(t *testing.T) {
	h := hdrhistogram.New(1, 10_000_000_000, 3)
	lat := []int64{12_345, 23_456, 23_457, 99_999, 1_234_567, 7}
	for _, v := range lat {
		h.RecordValue(v)
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ParseWindow("window role=query sent=6 received=11 errors=1 timeouts=2 bytes=1100 lost=-3 duplicates=4 out_of_order=5 queries=6 replies=11 hdr=" +
		string(enc) + " hdr_last=-")
	if err != nil {
		t.Fatal(err)
	}
	if w.Role != "query" || w.Sent != 6 || w.Received != 11 || w.Errors != 1 || w.Timeouts != 2 || w.Bytes != 1100 || w.Lost != -3 ||
		w.Duplicates != 4 || w.OutOfOrder != 5 || w.Queries != 6 || w.Replies != 11 || w.Last != nil {
		t.Errorf("%+v", w)
	}
	again := hdrhistogram.New(1, 10_000_000_000, 3)
	v := Values(w.Latency)
	for _, x := range v {
		again.RecordValue(x)
	}
	if len(v) != len(lat) {
		t.Fatalf("%d values, recorded %d", len(v), len(lat))
	}
	for _, q := range []float64{0, 25, 50, 90, 99, 100} {
		if a, b := again.ValueAtQuantile(q), h.ValueAtQuantile(q); a != b {
			t.Errorf("p%v: %d from the window, %d of the latencies", q, a, b)
		}
	}
	for _, bad := range []string{"windo role=x", "window sent=1", "window role=x sent=-1", "window role=x hdr=!!", "window role=x lost"} {
		if _, err := ParseWindow(bad); err == nil || !strings.Contains(err.Error(), "window") {
			t.Errorf("ParseWindow(%q) = %v", bad, err)
		}
	}
}
