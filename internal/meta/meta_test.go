package meta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/goldenfile"
	"github.com/mqgate/mqgate/internal/meta/metatest"

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
	missing, err := metatest.MissingFields(buf.Bytes())
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

// TestDecodeErrors: meta.json is decoded strictly, and every refusal names
// the file, line and character (formats §5, §6). Before, trailing braces,
// non-UTF-8 bytes in strings, null fields, schemas 0 and below and missing
// schemas were accepted, and type, schema and missing-field errors named no
// line or character.
func TestDecodeErrors(t *testing.T) {
	const ok = "{\n  \"schema\": 1,\n  \"start\": \"2025-01-01T00:00:00Z\"\n}\n"
	tests := []struct {
		name, in string
		line     int
		col      int
		msg      string
	}{
		{"trailing garbage", ok + "garbage", 5, 1, "unexpected data after the JSON object"},
		{"trailing garbage on the line", strings.TrimSuffix(ok, "\n") + " x\n", 4, 3, "unexpected data after the JSON object"},
		{"trailing brace", ok + "}", 5, 1, "unexpected data after the JSON object"},
		{"trailing bracket", ok + "  ]", 5, 3, "unexpected data after the JSON object"},
		{"second object", ok + "{\"schema\": 1}\n", 5, 1, "unexpected data after the JSON object"},
		{"non-UTF-8 in a string", "{\n  \"schema\": 1,\n  \"experiment\": \"caf\xe9\",\n  \"start\": \"2025-01-01T00:00:00Z\"\n}", 3, 21, "byte 0xE9 is not UTF-8"},
		{"non-UTF-8 after a multi-byte character", "{\"experiment\": \"é\xff\"}", 1, 18, "byte 0xFF is not UTF-8"},
		{"non-UTF-8 outside strings", "{\n  \"schema\": 1,\xff\n}", 2, 15, "byte 0xFF is not UTF-8"},
		{"wrong type", "{\n  \"schema\": 1,\n  \"experiment\": 5\n}", 3, 17, `field "experiment": expected a string, found the number 5`},
		{"wrong type nested", "{\"schema\": 1, \"config\": {\"samples\": \"10\"}}", 1, 37, `field "config.samples": expected an integer, found the string "10"`},
		{"wrong type in an array", "{\"schema\": 1, \"config\": {\"payloads\": [16, \"32\"]}}", 1, 43, `field "config.payloads[1]": expected an integer`},
		{"negative count", "{\"schema\": 1, \"subexperiments\": [{\"payloads\": [{\"lost\": -1}]}]}", 1, 57, `field "subexperiments[0].payloads[0].lost": expected a whole number ≥ 0, found the number -1`},
		{"fraction for an integer", "{\"schema\": 1.5}", 1, 12, `field "schema": expected an integer, found the number 1.5`},
		{"null document", "null", 1, 1, "expected the JSON object run writes, found null"},
		{"array document", "\n [1]", 2, 2, "expected the JSON object run writes, found an array"},
		{"null field", "{\n  \"schema\": 1,\n  \"completed\": null\n}", 3, 16, `field "completed": expected true or false, found null`},
		{"null time", "{\"schema\": 1, \"start\": null}", 1, 24, `field "start": expected an RFC 3339 time`},
		{"null object", "{\"schema\": 1, \"host\": null}", 1, 23, `field "host": expected an object, found null`},
		{"bad time", "{\"schema\": 1, \"start\": \"yesterday\"}", 1, 24, `field "start": expected an RFC 3339 time such as "2026-01-02T03:04:05Z", found the string "yesterday"`},
		{"bad duration", "{\"schema\": 1,\n \"config\": {\"timeout\": \"soon\"}}", 2, 24, `field "config.timeout": expected a duration such as "1.5s", found the string "soon"`},
		{"future schema", "{\"schema\": 7, \"start\": \"2025-01-01T00:00:00Z\"}", 1, 12, "schema 7 is newer than this tool understands (1); upgrade mqgate"},
		{"schema 0", "{\n  \"schema\": 0,\n  \"start\": \"2025-01-01T00:00:00Z\"}", 2, 13, "schema 0 is not a meta.json schema; expected 1"},
		{"negative schema", "{\"schema\": -3, \"start\": \"2025-01-01T00:00:00Z\"}", 1, 12, "schema -3 is not a meta.json schema"},
		{"unknown latency", "{\"schema\": 1,\n \"latency\": \"two-way\",\n \"start\": \"2025-01-01T00:00:00Z\"}", 2, 13, `field "latency": unknown latency definition "two-way": expected half-rtt, rtt or one-way`},
		{"no schema", "\n{\"start\": \"2025-01-01T00:00:00Z\"}", 2, 1, `field "schema" is missing; expected 1`},
		{"no start", `{"schema": 1}`, 1, 1, `field "start" is missing`},
		{"zero start", `{"schema": 1, "start": "0001-01-01T00:00:00Z"}`, 1, 24, `field "start" is the zero time`},
		{"duplicate field", "{\"schema\": 1,\n \"completed\": true,\n \"completed\": false}", 3, 2, `field "completed" is given twice (first at line 2, character 2)`},
		{"field in another case", "{\"schema\": 1, \"Completed\": true}", 1, 15, `field "Completed": names are case-sensitive; expected "completed"`},
		{"syntax", "{\n  \"schema\": 1,\n  \"start\": ,\n}", 3, 12, "invalid JSON"},
		{"truncated", "{\n  \"schema\": 1,", 2, 15, "truncated"},
		{"missing comma", "{\"schema\": 1 \"start\": 2}", 1, 14, "invalid JSON: invalid character"},
		{"trailing comma", "{\"schema\": 1,\n \"config\": {\"payloads\": [1,]}}", 2, 28, "invalid JSON"},
		// A bad value is placed at its offending byte, as a misplaced
		// delimiter is (the decoder counts its offset otherwise).
		{"not JSON", "garbage", 1, 1, "invalid JSON: invalid character 'g' looking for beginning of value"},
		{"bad value", "{\n  \"schema\": 1,\n  \"experiment\": garbage\n}", 3, 17, "invalid JSON: invalid character 'g'"},
		{"misspelt literal", "{\"schema\": 1,\n \"completed\": ture}", 2, 16, "invalid JSON: invalid character 'u' in literal true"},
		{"bad escape", "{\"schema\": 1, \"experiment\": \"a\\qb\"}", 1, 32, "invalid JSON: invalid character 'q' in string escape code"},
		{"empty file", "", 1, 1, "empty file; expected the JSON object run writes"},
		{"blank file", "\n\n", 3, 1, "empty file"},
		{"byte order mark only", "\uFEFF", 1, 1, "empty file"},
		{"byte order mark, error on line 1", "\uFEFF{\"schema\": \"1\"}", 1, 12, `field "schema": expected an integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tt.in), "x/meta.json")
			fe, ok := fileerr.As(err)
			if !ok {
				t.Fatalf("error %v is not a file error", err)
			}
			if fe.File != "x/meta.json" || fe.Line != tt.line || fe.Col != tt.col || !strings.Contains(fe.Msg, tt.msg) {
				t.Errorf("error = %v (line %d, character %d), want line %d, character %d, containing %q", err, fe.Line, fe.Col, tt.line, tt.col, tt.msg)
			}
			if want := fmt.Sprintf("x/meta.json:%d:%d: ", tt.line, tt.col); !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error %q does not start with %q", err, want)
			}
		})
	}
}

// TestDecodeAccepts: a byte order mark (as editors on Windows write), keys
// this version does not know (a newer run's), and null for an absent list,
// map or pointer (as Encode writes a nil list) are accepted.
func TestDecodeAccepts(t *testing.T) {
	var buf bytes.Buffer
	if err := Encode(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]string{
		"byte order mark": "\uFEFF" + buf.String(),
		"unknown keys":    strings.Replace(buf.String(), `"schema": 1,`, `"schema": 1, "future": {"a": [1, null, {"b": "c"}]}, "later": null,`, 1),
		"null lists":      `{"schema": 1, "start": "2025-01-01T00:00:00Z", "subexperiments": null, "config": {"args": null, "cpus": null, "params": null}}`,
	} {
		m, err := Decode(strings.NewReader(doc), "m")
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if name != "null lists" && !reflect.DeepEqual(m.SubExperiments, sample().SubExperiments) {
			t.Errorf("%s: decoded differently", name)
		}
	}
}

func TestDurationNumber(t *testing.T) {
	m, err := Decode(strings.NewReader(`{"schema": 1, "start": "2025-01-01T00:00:00Z", "config": {"timeout": 1500000000}}`), "m")
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
	f.Add([]byte(`{"schema": 1, "start": "2025-01-01T00:00:00Z"}`))
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

// procLoadAverages reads /proc/loadavg, as the test's own account.
func procLoadAverage(t *testing.T) [3]float64 {
	t.Helper()
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		t.Skipf("no load average on this system: %v", err)
	}
	var la [3]float64
	if _, err := fmt.Sscan(string(b), &la[0], &la[1], &la[2]); err != nil {
		t.Fatal(err)
	}
	return la
}

// TestLoadAverageRecorded: meta.json holds the load average of
// /proc/loadavg at the start of the run and at its end (the kernel updates
// it every 5 s, so it is read before and after and either may be the one).
func TestLoadAverageRecorded(t *testing.T) {
	loadOf := func(path, when string) []float64 {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Host struct {
				Load map[string][]float64 `json:"load_average"`
			} `json:"host"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFile(path); err != nil {
			t.Fatal(err)
		}
		return doc.Host.Load[when]
	}
	either := func(got []float64, a, b [3]float64) bool {
		return reflect.DeepEqual(got, a[:]) || reflect.DeepEqual(got, b[:])
	}
	path := filepath.Join(t.TempDir(), FileName)
	before := procLoadAverage(t)
	m := sample()
	m.Host = HostFingerprint()
	after := procLoadAverage(t)
	m.End = m.Start // as a run writes it first
	if err := Write(path, m); err != nil {
		t.Fatal(err)
	}
	if got := loadOf(path, "start"); !either(got, before, after) {
		t.Errorf("load average at the start %v, /proc/loadavg %v then %v", got, before, after)
	}
	if got := loadOf(path, "end"); got != nil {
		t.Errorf("load average at the end %v before the run ended", got)
	}
	m.End = m.Start.Add(time.Minute)
	before = procLoadAverage(t)
	if err := Write(path, m); err != nil {
		t.Fatal(err)
	}
	after = procLoadAverage(t)
	if got := loadOf(path, "end"); !either(got, before, after) {
		t.Errorf("load average at the end %v, /proc/loadavg %v then %v", got, before, after)
	}
}

// TestSystemFromBrokers: left at run's default, the system under test is
// what the brokers announced, "unknown" for one that did not say, and
// never run's built-in transports for a broker run.
func TestSystemFromBrokers(t *testing.T) {
	nats := &SystemInfo{Product: "nats-server", Version: "2.9.10"}
	sub := func(s *SystemInfo) SubExperiment { return SubExperiment{Type: "x", System: s, Payloads: []Payload{}} }
	for _, c := range []struct {
		name      string
		sys       System
		subs      []SubExperiment
		want, ver string
	}{
		{"nats", System{Name: "mqgate-builtin"}, []SubExperiment{sub(nats), sub(nats)}, "nats-server", "2.9.10"},
		{"rabbitmq", System{Name: "mqgate-builtin"}, []SubExperiment{sub(&SystemInfo{Product: "RabbitMQ", Version: "3.12.1"})}, "RabbitMQ", "3.12.1"},
		{"mqtt without a version topic", System{Name: "mqgate-builtin"}, []SubExperiment{sub(&SystemInfo{})}, "unknown", ""},
		{"mixed", System{Name: "mqgate-builtin"}, []SubExperiment{sub(nil), sub(nats)}, "mqgate-builtin" + " + nats-server", ""},
		{"built-in only", System{Name: "mqgate-builtin"}, []SubExperiment{sub(nil)}, "mqgate-builtin", ""},
		{"named by the user", System{Name: "my-broker", Version: "7"}, []SubExperiment{sub(nats)}, "my-broker", "7"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := sample()
			m.System, m.SubExperiments = c.sys, c.subs
			var b bytes.Buffer
			if err := Encode(&b, m); err != nil {
				t.Fatal(err)
			}
			back, err := Decode(&b, FileName)
			if err != nil {
				t.Fatal(err)
			}
			if back.System.Name != c.want || back.System.Version != c.ver {
				t.Errorf("system %q version %q, want %q %q", back.System.Name, back.System.Version, c.want, c.ver)
			}
		})
	}
}

// TestConfigOneWay: a one-way stream mode's config (OneWay) has none of
// the round-trip engine's settings (samples, warmup, seed,
// max_lost_in_row), its timeout only when it has one, and its run load
// warm-up as a duration; it reads back as written. A round-trip config
// keeps them all, 0 included.
func TestConfigOneWay(t *testing.T) {
	m := sample()
	m.Config.Warmup = 0
	var buf bytes.Buffer
	if err := Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); !strings.Contains(s, `"samples": 10,`) || !strings.Contains(s, `"warmup": 0,`) || strings.Contains(s, "warmup_duration") {
		t.Fatalf("round-trip config:\n%s", s)
	}
	warmup := Duration(time.Second)
	m.Config.Samples, m.Config.OneWay, m.Config.WarmupDuration, m.Config.Fill, m.Config.Seed = 0, true, &warmup, "random", 42
	m.Config.Echo = "none (one-way)"
	buf.Reset()
	if err := Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Config map[string]any `json:"config"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Config["samples"]; ok {
		t.Errorf("config.samples written: %v", doc.Config)
	}
	for _, key := range []string{"warmup", "seed", "max_lost_in_row"} {
		if _, ok := doc.Config[key]; ok {
			t.Errorf("config.%s written: %v", key, doc.Config)
		}
	}
	if doc.Config["warmup_duration"] != "1s" || doc.Config["fill"] != "random" || doc.Config["timeout"] != "1s" {
		t.Errorf("config %v", doc.Config)
	}
	if missing, err := metatest.MissingFields(buf.Bytes()); err != nil || len(missing) != 0 {
		t.Errorf("missing %v (%v)", missing, err)
	}
	back, err := Decode(bytes.NewReader(buf.Bytes()), FileName)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Config.OneWay || back.Config.WarmupDuration == nil || *back.Config.WarmupDuration != warmup || back.Config.Payloads[1] != 32 {
		t.Errorf("read back %+v", back.Config)
	}
	var again bytes.Buffer
	if err := Encode(&again, back); err != nil || again.String() != buf.String() {
		t.Errorf("written again differently (%v):\n%s\nwas\n%s", err, again.String(), buf.String())
	}
	// Without a timeout (run load's), none is written; the seed of the
	// padding is.
	back.Config.Timeout, back.Config.PaddingSeed = 0, 7
	again.Reset()
	if err := Encode(&again, back); err != nil {
		t.Fatal(err)
	}
	if s := again.String(); strings.Contains(s, `"timeout"`) || !strings.Contains(s, `"padding_seed": 7`) {
		t.Errorf("one-way config without a timeout:\n%s", s)
	}
	// A round-trip config reads back with its counts.
	rt, err := Decode(strings.NewReader(`{"schema": 1, "start": "2025-01-01T00:00:00Z", "config": {"samples": 5, "warmup": 0}}`), FileName)
	if err != nil || rt.Config.OneWay || rt.Config.Samples != 5 {
		t.Errorf("round-trip config read back %+v, %v", rt.Config, err)
	}
	if _, err := Decode(strings.NewReader(`{"schema": 1, "start": "2025-01-01T00:00:00Z", "config": {"warmup_duration": "five"}}`), FileName); err == nil {
		t.Error("a warmup_duration that is not a duration was read")
	}
}

// TestSeedAboveInt64: run's --seed takes any uint64; one above 2^63 − 1
// is written and read back as given (it was written as a negative number,
// which --seed refuses).
func TestSeedAboveInt64(t *testing.T) {
	m := sample()
	m.Config.Seed = math.MaxUint64
	var buf bytes.Buffer
	if err := Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"seed": 18446744073709551615`) {
		t.Fatalf("written:\n%s", buf.String())
	}
	back, err := Decode(bytes.NewReader(buf.Bytes()), FileName)
	if err != nil || back.Config.Seed != math.MaxUint64 {
		t.Errorf("read back %d, %v", back.Config.Seed, err)
	}
}
