package measurements

import (
	"bytes"
	"math"
	"math/rand"
	"sync"
	"testing"
)

// The make bench experiment: 10 sub-experiments × 11 payloads (16 B to
// 16 KB) × 10,000 samples, 1.1 M rows.
const (
	benchFiles    = 10
	benchPayloads = 11
	benchSamples  = 10000
)

var benchData struct {
	once       sync.Once
	perPayload [][]byte // Sample from 1 in each payload, as run writes it
	continuous [][]byte // one count across payloads, as Fast-RTPS writes it
}

// benchFile writes one raw file of benchPayloads × benchSamples rows with
// latencies like synth's (lognormal, nanosecond resolution).
func benchFile(b *testing.B, seed int64, continuous bool) []byte {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	rng := rand.New(rand.NewSource(seed))
	n := 0
	for p := 0; p < benchPayloads; p++ {
		for i := 1; i <= benchSamples; i++ {
			n++
			s := i
			if continuous {
				s = n
			}
			v := math.Round(10*math.Exp(0.25*rng.NormFloat64())*1000) / 1000
			if err := w.Write(Sample{Sample: s, Payload: 16 << p, Latency: v}); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

func benchExperiment(b *testing.B, continuous bool) [][]byte {
	b.Helper()
	benchData.once.Do(func() {
		for f := 0; f < benchFiles; f++ {
			benchData.perPayload = append(benchData.perPayload, benchFile(b, int64(f), false))
			benchData.continuous = append(benchData.continuous, benchFile(b, int64(f), true))
		}
	})
	if continuous {
		return benchData.continuous
	}
	return benchData.perPayload
}

// benchHint is a hint as process sets one.
const benchHint = "process --lenient-samples reads such a file anyway"

// benchRead reads every file of the experiment per op with the default
// checks and a hint, as process reads them, and reports the time per row.
func benchRead(b *testing.B, files [][]byte) {
	size := 0
	for _, f := range files {
		size += len(f)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		sum := 0.0
		for _, f := range files {
			r := NewReader(bytes.NewReader(f), "measurements_bench.csv")
			r.SetSampleHint(benchHint)
			for r.Next() {
				sum += r.Sample().Latency
				n++
			}
			if err := r.Err(); err != nil {
				b.Fatal(err)
			}
		}
		if n != benchFiles*benchPayloads*benchSamples || sum <= 0 {
			b.Fatalf("read %d samples", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(benchFiles*benchPayloads*benchSamples), "ns/row")
}

// BenchmarkReadExperiment reads the 1.1 M-row make bench experiment,
// numbered from 1 in each payload (as run writes it).
func BenchmarkReadExperiment(b *testing.B) { benchRead(b, benchExperiment(b, false)) }

// BenchmarkReadExperimentContinuous reads the same experiment numbered as
// Fast-RTPS LatencyTest numbers it, one count across payloads.
func BenchmarkReadExperimentContinuous(b *testing.B) { benchRead(b, benchExperiment(b, true)) }
