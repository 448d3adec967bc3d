package meta

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/goldenfile"

	"github.com/mqgate/mqgate/internal/fileerr"
)

func sample() *Meta {
	start := time.Date(2025, 3, 4, 5, 6, 7, 890, time.UTC)
	return &Meta{
		Tool:        Tool{Name: "mqgate run", Version: "v0.1.0"},
		Experiment:  "2025-03-04_05-06-07",
		Start:       start,
		End:         start.Add(90 * time.Second),
		Completed:   false,
		Interrupted: true,
		System:      System{Name: "mqgate-builtin", Scopes: []string{"intraprocess", "nats"}, Version: "1.2.3", Commit: "abc123"},
		Host: Host{Hostname: "ci-1", OS: "linux", Arch: "amd64", Kernel: "6.1.0", CPUModel: "Test CPU",
			LogicalCores: 2, GOMAXPROCS: 2, GoVersion: "go1.26"},
		Config: Config{Args: []string{"run", "--samples", "10"}, SubExperiments: []string{"intraprocess_reliable"},
			Payloads: []int{16, 32}, Samples: 10, Warmup: 1, Timeout: Duration(time.Second), MaxLostInRow: 10,
			Fill: "zero", RetransmitTimeout: Duration(10 * time.Millisecond), MaxRetries: 5, Echo: "subprocess",
			CPUs: &CPUs{Pinger: 0, Ponger: 1}, Out: "results", ConnectTimeout: Duration(5 * time.Second),
			Broker: "embedded", Params: map[string]string{"nats-url": "nats://user:xxxxx@127.0.0.1:4222"}},
		Latency: LatencyHalfRTT,
		Mode:    "round-trip closed-loop",
		Clock:   "monotonic",
		SubExperiments: []SubExperiment{{
			Type: "intraprocess_reliable", Transport: "intraprocess", Reliable: true, Echo: "in-process",
			Start: start, End: start.Add(time.Second),
			Payloads: []Payload{
				{Bytes: 16, Samples: 10, Warmup: 1, Completed: true},
				{Bytes: 32, Samples: 4, Warmup: 1, Lost: 1, Retransmitted: 2, Duplicates: 3, OutOfOrder: 4, Dropped: 5, Errors: 6},
			},
		}, {
			Type: "nats_reliable", Transport: "nats", Reliable: true, Echo: "subprocess", Topic: "mqgate-0123abcd-nats_reliable",
			Params:       map[string]string{"nats-url": "nats://user:xxxxx@127.0.0.1:4222"},
			System:       &SystemInfo{Product: "nats-server", Version: "2.11.0", URL: "nats://user:xxxxx@127.0.0.1:4222", Embedded: true},
			Acknowledged: true, Start: start, End: start.Add(time.Second),
			Payloads: []Payload{{Bytes: 16, Samples: 10, Warmup: 1, MessagesAcked: 10, Completed: true}},
		}},
	}
}

func TestGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "meta.json")
	if goldenfile.Update() {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("Encode differs from %s (run with -update):\n%s", golden, buf.String())
	}
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "exp", FileName)
	m := sample()
	if err := Write(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m.Schema = SchemaVersion
	if !reflect.DeepEqual(got, m) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, m)
	}
}

// TestSpecFields checks that meta.json carries every field formats §6 asks for.
func TestSpecFields(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	missing, err := MissingFields(buf.Bytes())
	if err != nil || len(missing) != 0 {
		t.Errorf("missing %v (%v)", missing, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if s, _ := doc["start"].(string); s != "2025-03-04T05:06:07.00000089Z" {
		t.Errorf("start = %q, want RFC 3339 UTC", s)
	}
}

func TestMissingFields(t *testing.T) {
	tests := []struct {
		doc, want string
	}{
		{`{"subexperiments": []}`, "subexperiments.*.type"},
		{`{"subexperiments": [{"type": "a", "payloads": [{"bytes": 16}]}]}`, "subexperiments.*.payloads.*.lost"},
		{`{"host": {"os": "linux"}}`, "host.kernel"},
		{`{"tool": {}}`, "tool.version"},
	}
	for _, tt := range tests {
		missing, err := MissingFields([]byte(tt.doc))
		if err != nil || !slices.Contains(missing, tt.want) {
			t.Errorf("MissingFields(%s) = %v, %v; want it to include %s", tt.doc, missing, err, tt.want)
		}
	}
	if _, err := MissingFields([]byte("{")); err == nil {
		t.Error("MissingFields accepted broken JSON")
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
		msg      string
	}{
		{"syntax", "{\n  \"schema\": 1,\n  \"start\": ,\n}", 3, "invalid JSON"},
		{"type", "{\n  \"schema\": 1,\n  \"experiment\": 5\n}", 3, `field "experiment"`},
		{"truncated", "{\n  \"schema\": 1,", 2, "truncated"},
		{"no start", `{"schema": 1}`, 0, `"start" is missing`},
		{"future schema", `{"schema": 99, "start": "2025-01-01T00:00:00Z"}`, 0, "newer"},
		{"trailing", "{\"start\": \"2025-01-01T00:00:00Z\"}\n{}", 2, "after the JSON"},
		{"bad duration", `{"start": "2025-01-01T00:00:00Z", "config": {"timeout": "soon"}}`, 0, "soon"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tt.in), "x/meta.json")
			fe, ok := fileerr.As(err)
			if !ok {
				t.Fatalf("error %v is not a file error", err)
			}
			if fe.File != "x/meta.json" || fe.Line != tt.line || !strings.Contains(fe.Msg, tt.msg) {
				t.Errorf("error = %v (line %d), want line %d containing %q", err, fe.Line, tt.line, tt.msg)
			}
		})
	}
}

func TestDurationNumber(t *testing.T) {
	m, err := Decode(strings.NewReader(`{"start": "2025-01-01T00:00:00Z", "config": {"timeout": 1500000000}}`), "m")
	if err != nil {
		t.Fatal(err)
	}
	if time.Duration(m.Config.Timeout) != 1500*time.Millisecond {
		t.Errorf("timeout = %v", time.Duration(m.Config.Timeout))
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "meta.json"))
	if err == nil || !strings.Contains(err.Error(), "meta.json") {
		t.Errorf("error %v does not name the file", err)
	}
}

func TestCPUModel(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"x86", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\nprocessor\t: 1\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n", "Intel(R) Xeon(R) CPU @ 2.20GHz"},
		{"arm", "processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd0c\n\nHardware\t: BCM2835\n", "BCM2835"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		if got := cpuModel([]byte(tt.in)); got != tt.want {
			t.Errorf("%s: cpuModel = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestHostFingerprint(t *testing.T) {
	h := HostFingerprint()
	if h.OS == "" || h.Kernel == "" || h.CPUModel == "" || h.LogicalCores < 1 || h.GOMAXPROCS < 1 || h.GoVersion == "" {
		t.Errorf("incomplete host fingerprint: %+v", h)
	}
	g := h
	g.Hostname = "other"
	if g.Fingerprint() != h.Fingerprint() {
		t.Error("fingerprint depends on the hostname")
	}
	g.CPUModel = "other"
	if g.Fingerprint() == h.Fingerprint() {
		t.Error("fingerprint ignores the CPU model")
	}
}

func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	Encode(&buf, sample())
	f.Add(buf.Bytes())
	f.Add([]byte(`{"start": "2025-01-01T00:00:00Z"}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(bytes.NewReader(data), "f.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json") {
				t.Errorf("error %q does not start with the file name", err)
			}
			return
		}
		var out bytes.Buffer
		if err := Encode(&out, m); err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(&out, "again"); err != nil {
			t.Errorf("re-decoding encoded meta: %v", err)
		}
	})
}
