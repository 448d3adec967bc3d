package extformat

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/meta"
)

// fixture is what a fixture file must read as; the counts and sums were
// computed independently (Python) from the same files.
type fixture struct {
	file, format string
	opts         Options
	latency      string
	payloads     map[int]int // payload → samples
	sum          float64     // µs, every sample
	first, last  float64
}

// TestFixtures reads real sockperf --full-log files (sockperf 3.7
// ping-pong over UDP and TCP loopback, with and without --full-rtt) and
// files written in the exact formats of Fast DDS LatencyTest's
// export_raw_data and zenoh's z_ping examples (Rust and C).
func TestFixtures(t *testing.T) {
	for _, f := range []fixture{
		{file: "sockperf_udp_64_fulllog.csv", format: Sockperf, latency: meta.LatencyHalfRTT,
			payloads: map[int]int{64: 10}, sum: 3764.954, first: 419.129, last: 6.214},
		{file: "sockperf_tcp_256_fulllog.csv", format: Sockperf, latency: meta.LatencyHalfRTT,
			payloads: map[int]int{256: 55}, sum: 21389.794, first: 48.286, last: 46.294},
		{file: "sockperf_tcp_32_fullrtt.csv", format: Sockperf, latency: meta.LatencyRTT,
			payloads: map[int]int{32: 11}, sum: 2056.918, first: 1427.419, last: 85.205},
		{file: "fastrtps_raw.csv", format: FastRTPS, latency: meta.LatencyHalfRTT,
			payloads: map[int]int{16: 12, 1024: 12}, sum: 239.5032 + 1234947.9926, first: 18.9979, last: -1},
		{file: "zping_rust_64.txt", format: ZPing, latency: meta.LatencyRTT,
			payloads: map[int]int{64: 15}, sum: 863, first: 51, last: 43},
		{file: "zping_c_256.txt", format: ZPing, latency: meta.LatencyRTT,
			payloads: map[int]int{256: 6}, sum: 548, first: 68, last: 78},
		{file: "lines_ns.txt", format: Lines, opts: Options{Unit: "ns", Latency: meta.LatencyRTT}, latency: meta.LatencyRTT,
			payloads: map[int]int{0: 8}, sum: 266.088, first: 59.642, last: -1},
	} {
		t.Run(f.file, func(t *testing.T) {
			res, err := ReadFile(f.format, filepath.Join("testdata", f.file), f.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Latency != f.latency {
				t.Errorf("latency %q, want %q", res.Latency, f.latency)
			}
			got := map[int]int{}
			sum := 0.0
			for _, s := range res.Samples {
				got[s.Payload]++
				sum += s.Micros
			}
			if len(got) != len(f.payloads) {
				t.Errorf("payloads %v, want %v", got, f.payloads)
			}
			for p, n := range f.payloads {
				if got[p] != n {
					t.Errorf("payload %d: %d samples, want %d", p, got[p], n)
				}
			}
			if math.Abs(sum-f.sum) > 1e-6*max(1, f.sum) {
				t.Errorf("sum %.6f µs, want %.6f", sum, f.sum)
			}
			if res.Samples[0].Micros != f.first {
				t.Errorf("first %v, want %v", res.Samples[0].Micros, f.first)
			}
			if last := res.Samples[len(res.Samples)-1].Micros; f.last >= 0 && last != f.last {
				t.Errorf("last %v, want %v", last, f.last)
			}
			if res.Dropped != 0 {
				t.Errorf("dropped %d", res.Dropped)
			}
		})
	}
}

// TestLineNumbers checks that samples carry the line they came from.
func TestLineNumbers(t *testing.T) {
	res, err := ReadFile(Sockperf, "testdata/sockperf_udp_64_fulllog.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The preamble is 20 lines, the header the 21st.
	if res.Samples[0].Line != 22 || res.Samples[9].Line != 31 {
		t.Errorf("lines %d and %d, want 22 and 31", res.Samples[0].Line, res.Samples[9].Line)
	}
	res, err = Read(Lines, strings.NewReader("1.5\n\n# x\n2\n"), "l.txt", Options{Unit: "ms", Latency: meta.LatencyHalfRTT})
	if err != nil || len(res.Samples) != 2 || res.Samples[1].Line != 4 || res.Samples[0].Micros != 1500 || res.Samples[1].Micros != 2000 {
		t.Errorf("%+v %v", res, err)
	}
}

// TestBadInput checks that every reader names the file and line of what it
// cannot read, and says what it expected.
func TestBadInput(t *testing.T) {
	lines := Options{Unit: "us", Latency: meta.LatencyRTT}
	for _, c := range []struct {
		name, format, in string
		opts             Options
		line             int
		want             string
	}{
		{"fastrtps empty", FastRTPS, "", Options{}, 0, "empty file: expected the header"},
		{"fastrtps header", FastRTPS, "Sample,Payload,Latency\n", Options{}, 1, `expected "Sample,Payload [Bytes],Latency [us]"`},
		{"fastrtps fields", FastRTPS, fastRTPSHeader + "\n1,16,5.5\n2,16\n", Options{}, 3, "2 fields: expected 3"},
		{"fastrtps latency", FastRTPS, fastRTPSHeader + "\n1,16,5.5\n2,16,12.5x\n", Options{}, 3, `column "Latency [us]": "12.5x" is not a finite number ≥ 0`},
		{"fastrtps negative", FastRTPS, fastRTPSHeader + "\n1,16,-5.5\n", Options{}, 2, `"-5.5" is not a finite number`},
		{"fastrtps nan", FastRTPS, fastRTPSHeader + "\n1,16,nan\n", Options{}, 2, `"nan" is not a finite number`},
		{"fastrtps payload", FastRTPS, fastRTPSHeader + "\n1,0,5.5\n", Options{}, 2, `column "Payload [Bytes]": "0" is not a positive integer`},
		{"fastrtps sample", FastRTPS, fastRTPSHeader + "\nx,16,5.5\n", Options{}, 2, `column "Sample"`},
		{"sockperf no header", Sockperf, "sockperf: hello\n", Options{}, 0, "expected a sockperf ping-pong --full-log file"},
		{"sockperf no size", Sockperf, "packet, txTime(sec), rxTime(sec), latency(usec)\n0, 1, 2, 3\n", Options{}, 1, "no --msg-size"},
		{"sockperf row", Sockperf, "test was performed using the following parameters: --msg-size=64\npacket, txTime(sec), rxTime(sec), latency(usec)\n0, 1, 2, 3\n1, 1, 2\n", Options{}, 4, "3 fields: expected 4"},
		{"sockperf value", Sockperf, "test was performed using the following parameters: --msg-size=64\npacket, txTime(sec), rxTime(sec), rtt(usec)\n0, 1, 2, inf\n", Options{}, 3, `column "rtt(usec)": "inf"`},
		{"zping none", ZPing, "Warming up for 1s...\n", Options{}, 0, "no \"N bytes: seq=N rtt=Nµs lat=Nµs\" line"},
		{"zping cut", ZPing, "64 bytes: seq=0 rtt=51µs lat=25µs\n64 bytes: seq=1 rtt=\n64 bytes: seq=2 rtt=51µs lat=25µs\n", Options{}, 2, `expected "N bytes: seq=N rtt=Nµs lat=Nµs"`},
		{"lines word", Lines, "12\n13\nabc\n", lines, 3, `"abc" is not a latency: expected one finite number ≥ 0 (in us) per line`},
		{"lines two", Lines, "12 13\n", lines, 1, `"12 13" is not a latency`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(c.format, strings.NewReader(c.in), "out.txt", c.opts)
			fe, ok := fileerr.As(err)
			if !ok {
				t.Fatalf("err = %v, want a file error", err)
			}
			if fe.File != "out.txt" || fe.Line != c.line || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %q (line %d), want out.txt line %d containing %q", err, fe.Line, c.line, c.want)
			}
		})
	}
}

// TestSettings checks the format and the Lines settings are refused when
// unknown.
func TestSettings(t *testing.T) {
	for _, c := range []struct {
		format string
		opts   Options
		want   string
	}{
		{"csv", Options{}, `format "csv": expected one of fastrtps, sockperf, zping, lines`},
		{Lines, Options{Unit: "min", Latency: meta.LatencyRTT}, `unit "min": expected one of ns, us, ms, s`},
		{Lines, Options{Unit: "us", Latency: "half"}, `latency "half": expected rtt, half-rtt or one-way`},
	} {
		if err := Check(c.format, c.opts); err == nil || err.Error() != c.want {
			t.Errorf("Check(%q, %+v) = %v, want %q", c.format, c.opts, err, c.want)
		}
	}
}

// TestPartial checks that a file cut in the middle of its last line (a
// program killed while writing) keeps every whole line with Partial, and
// that a bad line elsewhere is still an error.
func TestPartial(t *testing.T) {
	in := fastRTPSHeader + "\n1,16,5.5\n2,16,6.25\n3,16,7."
	res, err := Read(FastRTPS, strings.NewReader(in), "raw.csv", Options{Partial: true})
	if err != nil || len(res.Samples) != 2 || res.Dropped != 1 {
		t.Errorf("a cut line that parses (7. of 7.5) is dropped too: %+v %v", res, err)
	}
	in = fastRTPSHeader + "\n1,16,5.5\n2,16,6.25\n3,16"
	res, err = Read(FastRTPS, strings.NewReader(in), "raw.csv", Options{Partial: true})
	if err != nil || len(res.Samples) != 2 || res.Dropped != 1 {
		t.Errorf("partial: %+v %v", res, err)
	}
	if _, err := Read(FastRTPS, strings.NewReader(in), "raw.csv", Options{}); err == nil || !strings.Contains(err.Error(), "raw.csv:4: 2 fields") {
		t.Errorf("not partial: err = %v", err)
	}
	in = fastRTPSHeader + "\n1,16\n2,16,6.25\n"
	if _, err := Read(FastRTPS, strings.NewReader(in), "raw.csv", Options{Partial: true}); err == nil || !strings.Contains(err.Error(), "raw.csv:2:") {
		t.Errorf("a bad line that is not the last: err = %v", err)
	}
	in = "64 bytes: seq=0 rtt=51µs lat=25µs\n64 bytes: seq=1 rtt=5"
	res, err = Read(ZPing, strings.NewReader(in), "ping.out", Options{Partial: true})
	if err != nil || len(res.Samples) != 1 || res.Dropped != 1 {
		t.Errorf("zping partial: %+v %v", res, err)
	}
}

// TestFastRTPSExponent checks a large latency in C++ stream exponent form.
func TestFastRTPSExponent(t *testing.T) {
	res, err := Read(FastRTPS, strings.NewReader(fastRTPSHeader+"\n7,64,1.23457e+06\n"), "raw.csv", Options{})
	if err != nil || len(res.Samples) != 1 || res.Samples[0].Micros != 1234570 || res.Samples[0].Payload != 64 {
		t.Errorf("%+v %v", res, err)
	}
}

func TestConvert(t *testing.T) {
	for _, c := range []struct {
		v        float64
		from, to string
		want     float64
		ok       bool
	}{
		{10, meta.LatencyRTT, meta.LatencyHalfRTT, 5, true},
		{10, meta.LatencyHalfRTT, meta.LatencyRTT, 20, true},
		{10, meta.LatencyRTT, meta.LatencyRTT, 10, true},
		{10, meta.LatencyOneWay, meta.LatencyOneWay, 10, true},
		{10, meta.LatencyOneWay, meta.LatencyHalfRTT, 0, false},
		{10, meta.LatencyRTT, meta.LatencyOneWay, 0, false},
	} {
		if got, ok := Convert(c.v, c.from, c.to); got != c.want || ok != c.ok {
			t.Errorf("Convert(%v, %s, %s) = %v, %v; want %v, %v", c.v, c.from, c.to, got, ok, c.want, c.ok)
		}
	}
}

// ReadFile reads the file at path in format.
func ReadFile(format, path string, opts Options) (Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	return Read(format, f, path, opts)
}
