package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Exporter serves the measurement in progress to Prometheus (--prom-port):
// at /metrics the counters (mqgate_messages_sent_total, …), gauges
// (send and receive rates of the last interval, messages in flight) and
// the one-way latency histogram of the payload in progress
// (mqgate_latency_seconds, from the HDR recorder at scrape time),
// labelled role="load", sub-experiment and payload, and
// mqgate_build_info; /health answers 200 "ok" while it serves. It is an
// Observer.
type Exporter struct {
	srv  *http.Server
	ln   net.Listener
	reg  *prometheus.Registry
	done chan struct{}

	mu       sync.Mutex
	sub      string
	payload  int
	counters *Counters
	rec      *Recorder
	fanout   float64 // deliveries per message sent, on average
	last     Tick
}

// PromAddr is the address a Prometheus endpoint listens at, from
// --prom-port and --prom-addr: port (1 to 65535) on the loopback interface
// 127.0.0.1, or addr (HOST:PORT, given to expose the metrics deliberately,
// e.g. 0.0.0.0:9102); "" when neither is given (port 0: off). portFlag and
// addrFlag name the flags in errors.
func PromAddr(port int, addr, portFlag, addrFlag string) (string, error) {
	switch {
	case addr != "" && port != 0:
		return "", fmt.Errorf("%s %d and %s %q: give one (%s listens on 127.0.0.1 only, %s where it says)", portFlag, port, addrFlag, addr, portFlag, addrFlag)
	case addr != "":
		_, p, err := net.SplitHostPort(addr)
		n, perr := strconv.Atoi(p)
		if err != nil || perr != nil || n < 0 || n > 65535 {
			return "", fmt.Errorf("%s %q: expected HOST:PORT with a port 0 to 65535 (0: any free port), e.g. 0.0.0.0:9102", addrFlag, addr)
		}
		return addr, nil
	case port < 0 || port > 65535:
		return "", fmt.Errorf("%s %d: expected 0 (off) or 1 to 65535", portFlag, port)
	case port > 0:
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), nil
	}
	return "", nil
}

// ServePrometheus listens at addr ("127.0.0.1:9102"; port 0 picks one; see
// PromAddr) and serves until Close; version is the tool's, for
// mqgate_build_info.
func ServePrometheus(addr, version string) (*Exporter, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	e := &Exporter{ln: ln, reg: prometheus.NewRegistry(), done: make(chan struct{})}
	e.reg.MustRegister(e, BuildInfo(version))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("ok\n"))
	})
	e.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		defer close(e.done)
		e.srv.Serve(ln)
	}()
	return e, nil
}

// Addr is the address served.
func (e *Exporter) Addr() string { return e.ln.Addr().String() }

// Close stops serving.
func (e *Exporter) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := e.srv.Shutdown(ctx)
	<-e.done
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// Begin makes the payload the one served.
func (e *Exporter) Begin(sub string, payload int, c *Counters, r *Recorder, cfg Config) {
	ones := slices.Repeat([]uint64{1}, cfg.Topology.Publishers)
	e.mu.Lock()
	e.sub, e.payload, e.counters, e.rec, e.last = sub, payload, c, r, Tick{}
	e.fanout = float64(cfg.Topology.Expected(ones)) / float64(max(1, cfg.Topology.Publishers))
	e.mu.Unlock()
}

// Tick keeps the last interval for the rate gauges.
func (e *Exporter) Tick(t Tick) {
	e.mu.Lock()
	e.last = t
	e.mu.Unlock()
}

// End keeps serving the payload's final values until the next Begin.
func (e *Exporter) End(*PayloadResult) {}

// The families, named and described once for run load and the roles
// (formats §9 "Prometheus metrics"): a concept has one name whichever part
// serves it, told apart by the label role. Run ids are no labels of
// them: a new series per run would pile up in Prometheus (the roles give
// theirs in mqgate_run_info).
const (
	MessagesSent     = "mqgate_messages_sent_total"
	MessagesReceived = "mqgate_messages_received_total"
	Errors           = "mqgate_errors_total"
	Latency          = "mqgate_latency_seconds"
)

// Help is the HELP text of each family.
var Help = map[string]string{
	MessagesSent:                     "Messages handed to the messaging system (run load: measured messages of the payload in progress).",
	MessagesReceived:                 "Messages received (run load: measured messages of the payload in progress, duplicates included).",
	"mqgate_messages_acked_total":    "Messages sent that the system acknowledged.",
	"mqgate_messages_refused_total":  "Messages sent that the system refused (negative acknowledgements).",
	"mqgate_sent_bytes_total":        "Bytes of the measured messages sent.",
	"mqgate_received_bytes_total":    "Bytes of the measured messages received.",
	Errors:                           "Failed sends or receives, malformed or foreign messages.",
	"mqgate_skipped_sends_total":     "Send slots of the schedule skipped because the publisher was more than one period behind.",
	"mqgate_clamped_latencies_total": "Negative one-way latencies (clocks apart) recorded as 0.",
	"mqgate_messages_per_second":     "Messages per second sent or received during the last --snapshot-interval.",
	"mqgate_messages_in_flight":      "Deliveries expected of the measured messages sent and not yet received.",
	Latency:                          "One-way latency from the intended send time to the receipt.",
	"mqgate_measuring":               "1 while a payload is being measured.",
	"mqgate_build_info":              "1, labelled with the version of mqgate, the Go version and the VCS revision it was built from.",
}

func desc(name string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, Help[name], append([]string{"role", "subexperiment", "payload"}, labels...), nil)
}

var (
	descRate     = desc("mqgate_messages_per_second", "direction")
	descInFlight = desc("mqgate_messages_in_flight")
	descLatency  = desc(Latency)
	descUp       = desc("mqgate_measuring")
	// descCounters are the counters, in the order of counterValues.
	descCounters = []*prometheus.Desc{desc(MessagesSent), desc(MessagesReceived), desc("mqgate_messages_acked_total"),
		desc("mqgate_messages_refused_total"), desc("mqgate_sent_bytes_total"), desc("mqgate_received_bytes_total"),
		desc(Errors), desc("mqgate_skipped_sends_total"), desc("mqgate_clamped_latencies_total")}
)

func counterValues(v CounterValues) []uint64 {
	return []uint64{v.MessagesSent, v.MessagesReceived, v.MessagesAcked, v.MessagesRefused, v.BytesSent, v.BytesReceived, v.Errors, v.Skipped, v.Clamped}
}

// BuildInfo is the gauge mqgate_build_info: 1, labelled version (the
// tool's, as --version prints it), goversion and revision (the VCS
// revision of the build, "unknown" without one).
func BuildInfo(version string) prometheus.Collector {
	revision := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				revision = s.Value
			}
		}
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: "mqgate_build_info", Help: Help["mqgate_build_info"],
		ConstLabels: prometheus.Labels{"version": version, "goversion": runtime.Version(), "revision": revision}})
	g.Set(1)
	return g
}

// LatencyBuckets are the upper bounds (seconds) of the latency histograms
// served: 1-2-5 steps from 1 µs to 10 s.
var LatencyBuckets = func() []float64 {
	var b []float64
	for e := -6; e <= 1; e++ {
		for _, m := range []float64{1, 2, 5} {
			// m·10^e computed once, so that the bounds print as 5e-06.
			b = append(b, m/math.Pow10(-e))
		}
	}
	return b[:len(b)-2]
}()

// Describe sends the descriptors.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range slices.Concat(descCounters, []*prometheus.Desc{descRate, descInFlight, descLatency, descUp}) {
		ch <- d
	}
}

// Collect reads the payload in progress.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	sub, payload, c, rec, last, fanout := e.sub, e.payload, e.counters, e.rec, e.last, e.fanout
	e.mu.Unlock()
	if c == nil {
		return
	}
	lv := []string{"load", sub, strconv.Itoa(payload)}
	v := c.Load()
	for i, x := range counterValues(v) {
		ch <- prometheus.MustNewConstMetric(descCounters[i], prometheus.CounterValue, float64(x), lv...)
	}
	if last.Period > 0 {
		ch <- prometheus.MustNewConstMetric(descRate, prometheus.GaugeValue, float64(last.Delta.MessagesSent)/last.Period.Seconds(), append(lv, "sent")...)
		ch <- prometheus.MustNewConstMetric(descRate, prometheus.GaugeValue, float64(last.Delta.MessagesReceived)/last.Period.Seconds(), append(lv, "received")...)
	}
	ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, 1, lv...)
	h, _ := rec.Snapshot()
	inFlight := 0.0
	if s := float64(v.MessagesSent) * fanout; s > float64(v.MessagesReceived) {
		inFlight = s - float64(v.MessagesReceived)
	}
	ch <- prometheus.MustNewConstMetric(descInFlight, prometheus.GaugeValue, inFlight, lv...)
	buckets := make(map[float64]uint64, len(LatencyBuckets))
	var cum uint64
	bars := h.Distribution()
	k := 0
	for _, ub := range LatencyBuckets {
		for k < len(bars) && float64(bars[k].To)/1e9 <= ub {
			cum += uint64(bars[k].Count)
			k++
		}
		buckets[ub] = cum
	}
	count := uint64(h.TotalCount())
	sum := h.Mean() * float64(count) / 1e9
	ch <- prometheus.MustNewConstHistogram(descLatency, count, sum, buckets, lv...)
}
