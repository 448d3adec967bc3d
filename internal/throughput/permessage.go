package throughput

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/stats"
)

// PerMessageConfig configures the per-message method (ZeroMQ's
// "measuring messaging performance").
type PerMessageConfig struct {
	Count int // messages per payload
	// Window is M of ST_n and RT_n (default 100).
	Window int
	// CPUEvery is k: CPU time is sampled every k-th message (default 1000).
	CPUEvery int
	// Timeout ends the wait for deliveries once nothing arrived for that
	// long (the missing ones are lost).
	Timeout time.Duration
	// Broker, when set, reads the CPU time of the broker's process.
	Broker *CPUSource
	RunID  uint32
}

// WithDefaults fills the zero fields.
func (c PerMessageConfig) WithDefaults() PerMessageConfig {
	if c.Count == 0 {
		c.Count = 10000
	}
	if c.Window == 0 {
		c.Window = 100
	}
	if c.CPUEvery == 0 {
		c.CPUEvery = 1000
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.RunID == 0 {
		c.RunID = 0x706d // "pm"
	}
	return c
}

// Validate reports the first setting that cannot be measured.
func (c PerMessageConfig) Validate() error {
	switch {
	case c.Count < 2:
		return fmt.Errorf("count %d: expected at least 2 messages", c.Count)
	case c.Window < 1 || c.Window >= c.Count:
		return fmt.Errorf("window %d: expected 1 ≤ M < count (%d)", c.Window, c.Count)
	case c.CPUEvery < 1:
		return fmt.Errorf("CPU sampling every %d: expected at least 1", c.CPUEvery)
	case c.Timeout <= 0:
		return fmt.Errorf("timeout %v: expected a positive duration", c.Timeout)
	}
	return nil
}

// CPUSample is the CPU time per message over the k messages up to N, in
// ns of CPU per message (-1: not available).
type CPUSample struct {
	N                        int
	Sender, Receiver, Broker float64
}

// PerMessage is the record of one payload: O_n and I_n in ns since a
// common origin (-1: never arrived), in memory allocated before the first
// message.
type PerMessage struct {
	Payload int
	M       int
	O, I    []int64
	CPU     []CPUSample
	// BrokerWhat says whose CPU Broker is.
	BrokerWhat string
	Lost       int
}

// L returns L_n = I_n − O_n in ns (NaN for a lost message).
func (p *PerMessage) L() []float64 {
	out := make([]float64, len(p.O))
	for n := range out {
		if p.I[n] < 0 {
			out[n] = math.NaN()
			continue
		}
		out[n] = float64(p.I[n] - p.O[n])
	}
	return out
}

// ST returns ST_n = M / (O_n − O_{n−M}) in msg/s for n ≥ M (NaN before).
func (p *PerMessage) ST() []float64 { return windowRate(p.O, p.M) }

// RT returns RT_n = M / (I_n − I_{n−M}) in msg/s (NaN before M and where
// either end was lost).
func (p *PerMessage) RT() []float64 { return windowRate(p.I, p.M) }

func windowRate(t []int64, m int) []float64 {
	out := make([]float64, len(t))
	for n := range out {
		if n < m || t[n] < 0 || t[n-m] < 0 || t[n] <= t[n-m] {
			out[n] = math.NaN()
			continue
		}
		out[n] = float64(m) / (float64(t[n]-t[n-m]) / 1e9)
	}
	return out
}

// MeasurePerMessage sends cfg.Count messages of payload bytes back to back
// from the publisher to the subscriber of ends and records when each was
// sent (O_n, just before Send) and delivered (I_n, the driver's arrival
// time). Sender and receiver run on goroutines locked to their threads, so
// that their CPU time is the threads'.
func MeasurePerMessage(ctx context.Context, ends *load.Ends, payload int, cfg PerMessageConfig) (*PerMessage, error) {
	if len(ends.Pubs) != 1 || len(ends.Pubs[0].Senders) != 1 || len(ends.Subs) != 1 {
		return nil, errors.New("per-message: expected one publisher and one subscriber")
	}
	pub, sub := ends.Pubs[0].Senders[0], ends.Subs[0].R
	if as, ok := pub.(driver.AckSender); ok {
		as.OnAck(func(error) {})
	}
	n := cfg.Count
	pm := &PerMessage{Payload: payload, M: cfg.Window, O: make([]int64, n), I: make([]int64, n)}
	for i := range pm.I {
		pm.I[i] = -1
	}
	nCPU := n / cfg.CPUEvery
	sendCPU := make([]int64, nCPU+1)
	recvCPU := make([]int64, nCPU+1)
	brokerCPU := make([]int64, nCPU+1)
	for _, a := range [][]int64{sendCPU, recvCPU, brokerCPU} {
		for i := range a {
			a[i] = -1
		}
	}
	readBroker := func() int64 { return -1 }
	if cfg.Broker != nil {
		readBroker = cfg.Broker.Read
		pm.BrokerWhat = cfg.Broker.What
	}
	origin := time.Now()
	var pubErr, subErr error
	var wg sync.WaitGroup
	ready := make(chan struct{})
	wg.Add(2)
	go func() { // receiver
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		buf := make([]byte, payload+64)
		recvCPU[0], brokerCPU[0] = threadCPU(), readBroker()
		close(ready)
		got, k := 0, 0
		for got < n {
			m, at, err := sub.Receive(buf, time.Now().Add(cfg.Timeout))
			if err != nil {
				if !errors.Is(err, driver.ErrTimeout) {
					subErr = err
				}
				return // nothing for Timeout: the rest is lost
			}
			h, full, err := load.Parse(buf[:m])
			if err != nil || m != payload || (full && h.RunID != cfg.RunID) || h.Seq >= uint64(n) || pm.I[h.Seq] >= 0 {
				continue
			}
			pm.I[h.Seq] = int64(at.Sub(origin))
			got++
			if got%cfg.CPUEvery == 0 && k < nCPU {
				k++
				recvCPU[k], brokerCPU[k] = threadCPU(), readBroker()
			}
		}
	}()
	go func() { // sender
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		<-ready
		msg := make([]byte, payload)
		h := load.Header{RunID: cfg.RunID}
		h.Put(msg)
		load.Fill(msg)
		clock := load.NewClock()
		sendCPU[0] = threadCPU()
		for i := 0; i < n; i++ {
			if ctx.Err() != nil {
				return
			}
			now := time.Now()
			h.Seq, h.SendNs = uint64(i), uint64(clock.Ns(now))
			load.PutTime(msg, h.SendNs)
			h.PutSeq(msg)
			pm.O[i] = int64(now.Sub(origin))
			if err := pub.Send(msg); err != nil {
				pubErr = err
				return
			}
			if (i+1)%cfg.CPUEvery == 0 {
				sendCPU[(i+1)/cfg.CPUEvery] = threadCPU()
			}
		}
	}()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		ends.Close()
		<-done
		return pm, load.ErrInterrupted
	}
	if pubErr != nil {
		return pm, fmt.Errorf("publisher: %w", pubErr)
	}
	if subErr != nil {
		return pm, fmt.Errorf("subscriber: %w", subErr)
	}
	for _, t := range pm.I {
		if t < 0 {
			pm.Lost++
		}
	}
	per := func(a []int64, k int) float64 {
		if a[k] < 0 || a[k-1] < 0 {
			return -1
		}
		return float64(a[k]-a[k-1]) / float64(cfg.CPUEvery)
	}
	for k := 1; k <= nCPU; k++ {
		pm.CPU = append(pm.CPU, CPUSample{N: k * cfg.CPUEvery, Sender: per(sendCPU, k), Receiver: per(recvCPU, k), Broker: per(brokerCPU, k)})
	}
	return pm, nil
}

// Aggregate describes one per-message quantity over a payload's messages
// (lost ones and the first M of a window rate left out).
type Aggregate struct {
	Count       int
	Mean        float64
	Median      float64
	LowerMedian float64 // the ⌈n/2⌉-th smallest value
	// RobustDev is the mean absolute deviation from the median,
	// mean |x − median|.
	RobustDev float64
	Min, Max  float64
	// Bimodality is Sarle's bimodality coefficient
	// b = (g² + 1) / (κ + 3(n−1)²/((n−2)(n−3))), g the sample skewness and
	// κ the sample excess kurtosis (both bias-corrected); b > 5/9 (the
	// value of a uniform distribution) indicates a bimodal or multimodal
	// distribution: Multimodal is then true. NaN with fewer than 4 values.
	Bimodality float64
	Multimodal bool
}

// BimodalityThreshold is 5/9, the bimodality coefficient of a uniform
// distribution.
const BimodalityThreshold = 5.0 / 9

// Aggregated summarises the finite values of x.
func Aggregated(x []float64) Aggregate {
	v := make([]float64, 0, len(x))
	for _, f := range x {
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			v = append(v, f)
		}
	}
	a := Aggregate{Count: len(v), Bimodality: math.NaN()}
	if len(v) == 0 {
		return a
	}
	slices.Sort(v)
	a.Mean, a.Median = stats.Mean(v), stats.Median(v)
	a.LowerMedian = v[(len(v)-1)/2]
	a.Min, a.Max = v[0], v[len(v)-1]
	var dev float64
	for _, f := range v {
		dev += math.Abs(f - a.Median)
	}
	a.RobustDev = dev / float64(len(v))
	a.Bimodality = bimodality(v, a.Mean)
	a.Multimodal = a.Bimodality > BimodalityThreshold
	return a
}

// bimodality is Sarle's coefficient with the bias-corrected sample
// skewness G1 and excess kurtosis G2 (as scipy.stats skew/kurtosis with
// bias=False).
func bimodality(v []float64, mean float64) float64 {
	n := float64(len(v))
	if n < 4 {
		return math.NaN()
	}
	var m2, m3, m4 float64
	for _, f := range v {
		d := f - mean
		m2 += d * d
		m3 += d * d * d
		m4 += d * d * d * d
	}
	m2, m3, m4 = m2/n, m3/n, m4/n
	if m2 == 0 {
		return math.NaN()
	}
	g1 := m3 / math.Pow(m2, 1.5)
	G1 := g1 * math.Sqrt(n*(n-1)) / (n - 2)
	g2 := m4/(m2*m2) - 3
	G2 := (n - 1) / ((n - 2) * (n - 3)) * ((n+1)*g2 + 6)
	return (G1*G1 + 1) / (G2 + 3*(n-1)*(n-1)/((n-2)*(n-3)))
}

func selfPid() int { return os.Getpid() }
