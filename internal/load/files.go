package load

import (
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/loadsummary"
	"github.com/mqgate/mqgate/internal/measurements"
	"github.com/mqgate/mqgate/internal/result"
)

// File names of a sub-experiment's one-way results (formats §9).
func SnapshotsFileName(typ string) string { return "load_" + typ + "_snapshots.csv" }

// SummaryFileName is the summary JSON of sub-experiment typ.
func SummaryFileName(typ string) string { return loadsummary.FileName(typ) }

// HistogramLogFileName is the HdrHistogram interval log of typ.
func HistogramLogFileName(typ string) string { return "load_" + typ + ".hlog" }

// SnapshotsHeader is the snapshot CSV's header. Files written before the
// time column named its unit have "t,metric,value,tags" (formats §9).
const SnapshotsHeader = "t [s],metric,value,tags"

// Snapshot is one row of the snapshot CSV: at T seconds after the measured
// period of a payload began, Metric had Value; Tags are "key=value" pairs
// joined by ";" (sub, payload, phase).
type Snapshot struct {
	T      float64
	Metric string
	Value  float64
	Tags   string
}

// SnapshotMetrics are the metrics of every interval, in file order, with
// their units and directions (formats §7).
var SnapshotMetrics = []string{
	"messages_sent", "messages_received", "messages_acked", "bytes_sent", "bytes_received", "errors", "skipped", "clamped",
	"send_rate", "receive_rate", "receive_mbps",
	"latency_count", "latency_min_us", "latency_p50_us", "latency_p95_us", "latency_p99_us", "latency_p999_us", "latency_max_us",
}

// Snapshots turns a payload's ticks into rows.
func Snapshots(typ string, r *PayloadResult) []Snapshot {
	var out []Snapshot
	for _, t := range r.Ticks {
		phase := "measure"
		if t.Drain {
			phase = "drain"
		}
		tags := fmt.Sprintf("sub=%s;payload=%d;phase=%s", typ, t.Payload, phase)
		st := StatsOf(t.Latency, 0)
		v := t.Values
		for i, val := range []float64{
			float64(v.MessagesSent), float64(v.MessagesReceived), float64(v.MessagesAcked), float64(v.BytesSent), float64(v.BytesReceived),
			float64(v.Errors), float64(v.Skipped), float64(v.Clamped),
			rate(t.Delta.MessagesSent, t.Period), rate(t.Delta.MessagesReceived, t.Period), rate(t.Delta.BytesReceived, t.Period) * 8 / 1e6,
			float64(st.Count), micros(st.MinNs), micros(st.P50Ns), micros(st.P95Ns), micros(st.P99Ns), micros(st.P999Ns),
			micros(st.MaxNs),
		} {
			out = append(out, Snapshot{T: t.Elapsed.Seconds(), Metric: SnapshotMetrics[i], Value: val, Tags: tags})
		}
	}
	return out
}

// WriteSnapshots writes rows as the snapshot CSV: t in seconds with 3
// decimals, values with up to 3 decimals.
func WriteSnapshots(w io.Writer, rows []Snapshot) error {
	cw := csv.NewWriter(w)
	cw.Write(strings.Split(SnapshotsHeader, ","))
	for _, r := range rows {
		cw.Write([]string{strconv.FormatFloat(r.T, 'f', 3, 64), r.Metric, strconv.FormatFloat(r.Value, 'f', -1, 64), r.Tags})
	}
	cw.Flush()
	return cw.Error() // the first write that failed
}

// SummaryFormat identifies the summary JSON (loadsummary.Format).
const SummaryFormat = loadsummary.Format

// The summary JSON's records, written through internal/loadsummary, the
// format's reader and writer.
type (
	Summary        = loadsummary.Summary
	Parameters     = loadsummary.Parameters
	PayloadSummary = loadsummary.PayloadSummary
)

// SummaryOf summarises a payload result.
func SummaryOf(r *PayloadResult, cfg Config) PayloadSummary {
	s := PayloadSummary{
		Payload: r.Payload, MeasuredS: r.Measured().Seconds(), ReceivePeriodS: r.ReceivePeriod().Seconds(),
		Counters: r.Counters, Expected: r.Expected, Received: r.Unique, Lost: r.Lost, TransportDropped: r.TransportDropped, Duplicates: r.Duplicates, OutOfOrder: r.OutOfOrder,
		DeliveryRatio: r.DeliveryRatio(), DeliveryRate: r.DeliveryRate(), Offered: r.Offered, SendRate: r.SendRate(), ReceiveRate: r.ReceiveRate(),
		ReceiveMbps: r.ReceiveRate() * float64(r.Payload) * 8 / 1e6, ReceiveRateToLastDelivery: r.ReceiveRateToLastDelivery(),
		OfferedTotal: r.OfferedSends(), OfferedRateTotal: cfg.Rate * float64(cfg.Topology.Publishers),
		LatencyFrom: LatencyFrom(cfg.Rate), Latency: r.Latency, LatencyFromSend: r.FromSend, LatencyFromSendMissing: r.Unpaired, SendDelay: r.SendDelay, RawKept: len(r.Raw), RawDropped: r.RawDropped, Drained: r.Drained,
		// Copied into empty lists, so that none is null in the JSON.
		Publishers: append([]PublisherResult{}, r.Publishers...), Subscribers: append([]SubscriberResult{}, r.Subscribers...),
		Notes: notesOf(r, cfg),
	}
	if l := r.Latency; l.Count > 0 {
		us := func(v float64) *float64 { return &v }
		s.LatencyMinUs, s.LatencyMaxUs, s.LatencyMeanUs = us(micros(l.MinNs)), us(micros(l.MaxNs)), us(l.MeanNs/1e3)
		s.LatencyP50Us, s.LatencyP95Us = us(micros(l.P50Ns)), us(micros(l.P95Ns))
		s.LatencyP99Us, s.LatencyP999Us = us(micros(l.P99Ns)), us(micros(l.P999Ns))
	}
	return s
}

// LatencyFrom says where the latency of a run at rate msg/s per publisher
// is measured from (the summary's latency_from).
func LatencyFrom(rate float64) string {
	if rate > 0 {
		return "intended send time (the schedule's slot: coordinated omission)"
	}
	return "send time (unpaced: the send call)"
}

// notesOf is a summary's notes: the knee, and too few rate samples.
func notesOf(r *PayloadResult, cfg Config) []string {
	notes := KneeNotes(r, cfg)
	if w := cfg.RateWarning(); w != "" {
		notes = append(notes, w)
	}
	return notes
}

// KneeNotes says, in words, where a payload shows that the system or the
// publishers could not keep up (the knee of the latency–load curve).
func KneeNotes(r *PayloadResult, cfg Config) []string {
	notes := []string{}
	if r.Offered > r.Expected && r.DeliveryRate() < 0.99 {
		notes = append(notes, fmt.Sprintf("delivered %.1f%% of the offered schedule (%.1f%% of what was sent): the publishers did not keep up", 100*r.DeliveryRate(), 100*r.DeliveryRatio()))
	}
	if r.Expected > 0 && r.DeliveryRatio() < 0.99 {
		notes = append(notes, fmt.Sprintf("delivered %.1f%% of the messages sent: past the knee (or lossy)", 100*r.DeliveryRatio()))
	}
	if sk := r.Counters.Skipped; sk > 0 {
		notes = append(notes, fmt.Sprintf("publishers skipped %s slots (more than one period behind): the offered rate %g/s per publisher was not reached", result.Count(sk), cfg.Rate))
	}
	if cfg.Rate > 0 {
		period := 1e9 / cfg.Rate
		if float64(r.SendDelay.P99Ns) > period {
			notes = append(notes, fmt.Sprintf("send delay p99 %s exceeds the period %s: the publishers sent late (a send call that blocked, or the generator's timer waking late: the latency from the actual send leaves both out)", result.Nanos(r.SendDelay.P99Ns), result.Micros(period/1000)))
		}
	}
	if r.Expected > 0 && r.Latency.Count == 0 {
		notes = append(notes, "no latency measured: none of the measured period's messages was delivered, and the summary's latencies are empty (0, count 0), not a latency of 0")
	}
	switch d := r.TransportDropped; {
	case r.DroppedByTransport():
		notes = append(notes, fmt.Sprintf("the transport dropped %s messages it could not queue (counted by its own links): the %s counted lost are those", result.Count(*d), result.Count(r.Lost)))
	case !r.Drained && r.Lost > 0:
		also := ""
		if d != nil && *d > 0 {
			also = fmt.Sprintf("; the transport's links counted %s dropped", result.Count(*d))
		}
		notes = append(notes, fmt.Sprintf("the drain ended before every message came: the %s counted lost may still be queued in the system (a longer --drain tells)%s", result.Count(r.Lost), also))
	}
	if r.Measured() > 0 && r.ReceivePeriod() > r.Measured()+r.Measured()/10 {
		notes = append(notes, fmt.Sprintf("deliveries took %.2f s for %.2f s of sending: the system queued messages", r.ReceivePeriod().Seconds(), r.Measured().Seconds()))
	}
	if d, l := r.SendDelay.P50Ns, r.Latency.P50Ns; r.SendDelay.Count > 0 && l > 0 && 10*d > l {
		notes = append(notes, fmt.Sprintf("send delay p50 %s is %.0f%% of the latency p50 %s from the intended send time: the generator's own lateness (from the actual send: p50 %s)",
			result.Nanos(d), 100*float64(d)/float64(l), result.Nanos(l), result.Nanos(r.FromSend.P50Ns)))
	}
	if r.Latency.P50Ns > 0 && r.Latency.P99Ns > 10*r.Latency.P50Ns {
		notes = append(notes, fmt.Sprintf("p99 is %.0f× p50: a heavy tail", float64(r.Latency.P99Ns)/float64(r.Latency.P50Ns)))
	}
	if r.Counters.Clamped > 0 {
		notes = append(notes, fmt.Sprintf("%d negative latencies recorded as 0: the clocks disagree", r.Counters.Clamped))
	}
	if r.Unpaired > 0 {
		notes = append(notes, fmt.Sprintf("%s deliveries were in flight too long for their actual send time to be kept: in the latency from the intended send time only", result.Count(r.Unpaired)))
	}
	if r.RawDropped > 0 {
		notes = append(notes, fmt.Sprintf("%d latencies beyond the raw file's limit are in the histogram only", r.RawDropped))
	}
	return notes
}

// WriteHistogramLog writes the interval histograms of every payload as an
// HdrHistogram log (V2 compressed, the format HdrHistogram's
// HistogramLogProcessor reads), each tagged "<type>/<payload>" with its
// start and end in ms since the epoch: adding the intervals of one tag
// gives that payload's histogram, so logs of several runs merge.
func WriteHistogramLog(w io.Writer, typ string, payloads []PayloadResult, clock *Clock) error {
	lw := hdrhistogram.NewHistogramLogWriter(w)
	if err := lw.OutputLogFormatVersion(); err != nil {
		return err
	}
	if len(payloads) > 0 {
		start := clock.Ns(payloads[0].Start) / 1e6
		if err := lw.OutputStartTime(start); err != nil {
			return err
		}
		lw.SetBaseTime(start)
	}
	if err := lw.OutputComment("latencies in ns (one-way), tag = <sub-experiment>/<payload bytes>"); err != nil {
		return err
	}
	if err := lw.OutputLegend(); err != nil {
		return err
	}
	for _, p := range payloads {
		begin := p.Start
		for _, t := range p.Ticks {
			end := p.Start.Add(t.Elapsed)
			h := t.Latency
			h.SetTag(fmt.Sprintf("%s/%d", typ, p.Payload))
			h.SetStartTimeMs(clock.Ns(begin) / 1e6)
			h.SetEndTimeMs(clock.Ns(end) / 1e6)
			if err := lw.OutputIntervalHistogram(h); err != nil {
				return err
			}
			begin = end
		}
	}
	return nil
}

// WriteRaw writes the raw file of typ (formats §2, one-way latencies in
// µs, samples by arrival) atomically into dir.
func WriteRaw(dir, typ string, payloads []PayloadResult) error {
	return atomicfile.Write(filepath.Join(dir, measurements.FileName(typ)), func(w io.Writer) error {
		mw := measurements.NewWriter(w)
		for _, p := range payloads {
			for i, s := range p.Raw {
				if err := mw.Write(measurements.Sample{Sample: i + 1, Payload: p.Payload, Latency: float64(s.Latency) / 1000}); err != nil {
					return err
				}
			}
		}
		return mw.Flush()
	})
}
