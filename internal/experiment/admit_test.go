package experiment

import (
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/meta"
)

func TestAdmitIncomplete(t *testing.T) {
	done := &Experiment{Dir: "r/done", Meta: &meta.Meta{Completed: true}, Latency: meta.LatencyHalfRTT}
	interrupted := &Experiment{Dir: "r/cut", Meta: &meta.Meta{Interrupted: true}, Latency: meta.LatencyHalfRTT}
	failed := &Experiment{Dir: "r/err", Meta: &meta.Meta{Error: "echo died"}, Latency: meta.LatencyHalfRTT}
	fastrtps := &Experiment{Dir: "r/fast", Latency: meta.LatencyHalfRTT}

	if _, w, err := Admit([]*Experiment{done, fastrtps}, false); err != nil || len(w) != 0 {
		t.Errorf("complete experiments: %v, %q", err, w)
	}
	_, _, err := Admit([]*Experiment{done, interrupted, failed}, false)
	if err == nil {
		t.Fatal("incomplete experiments admitted")
	}
	for _, want := range []string{
		"experiment r/cut is incomplete (meta.json says the run was interrupted)",
		"experiment r/err is incomplete (meta.json says the run stopped on an error: echo died)",
		"pass --allow-incomplete to use it anyway",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "r/done") {
		t.Errorf("error names a complete experiment: %v", err)
	}
	_, w, err := Admit([]*Experiment{done, interrupted}, true)
	if err != nil || len(w) != 1 || !strings.Contains(w[0], "experiment r/cut is incomplete (meta.json says the run was interrupted), used anyway because of --allow-incomplete") {
		t.Errorf("allowed: %v, %q", err, w)
	}
}

func TestAdmitLatency(t *testing.T) {
	exp := func(dir, latency string, stated bool, m *meta.Meta) *Experiment {
		return &Experiment{Dir: dir, Latency: latency, LatencyStated: stated, Meta: m, Summaries: []Summary{{Type: "a"}}}
	}
	complete := &meta.Meta{Completed: true}
	half := exp("r/half", meta.LatencyHalfRTT, true, complete)
	fast := exp("r/fast", meta.LatencyHalfRTT, false, nil)
	rtt := exp("r/rtt", meta.LatencyRTT, true, complete)
	oneway := exp("r/oneway", meta.LatencyOneWay, true, complete)

	if l, _, err := Admit([]*Experiment{half, fast}, false); err != nil || l != meta.LatencyHalfRTT {
		t.Errorf("half-rtt and Fast-RTPS: %q, %v", l, err)
	}
	if l, _, err := Admit([]*Experiment{rtt}, false); err != nil || l != meta.LatencyRTT {
		t.Errorf("rtt alone: %q, %v", l, err)
	}
	_, _, err := Admit([]*Experiment{half, fast, rtt, oneway}, false)
	if err == nil {
		t.Fatal("mixed latency definitions admitted")
	}
	for _, want := range []string{
		"measure latency differently",
		"half-rtt (half the round trip): r/half, r/fast (no meta.json: half-rtt, as Fast-RTPS)",
		"rtt (the whole round trip): r/rtt",
		"one-way (sender to receiver): r/oneway",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := MatchLatency("the requirements file x.csv", meta.LatencyHalfRTT, meta.LatencyRTT); err == nil ||
		!strings.Contains(err.Error(), "the requirements file x.csv holds half-rtt latencies (half the round trip) but the experiments measure rtt (the whole round trip)") {
		t.Errorf("MatchLatency: %v", err)
	}
	if err := MatchLatency("x", meta.LatencyRTT, meta.LatencyRTT); err != nil {
		t.Errorf("MatchLatency of equal definitions: %v", err)
	}
	// Throughput-only experiments have no latencies to mix.
	tput := &Experiment{Dir: "r/tput", Latency: meta.LatencyOneWay, LatencyStated: true, Meta: complete, Throughputs: []Throughput{{Type: "a"}}}
	if l, _, err := Admit([]*Experiment{half, tput}, false); err != nil || l != meta.LatencyHalfRTT {
		t.Errorf("half-rtt and throughput only: %q, %v", l, err)
	}
	if l, _, err := Admit([]*Experiment{tput}, false); err != nil || l != meta.LatencyOneWay {
		t.Errorf("throughput only: %q, %v", l, err)
	}
}
