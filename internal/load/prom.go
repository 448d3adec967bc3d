package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Exporter serves the measurement in progress to Prometheus (--prom-port):
// at /metrics the counters (mqgate_load_messages_sent_total, …), gauges
// (send and receive rates of the last interval, messages in flight) and
// the one-way latency histogram of the payload in progress
// (mqgate_load_latency_seconds, from the HDR recorder at scrape time),
// labelled by sub-experiment and payload; /health answers 200 "ok" while
// it serves. It is an Observer.
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
// PromAddr) and serves until Close.
func ServePrometheus(addr string) (*Exporter, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	e := &Exporter{ln: ln, reg: prometheus.NewRegistry(), done: make(chan struct{})}
	e.reg.MustRegister(e)
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
	ones := make([]uint64, cfg.Topology.Publishers)
	for i := range ones {
		ones[i] = 1
	}
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

var labels = []string{"subexperiment", "payload"}

var (
	descCounters = map[string]*prometheus.Desc{}
	descRate     = prometheus.NewDesc("mqgate_load_rate", "messages per second during the last interval", append(labels, "direction"), nil)
	descInFlight = prometheus.NewDesc("mqgate_load_in_flight", "deliveries expected of the measured messages sent and not yet received", labels, nil)
	descLatency  = prometheus.NewDesc("mqgate_load_latency_seconds", "one-way latency from the intended send time", labels, nil)
	descUp       = prometheus.NewDesc("mqgate_load_measuring", "1 while a payload is being measured", labels, nil)
)

// counterNames are the counters exported, as mqgate_load_<name>_total.
var counterNames = []string{"messages_sent", "messages_received", "messages_acked", "messages_refused", "bytes_sent", "bytes_received", "errors", "skipped", "clamped"}

func init() {
	for _, n := range counterNames {
		descCounters[n] = prometheus.NewDesc("mqgate_load_"+n+"_total", n+" during the measured period of the payload in progress", labels, nil)
	}
}

// latencyBuckets are the upper bounds (seconds) of the exported histogram:
// 1-2-5 steps from 1 µs to 10 s.
var latencyBuckets = func() []float64 {
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
	for _, d := range descCounters {
		ch <- d
	}
	ch <- descRate
	ch <- descInFlight
	ch <- descLatency
	ch <- descUp
}

// Collect reads the payload in progress.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	sub, payload, c, rec, last, fanout := e.sub, e.payload, e.counters, e.rec, e.last, e.fanout
	e.mu.Unlock()
	if c == nil {
		return
	}
	lv := []string{sub, strconv.Itoa(payload)}
	v := c.Load()
	for i, x := range []uint64{v.MessagesSent, v.MessagesReceived, v.MessagesAcked, v.MessagesRefused, v.BytesSent, v.BytesReceived, v.Errors, v.Skipped, v.Clamped} {
		ch <- prometheus.MustNewConstMetric(descCounters[counterNames[i]], prometheus.CounterValue, float64(x), lv...)
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
	buckets := make(map[float64]uint64, len(latencyBuckets))
	var cum uint64
	bars := h.Distribution()
	k := 0
	for _, ub := range latencyBuckets {
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
