package roles_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mqgate/mqgate/internal/driver/zenoh/zenohhelper/zenohtest"
	"github.com/mqgate/mqgate/internal/measurements"
	"github.com/mqgate/mqgate/internal/roles"
)

// promValue is the value of series in a /metrics body, NaN when absent.
func promValue(body, series string) float64 {
	m := regexp.MustCompile("(?m)^" + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		return math.NaN()
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// csvSums adds up the columns of a --csv snapshot file and counts its rows.
func csvSums(t *testing.T, path string) (rows int, sum map[string]float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	head := strings.Split(lines[0], ",")
	sum = map[string]float64{}
	for _, l := range lines[1:] {
		for i, f := range strings.Split(l, ",") {
			if v, err := strconv.ParseFloat(f, 64); err == nil {
				sum[head[i]] += v
			}
		}
	}
	return len(lines) - 1, sum
}

// hdrRow are the percentiles the --csv snapshot gives of latencies (µs)
// recorded in one window, computed from the raw samples: p50, p99, max,
// p90, p95, formatted as the file has them.
func hdrRow(rows []measurements.Sample) []string {
	h := hdrhistogram.New(1, 10_000_000_000, 3)
	for _, r := range rows {
		h.RecordValue(max(int64(math.Round(r.Latency*1000)), 1))
	}
	var out []string
	for _, v := range []int64{h.ValueAtQuantile(50), h.ValueAtQuantile(99), h.Max(), h.ValueAtQuantile(90), h.ValueAtQuantile(95)} {
		out = append(out, strconv.FormatFloat(float64(v)/1000, 'f', 3, 64))
	}
	return out
}

// csvRows are the rows of a --csv snapshot file, each split in columns.
func csvRows(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		out = append(out, strings.Split(l, ","))
	}
	return out
}

// TestZenohLiveWindows runs the four Zenoh roles with --csv and
// --prom-port: the helper streams a window per --snapshot-interval, so
// that Prometheus counts while the roles run (the pub's messages, the
// req's queries in flight), and the windows add up to what the raw files
// and the helper's summary hold. A sub and a req whose one window holds
// their whole run give the percentiles of their raw samples (HDR, as the
// file computes them), times to the last reply included; the req's
// --agg-window ends every query within the window after its first reply.
func TestZenohLiveWindows(t *testing.T) {
	ep := zenohtest.Router(t)
	out := t.TempDir()
	ports := map[string]int{}
	flags := func(name string, extra map[string]any) map[string]any {
		ports[name] = freePort(t)
		m := map[string]any{"driver": "zenoh", "endpoint": []string{ep}, "out-dir": out, "timeout": "3s",
			"payload": "64", "reliability": "reliable", "snapshot-interval": "250ms", "prom-port": strconv.Itoa(ports[name]),
			"csv": filepath.Join(out, name+".csv")}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	subS := settings(t, roles.RoleSub, flags("sub", map[string]any{"run-id": "zl", "duration": "20s", "clock-offset": "false", "snapshot-interval": "1h"}))
	qryS := settings(t, roles.RoleQry, flags("qry", map[string]any{"run-id": "zlq", "duration": "1m", "replies": "2", "reply-size": "100", "proc-delay": "50ms±40ms"}))
	pubS := settings(t, roles.RolePub, flags("pub", map[string]any{"run-id": "zl", "rate": "200", "duration": "2s"}))
	reqS := settings(t, roles.RoleReq, flags("req", map[string]any{"run-id": "zlq", "qps": "50", "duration": "2s", "replies": "2", "concurrency": "32"}))
	aggS := settings(t, roles.RoleReq, flags("agg", map[string]any{"run-id": "zla", "qps": "50", "duration": "2s", "replies": "2", "concurrency": "32",
		"agg-window": "20ms", "snapshot-interval": "1h"}))
	var wg sync.WaitGroup
	var subOut, qryOut, aggOut roles.Outcome
	ctx, cancel := context.WithCancel(context.Background())
	wg.Add(2)
	go func() { defer wg.Done(); subOut = roles.Run(context.Background(), subS) }()
	go func() { defer wg.Done(); qryOut = roles.Run(ctx, qryS) }()
	time.Sleep(time.Second)
	var pubOut, reqOut roles.Outcome
	pubDone, reqDone, aggDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() { defer close(pubDone); pubOut = roles.Run(context.Background(), pubS) }()
	go func() { defer close(reqDone); reqOut = roles.Run(context.Background(), reqS) }()
	go func() { defer close(aggDone); aggOut = roles.Run(context.Background(), aggS) }()
	// Mid-run: the pub's sent counter and the req's queries in flight move
	// before the roles end.
	var midSent, midInFlight float64
	for running := true; running && (midSent <= 0 || midInFlight <= 0); {
		select {
		case <-pubDone:
			running = false
		case <-reqDone:
			running = false
		case <-time.After(100 * time.Millisecond):
			if _, body := scrape(t, ports["pub"], "/metrics"); !(midSent > 0) {
				midSent = promValue(body, `mqgate_messages_sent_total{role="pub"}`)
			}
			if _, body := scrape(t, ports["req"], "/metrics"); !(midInFlight > 0) {
				midInFlight = promValue(body, `mqgate_queries_in_flight{role="req"}`)
			}
		}
	}
	<-pubDone
	<-reqDone
	<-aggDone
	cancel()
	wg.Wait()
	if !(midSent > 0) || !(midInFlight > 0) {
		t.Errorf("before the roles ended: pub sent %v, req queries in flight %v: want both above 0", midSent, midInFlight)
	}
	for name, o := range map[string]roles.Outcome{"pub": pubOut, "sub": subOut, "req": reqOut, "agg": aggOut} {
		if o.Err != nil || o.Incomplete || o.Interrupted {
			t.Fatalf("%s: %+v", name, o)
		}
	}
	if qryOut.Err != nil {
		t.Fatalf("qry: %+v", qryOut)
	}

	// pub: the windows add up to what the helper sent.
	sent, _ := zenohPubSent(t, pubOut.Paths[0])
	n, pubSum := csvSums(t, filepath.Join(out, "pub.csv"))
	if n < 4 || pubSum["Sent"] != float64(sent) || sent == 0 {
		t.Errorf("pub.csv: %d rows, Sent %v; the helper sent %d", n, pubSum["Sent"], sent)
	}
	// sub: one window with every raw sample (as measured: --clock-offset
	// false), its percentiles those of the samples.
	rows := rawRows(t, filepath.Join(out, "zl"), "zenoh_reliable_pubsub")
	sub := csvRows(t, filepath.Join(out, "sub.csv"))
	if len(sub) != 1 || sub[0][3] != strconv.Itoa(len(rows)) || sub[0][6] != strconv.Itoa(64*len(rows)) || sub[0][12] != "0" ||
		strings.Join(sub[0][7:12], ",") != strings.Join(hdrRow(rows), ",") {
		t.Errorf("sub.csv %v; the raw file: %d samples of 64 bytes, p50,p99,max,p90,p95 %v", sub, len(rows), hdrRow(rows))
	}
	// req: the windows add up to the raw files' queries, 2 replies of
	// 100 bytes each.
	first := rawRows(t, filepath.Join(out, "zlq"), "zenoh_reliable_query")
	n, reqSum := csvSums(t, filepath.Join(out, "req.csv"))
	if n < 4 || reqSum["Sent"] != float64(len(first)) || reqSum["Received"] != float64(2*len(first)) || reqSum["Bytes"] != float64(200*len(first)) ||
		reqSum["Timeouts"] != 0 || reqSum["TTL p50 [µs]"] <= 0 {
		t.Errorf("req.csv: %d rows, %v; the raw files %d queries, 2 replies of 100 bytes each", n, reqSum, len(first))
	}
	// agg: every query's last reply within 20 ms of its first (the raw
	// files, row for row); replies 40 ms apart on average leave some with
	// one, a timeout; the one window's times to the first and last reply
	// are the raw files'.
	af := rawRows(t, filepath.Join(out, "zla"), "zenoh_reliable_query")
	al := rawRows(t, filepath.Join(out, "zla"), "zenoh_reliable_querylast")
	for i := range af {
		if d := al[i].Latency - af[i].Latency; d < 0 || d > 20_000 {
			t.Fatalf("agg query %d: last reply %.3f us after the first, past the 20 ms window", i+1, d)
		}
	}
	var ar roles.ReqReport
	reps, _ := filepath.Glob(filepath.Join(out, "zla", roles.ReportsDir, "req-*.json"))
	if len(reps) != 1 {
		t.Fatalf("agg reports %v", reps)
	}
	readJSON(t, reps[0], &ar)
	agg := csvRows(t, filepath.Join(out, "agg.csv"))
	lastRow := hdrRow(al)
	if ar.Timeouts == 0 || ar.Replies >= 2*ar.Queries || len(agg) != 1 || agg[0][5] != strconv.FormatUint(ar.Timeouts, 10) ||
		strings.Join(agg[0][7:9], ",") != strings.Join(hdrRow(af)[:2], ",") || strings.Join(agg[0][15:17], ",") != strings.Join(lastRow[:2], ",") {
		t.Errorf("agg report %+v, agg.csv %v: want timeouts, fewer than 2 replies per query, TTF p50,p99 %v and TTL p50,p99 %v", ar, agg, hdrRow(af)[:2], lastRow[:2])
	}
}
