package zenohhelper

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestArgs(t *testing.T) {
	id := uint32(5)
	spin := 0
	linger := 1500 * time.Millisecond
	for _, tc := range []struct {
		got  []string
		want string
	}{
		{Ping{}.Args(), "ping --reliability best-effort --warmup 0"},
		{Ping{
			Common:   Common{Mode: ModeClient, Connect: []string{"tcp/127.0.0.1:7447", "udp/127.0.0.1:7447"}, Key: "k", Reliable: true, NoExpress: true, Out: "o"},
			Payloads: []int{16, 1024}, Samples: 10, Warmup: 2, Timeout: 1500 * time.Millisecond, WaitPeer: time.Second, MaxTimeouts: 3, RTT: true,
		}.Args(), "ping --mode client --connect tcp/127.0.0.1:7447 --connect udp/127.0.0.1:7447 --key k --reliability reliable --no-express --out o " +
			"--payloads 16,1024 --samples 10 --warmup 2 --timeout 1.5 --wait-peer 1 --max-timeouts 3 --latency rtt"},
		{PongArgs(Serve{Common: Common{Listen: []string{"tcp/127.0.0.1:0"}, CongestionControl: "block"}, Duration: 2 * time.Second}),
			"pong --listen tcp/127.0.0.1:0 --reliability best-effort --congestion-control block --duration 2"},
		{RouterArgs(Serve{Common: Common{Listen: []string{"tcp/127.0.0.1:0"}, ConfigFile: "z.json5", MaxLinks: 2}}),
			"router --listen tcp/127.0.0.1:0 --config z.json5 --max-links 2 --reliability best-effort"},
		{Pub{Payloads: []int{16}, Rate: 2500.5, Publishers: 2, Topics: 1, Duration: 3 * time.Second, Warmup: 250 * time.Millisecond, RunID: &id, WaitPeer: 2 * time.Second, SpinUs: &spin}.Args(),
			"pub --reliability best-effort --payloads 16 --rate 2500.5 --publishers 2 --topics 1 --duration 3 --warmup 0.25 --run-id 5 --wait-peer 2 --spin-us 0"},
		{Sub{Publishers: 2, Timeout: time.Second, WaitPeer: 30 * time.Second, RunID: &id}.Args(),
			"sub --reliability best-effort --publishers 2 --timeout 1 --wait-peer 30 --run-id 5"},
		{Query{Payloads: []int{64}, Samples: 5, Warmup: 1, Replies: 2, Timeout: time.Second, Target: TargetAll, WaitPeer: time.Second, MaxTimeouts: 2}.Args(),
			"query --reliability best-effort --payloads 64 --samples 5 --warmup 1 --replies 2 --timeout 1 --target all --wait-peer 1 --max-timeouts 2"},
		{Queryable{Replies: 3, Duration: time.Minute}.Args(), "queryable --reliability best-effort --replies 3 --duration 60"},
		{Pub{Payloads: []int{64}, IDBase: 1024, ClockKey: "k/clock", ClockLinger: &linger}.Args(),
			"pub --reliability best-effort --payloads 64 --warmup 0 --id-base 1024 --clock-key k/clock --clock-linger 1.5"},
		{Sub{Arrivals: true}.Args(), "sub --reliability best-effort --arrivals"},
		{Query{Samples: 100, Rate: 50, Concurrency: 4}.Args(), "query --reliability best-effort --samples 100 --warmup 0 --rate 50 --concurrency 4"},
		{Query{Common: Common{Lease: 2500 * time.Millisecond}, Samples: 100, ResultBytes: true}.Args(),
			"query --reliability best-effort --lease 2.5 --samples 100 --warmup 0 --result-bytes"},
		{Query{Common: Common{Window: 250 * time.Millisecond}, Samples: 100, Rate: 50, AggWindow: 20 * time.Millisecond}.Args(),
			"query --reliability best-effort --window 0.25 --samples 100 --warmup 0 --rate 50 --agg-window 0.02"},
		{RouterArgs(Serve{Common: Common{Listen: []string{"tcp/127.0.0.1:0"}, Lease: 3 * time.Second}}),
			"router --listen tcp/127.0.0.1:0 --reliability best-effort --lease 3"},
		{Queryable{ReplySize: &spin, ProcDelay: 2 * time.Millisecond, ProcJitter: 500 * time.Microsecond, Seed: 7}.Args(),
			"queryable --reliability best-effort --reply-size 0 --proc-delay 0.002 --proc-jitter 0.0005 --seed 7"},
		{Clock{Common: Common{Key: "k/clock"}, Probes: 16, Interval: 5 * time.Millisecond, Timeout: time.Second, Duration: 3 * time.Second}.Args(),
			"clock --key k/clock --reliability best-effort --probes 16 --interval 0.005 --timeout 1 --duration 3"},
	} {
		if got := strings.Join(tc.got, " "); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

func TestParseReady(t *testing.T) {
	r, err := ParseReady("ready role=pong zid=1f2e locators=tcp/127.0.0.1:41234,udp/127.0.0.1:41235")
	if err != nil {
		t.Fatal(err)
	}
	want := Ready{Role: "pong", ZID: "1f2e", Locators: []string{"tcp/127.0.0.1:41234", "udp/127.0.0.1:41235"}}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got %+v", r)
	}
	if r.Locator("udp") != "udp/127.0.0.1:41235" || r.Locator("quic") != "" {
		t.Errorf("Locator: %q %q", r.Locator("udp"), r.Locator("quic"))
	}
	if r, err := ParseReady("ready role=ping zid=ab locators="); err != nil || r.Locators != nil {
		t.Errorf("no locators: %+v %v", r, err)
	}
	for _, bad := range []string{"", "done role=ping", "ready role=ping", "ready zid=1", "ready role=ping zid=1 junk"} {
		if _, err := ParseReady(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestExitErr(t *testing.T) {
	if (Exit{Code: ExitComplete}).Err() != nil {
		t.Error("complete is an error")
	}
	if err := (Exit{Code: ExitIncomplete, Stderr: "the pong went away"}).Err(); err == nil || !strings.Contains(err.Error(), "went away") {
		t.Errorf("incomplete: %v", err)
	}
	if err := (Exit{Code: ExitUsage, Stderr: "bad flag"}).Err(); err == nil || !strings.Contains(err.Error(), "code 2: bad flag") {
		t.Errorf("usage: %v", err)
	}
}
