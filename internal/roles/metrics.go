package roles

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mqgate/mqgate/internal/load"
)

// Metrics counts what a role did, per --snapshot-interval into the --csv
// snapshot file and live for Prometheus (--prom-port).
type Metrics struct {
	role  string
	log   *slog.Logger
	mu    sync.Mutex
	win   *hdrhistogram.Histogram // latencies, or times to first reply
	last  *hdrhistogram.Histogram // times to last reply
	cur   Snapshot
	start time.Time

	csv      *snapshotFile // --csv, nil when not given
	srv      *http.Server
	promAddr string // where srv listens
	reg      *prometheus.Registry
	// The role's Prometheus counters and latency histogram, nil where
	// they do not apply to it (a sub sends nothing, a pub measures no
	// latency).
	pSent, pRecv, pErr, pTimeout prometheus.Counter
	pLat, pLast                  prometheus.Histogram
	// pInFlight (req) are the queries sent and not yet ended: Sent less
	// the Queries counted as ended.
	pInFlight prometheus.Gauge
	stop      chan struct{}
	done      chan struct{}
	ready     atomic.Bool // /health answers 200
}

// Snapshot are the counts of one window (or of the whole run).
type Snapshot struct {
	Sent     uint64
	Received uint64
	Errors   uint64
	Timeouts uint64
	Bytes    uint64
	// Lost is the change in sequence numbers missing (negative when late
	// arrivals fill gaps of an earlier window).
	Lost       int64
	Duplicates uint64
	OutOfOrder uint64
	// Queries are the queries that ended, with Replies replies.
	Queries, Replies uint64
}

func (s *Snapshot) add(c Snapshot) {
	s.Sent += c.Sent
	s.Received += c.Received
	s.Errors += c.Errors
	s.Timeouts += c.Timeouts
	s.Bytes += c.Bytes
	s.Lost += c.Lost
	s.Duplicates += c.Duplicates
	s.OutOfOrder += c.OutOfOrder
	s.Queries += c.Queries
	s.Replies += c.Replies
}

// SnapshotHeader is the --csv file's header (formats §9, "Role reports").
const SnapshotHeader = "Time [s],Role,Sent,Received,Errors,Timeouts,Bytes,p50 [µs],p99 [µs],Max [µs]," +
	"p90 [µs],p95 [µs],Lost,Duplicates,Out of order,TTL p50 [µs],TTL p99 [µs],Replies per query"

// NewMetrics starts the window ticker, the --csv file and the Prometheus
// endpoint of a role.
func NewMetrics(s Settings) (*Metrics, error) {
	m := &Metrics{role: s.Role, log: s.Log, win: hdrhistogram.New(1, 10_000_000_000, 3), last: hdrhistogram.New(1, 10_000_000_000, 3), start: time.Now(),
		stop: make(chan struct{}), done: make(chan struct{})}
	if s.CSV != "" {
		f, err := createSnapshotFile(s.CSV)
		if err != nil {
			return nil, err
		}
		// The header already meets a full disk or a device that takes
		// nothing: the role fails before it measures.
		if f.row(SnapshotHeader + "\n") {
			f.Discard()
			return nil, f.err
		}
		m.csv = f
	}
	promAddr, err := load.PromAddr(s.PromPort, s.PromAddr, "--prom-port", "--prom-addr")
	if err != nil {
		m.discardCSV()
		return nil, err
	}
	if promAddr != "" {
		m.reg = prometheus.NewRegistry()
		m.registerProm(s)
		ln, err := net.Listen("tcp", promAddr)
		if err != nil {
			m.discardCSV()
			return nil, fmt.Errorf("--prom-port/--prom-addr %s: %w", promAddr, err)
		}
		m.promAddr = ln.Addr().String()
		if m.log != nil {
			m.log.Info("Prometheus metrics", "url", "http://"+m.promAddr+"/metrics")
		}
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
		// /health answers "ok" once the role is ready (a sub subscribed, a
		// qry serving), so that --wait-for and container healthchecks
		// hold publishers and requesters back until then.
		mux.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) {
			if !m.ready.Load() {
				http.Error(w, "starting", http.StatusServiceUnavailable)
				return
			}
			io.WriteString(w, "ok\n")
		})
		m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
		go m.srv.Serve(ln)
	}
	go m.tick(cmp.Or(s.SnapshotInterval, time.Second))
	return m, nil
}

// promNames are the counters a role serves for what it sends and
// receives, and its latency histogram, with their HELP: messages for pub
// and sub (the names run load serves too), queries and replies for req and
// qry.
var promNames = map[string]struct{ sent, received, latency [2]string }{
	RolePub: {sent: [2]string{load.MessagesSent, load.Help[load.MessagesSent]}},
	RoleSub: {received: [2]string{load.MessagesReceived, load.Help[load.MessagesReceived]}, latency: [2]string{load.Latency, load.Help[load.Latency]}},
	RoleReq: {sent: [2]string{"mqgate_queries_sent_total", "Queries sent."},
		received: [2]string{"mqgate_replies_received_total", "Replies received to the queries sent."},
		latency:  [2]string{"mqgate_time_to_first_reply_seconds", "Time from sending a query to its first reply."}},
	RoleQry: {sent: [2]string{"mqgate_replies_sent_total", "Replies sent to the queries received."},
		received: [2]string{"mqgate_queries_received_total", "Queries received."}},
}

// registerProm registers the families that apply to the role s.Role:
// mqgate_build_info, mqgate_run_info (its run id), mqgate_errors_total and
// those of promNames, and for req mqgate_query_timeouts_total,
// mqgate_queries_in_flight and mqgate_time_to_last_reply_seconds; labelled
// role.
func (m *Metrics) registerProm(s Settings) {
	labels := prometheus.Labels{"role": s.Role}
	counter := func(name, help string) prometheus.Counter {
		if name == "" {
			return nil
		}
		c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels})
		m.reg.MustRegister(c)
		return c
	}
	run := prometheus.NewGauge(prometheus.GaugeOpts{Name: "mqgate_run_info", Help: "1, labelled with the run id of the role's run (--run-id).",
		ConstLabels: prometheus.Labels{"role": s.Role, "run_id": s.RunID}})
	run.Set(1)
	m.reg.MustRegister(load.BuildInfo(Version), run)
	n := promNames[s.Role]
	m.pSent = counter(n.sent[0], n.sent[1])
	m.pRecv = counter(n.received[0], n.received[1])
	m.pErr = counter(load.Errors, load.Help[load.Errors])
	if s.Role == RoleReq {
		m.pTimeout = counter("mqgate_query_timeouts_total", "Queries without all their replies within --timeout.")
		m.pInFlight = prometheus.NewGauge(prometheus.GaugeOpts{Name: "mqgate_queries_in_flight", Help: "Queries sent and not yet ended (at most --concurrency).", ConstLabels: labels})
		m.pLast = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "mqgate_time_to_last_reply_seconds", Help: "Time from sending a query to its last reply, of the queries that had replies.",
			ConstLabels: labels, Buckets: load.LatencyBuckets})
		m.reg.MustRegister(m.pInFlight, m.pLast)
	}
	if n.latency[0] != "" {
		m.pLat = prometheus.NewHistogram(prometheus.HistogramOpts{Name: n.latency[0], Help: n.latency[1], ConstLabels: labels, Buckets: load.LatencyBuckets})
		m.reg.MustRegister(m.pLat)
	}
	// The cgroup's (a container's) CPU and memory, read at each scrape,
	// when the role runs in a cgroup of its own.
	if u, ok := ReadCgroup(); ok {
		m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "mqgate_cgroup_cpu_seconds_total", ConstLabels: labels,
			Help: "CPU time of every process of the role's cgroup (cpu.stat usage_usec), e.g. its container."},
			func() float64 { u, _ := ReadCgroup(); return float64(u.CPUUsec) / 1e6 }))
		if u.MemoryBytes > 0 { // a cgroup without the memory controller has no memory.current
			m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mqgate_cgroup_memory_bytes", ConstLabels: labels,
				Help: "Memory charged to the role's cgroup (memory.current), page cache included."},
				func() float64 { u, _ := ReadCgroup(); return float64(u.MemoryBytes) }))
		}
	}
}

// Ready makes /health answer "ok": the role takes part.
func (m *Metrics) Ready() { m.ready.Store(true) }

func (m *Metrics) tick(every time.Duration) {
	defer close(m.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			m.flushWindow()
			return
		case <-t.C:
			m.flushWindow()
		}
	}
}

// quantilesUs are the qs-th percentiles of h (HDR) and its maximum, µs; 0
// when it is empty.
func quantilesUs(h *hdrhistogram.Histogram, qs ...float64) []float64 {
	out := make([]float64, len(qs)+1)
	if h.TotalCount() > 0 {
		for i, q := range qs {
			out[i] = float64(h.ValueAtQuantile(q)) / 1000
		}
		out[len(qs)] = float64(h.Max()) / 1000
	}
	return out
}

func (m *Metrics) flushWindow() {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := quantilesUs(m.win, 50, 90, 95, 99)
	last := quantilesUs(m.last, 50, 99)
	c := m.cur
	perQuery := 0.0
	if c.Queries > 0 {
		perQuery = float64(c.Replies) / float64(c.Queries)
	}
	if m.log != nil {
		m.log.Debug("window", "role", m.role, "sent", c.Sent, "received", c.Received, "errors", c.Errors, "timeouts", c.Timeouts, "p50_us", p[0], "p99_us", p[3])
	}
	if m.csv != nil {
		row := fmt.Sprintf("%.3f,%s,%d,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%d,%d,%d,%.3f,%.3f,%.3f\n", time.Since(m.start).Seconds(), m.role,
			c.Sent, c.Received, c.Errors, c.Timeouts, c.Bytes, p[0], p[3], p[4], p[1], p[2], c.Lost, c.Duplicates, c.OutOfOrder, last[0], last[1], perQuery)
		if m.csv.row(row) && m.log != nil {
			// The role measures on: its results are written, and it fails
			// at the end naming the file.
			m.log.Error("snapshots lost", "err", m.csv.err)
		}
	}
	m.win.Reset()
	m.last.Reset()
	m.cur = Snapshot{}
}

// Sent counts n messages or queries sent.
func (m *Metrics) Sent(n uint64) { m.Count(Snapshot{Sent: n}, nil, nil) }

// Received counts a message or reply of size bytes, with its latency
// (ns; negative: none).
func (m *Metrics) Received(bytes int, latencyNs int64) {
	var lat []int64
	if latencyNs >= 0 {
		lat = []int64{latencyNs}
	}
	m.Count(Snapshot{Received: 1, Bytes: uint64(bytes)}, lat, nil)
}

// QueryDone counts a query that ended with replies, the last lastNs after
// it was sent.
func (m *Metrics) QueryDone(replies uint64, lastNs int64) {
	var last []int64
	if replies > 0 {
		last = []int64{lastNs}
	}
	m.Count(Snapshot{Queries: 1, Replies: replies}, nil, last)
}

// Error counts an error.
func (m *Metrics) Error() { m.Count(Snapshot{Errors: 1}, nil, nil) }

// Timeout counts a query without its replies.
func (m *Metrics) Timeout() { m.Count(Snapshot{Timeouts: 1}, nil, nil) }

// Count adds the counts of c, the latencies or times to first reply and
// the times to last reply (ns), such as what a helper measured on its own,
// once it is done.
func (m *Metrics) Count(c Snapshot, latencies, lasts []int64) {
	m.mu.Lock()
	m.cur.add(c)
	for _, ns := range latencies {
		m.win.RecordValue(max(ns, 1))
	}
	for _, ns := range lasts {
		m.last.RecordValue(max(ns, 1))
	}
	m.mu.Unlock()
	for _, p := range []struct {
		c prometheus.Counter
		n uint64
	}{{m.pSent, c.Sent}, {m.pRecv, c.Received}, {m.pErr, c.Errors}, {m.pTimeout, c.Timeouts}} {
		if p.c != nil {
			p.c.Add(float64(p.n))
		}
	}
	if m.pLat != nil {
		for _, ns := range latencies {
			m.pLat.Observe(float64(ns) / 1e9)
		}
	}
	if m.pLast != nil {
		for _, ns := range lasts {
			m.pLast.Observe(float64(ns) / 1e9)
		}
	}
	if m.pInFlight != nil {
		m.pInFlight.Add(float64(c.Sent) - float64(c.Queries))
	}
}

// Close writes the last window, stops the endpoint and puts the --csv
// file in place; its error is the --csv file's first write error, naming
// the file (the role then fails, its results written).
func (m *Metrics) Close() error {
	m.stopAll()
	if m.csv == nil {
		return nil
	}
	return m.csv.Commit()
}

// Abort stops the metrics of a role that failed before it measured: the
// --csv file is not written.
func (m *Metrics) Abort() {
	m.stopAll()
	m.discardCSV()
}

// stopAll writes the last window and stops the ticker and the endpoint.
func (m *Metrics) stopAll() {
	close(m.stop)
	<-m.done
	if m.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		m.srv.Shutdown(ctx) // an endpoint slow to stop loses nothing
		cancel()
	}
}

func (m *Metrics) discardCSV() {
	if m.csv != nil {
		m.csv.Discard()
	}
}
