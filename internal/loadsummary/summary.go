package loadsummary

import (
	"encoding/json"
	"fmt"
)

// Format identifies the summary JSON.
const Format = "mqgate-load-summary/2"

// FileName is the summary JSON of sub-experiment typ.
func FileName(typ string) string { return "load_" + typ + "_summary.json" }

// Summary is the summary JSON of one sub-experiment.
type Summary struct {
	Format        string           `json:"format"`
	SubExperiment string           `json:"subexperiment"`
	Transport     string           `json:"transport"`
	Parameters    Parameters       `json:"parameters"`
	Payloads      []PayloadSummary `json:"payloads"`
	Completed     bool             `json:"completed"`
	Error         string           `json:"error,omitempty"`
}

// Parameters are the settings of a load run.
type Parameters struct {
	Scenario    string  `json:"scenario"`
	Publishers  int     `json:"publishers"`
	Subscribers int     `json:"subscribers"`
	Topics      int     `json:"topics"`
	Rate        float64 `json:"rate_per_publisher"` // msg/s; 0 unpaced
	Pacing      string  `json:"pacing"`
	DurationS   float64 `json:"duration_s"`
	WarmupS     float64 `json:"warmup_s"`
	DrainS      float64 `json:"drain_s"`
	IntervalS   float64 `json:"interval_s"`
	RunID       uint32  `json:"run_id"`
	Padding     string  `json:"padding"` // random, zeros or pattern
	PaddingSeed uint64  `json:"padding_seed,omitempty"`
	Latency     string  `json:"latency"`
	Clock       string  `json:"clock"`
	Payloads    []int   `json:"payloads"`
}

// PayloadSummary is one payload's aggregates.
type PayloadSummary struct {
	Payload        int           `json:"payload"`
	MeasuredS      float64       `json:"measured_s"`
	ReceivePeriodS float64       `json:"receive_period_s"`
	Counters       CounterValues `json:"counters"`
	Expected       uint64        `json:"expected"`
	Offered        uint64        `json:"expected_offered"`
	Received       uint64        `json:"received_unique"`
	Lost           uint64        `json:"lost"`
	// TransportDropped is what the links counted as dropped themselves
	// (a full best-effort queue, an AMQP message returned unroutable),
	// null when they count nothing.
	TransportDropped *uint64 `json:"transport_dropped"`
	Duplicates       uint64  `json:"duplicates"`
	OutOfOrder       uint64  `json:"out_of_order"`
	DeliveryRatio    float64 `json:"delivery_ratio"` // of what was sent
	DeliveryRate     float64 `json:"delivery_rate"`  // of the offered schedule
	SendRate         float64 `json:"send_rate"`      // msg/s
	ReceiveRate      float64 `json:"receive_rate"`   // msg/s, received_unique / measured_s
	ReceiveMbps      float64 `json:"receive_mbps"`   // 10^6 bit/s, of receive_rate
	// ReceiveRateToLastDelivery is received_unique / receive_period_s.
	ReceiveRateToLastDelivery float64 `json:"receive_rate_to_last_delivery"`
	// OfferedTotal is the slots every publisher's schedule offered, in
	// total (each publisher's are its offered); OfferedRateTotal is the
	// rate of all publishers together (rate_per_publisher × publishers, 0
	// unpaced).
	OfferedTotal     uint64  `json:"offered_total"`
	OfferedRateTotal float64 `json:"offered_rate_total"`
	// LatencyFrom says where Latency is measured from; LatencyFromSend is
	// from the time each message was actually handed to the system (paced
	// runs; the same as Latency unpaced), LatencyFromSendMissing the
	// deliveries it lacks (in flight too long for the send times kept).
	LatencyFrom            string `json:"latency_from"`
	Latency                Stats  `json:"latency"`
	LatencyFromSend        Stats  `json:"latency_from_send"`
	LatencyFromSendMissing uint64 `json:"latency_from_send_missing"`
	// The latency statistics again in µs, under the MQTT-bench spec's
	// names: null (nil) when no latency was measured (Latency.Count 0),
	// never a latency of 0.
	LatencyMinUs  *float64           `json:"latency_min_us"`
	LatencyMaxUs  *float64           `json:"latency_max_us"`
	LatencyMeanUs *float64           `json:"latency_mean_us"`
	LatencyP50Us  *float64           `json:"latency_p50_us"`
	LatencyP95Us  *float64           `json:"latency_p95_us"`
	LatencyP99Us  *float64           `json:"latency_p99_us"`
	LatencyP999Us *float64           `json:"latency_p999_us"`
	SendDelay     Stats              `json:"send_delay"`
	RawKept       int                `json:"raw_kept"`
	RawDropped    uint64             `json:"raw_dropped"`
	Drained       bool               `json:"drained"`
	Publishers    []PublisherResult  `json:"publishers"`
	Subscribers   []SubscriberResult `json:"subscribers"`
	Notes         []string           `json:"notes"`
}

// CounterValues are the run's message counts at one moment (a plain copy
// of load's atomic counters).
type CounterValues struct {
	MessagesSent     uint64 `json:"messages_sent"`
	MessagesReceived uint64 `json:"messages_received"`
	MessagesAcked    uint64 `json:"messages_acked"`
	MessagesRefused  uint64 `json:"messages_refused"`
	BytesSent        uint64 `json:"bytes_sent"`
	BytesReceived    uint64 `json:"bytes_received"`
	Errors           uint64 `json:"errors"`
	Skipped          uint64 `json:"skipped"`
	Clamped          uint64 `json:"clamped"`
	Warmup           uint64 `json:"warmup_received"`
}

// Sub returns v − o field by field: the counts of an interval.
func (v CounterValues) Sub(o CounterValues) CounterValues {
	return CounterValues{
		MessagesSent:     v.MessagesSent - o.MessagesSent,
		MessagesReceived: v.MessagesReceived - o.MessagesReceived,
		MessagesAcked:    v.MessagesAcked - o.MessagesAcked,
		MessagesRefused:  v.MessagesRefused - o.MessagesRefused,
		BytesSent:        v.BytesSent - o.BytesSent,
		BytesReceived:    v.BytesReceived - o.BytesReceived,
		Errors:           v.Errors - o.Errors,
		Skipped:          v.Skipped - o.Skipped,
		Clamped:          v.Clamped - o.Clamped,
		Warmup:           v.Warmup - o.Warmup,
	}
}

// Stats summarise a latency histogram, in nanoseconds.
type Stats struct {
	Count      int64   `json:"count"`
	MinNs      int64   `json:"min_ns"`
	MaxNs      int64   `json:"max_ns"`
	MeanNs     float64 `json:"mean_ns"`
	P50Ns      int64   `json:"p50_ns"`
	P95Ns      int64   `json:"p95_ns"`
	P99Ns      int64   `json:"p99_ns"`
	P999Ns     int64   `json:"p999_ns"`
	AboveRange uint64  `json:"above_range"`
}

// MarshalJSON writes st, its statistics null when it holds no latency
// (count 0: an unpaced run's send delay, a period nothing of was
// delivered), never a latency of 0; a reader reads null as 0 beside the
// count of 0.
func (st Stats) MarshalJSON() ([]byte, error) {
	type plain Stats
	if st.Count != 0 {
		return json.Marshal(plain(st))
	}
	return fmt.Appendf(nil, `{"count": 0, "min_ns": null, "max_ns": null, "mean_ns": null, "p50_ns": null, "p95_ns": null, "p99_ns": null, "p999_ns": null, "above_range": %d}`, st.AboveRange), nil
}

// SubscriberResult is how many measured messages one subscriber got (first
// arrivals, from every publisher of its topic): the split among the
// subscribers of a topic.
type SubscriberResult struct {
	Subscriber int    `json:"subscriber"`
	Topic      int    `json:"topic"`
	Received   uint64 `json:"received"`
}

// PublisherResult is what one publisher sent and its subscribers got.
type PublisherResult struct {
	Publisher  int    `json:"publisher"`
	Topic      int    `json:"topic"`
	Sent       uint64 `json:"sent"`
	Expected   uint64 `json:"expected"` // Sent × the subscribers of its topic
	Received   uint64 `json:"received"` // unique deliveries
	Lost       uint64 `json:"lost"`
	Duplicates uint64 `json:"duplicates"`
	OutOfOrder uint64 `json:"out_of_order"`
	Skipped    uint64 `json:"skipped"`
	// Offered is the slots of its schedule due in the measured period
	// (Sent + Skipped; Sent when unpaced); IntendedRate the schedule's rate
	// (0 unpaced) and SendRate what it achieved, Sent over the measured
	// period, in msg/s.
	Offered      uint64  `json:"offered"`
	IntendedRate float64 `json:"intended_rate"`
	SendRate     float64 `json:"send_rate"`
	// SentBytes is the bytes of its measured messages handed to the
	// system: Sent × the payload × its links (one per subscriber on
	// point-to-point links).
	SentBytes uint64 `json:"sent_bytes"`
}
