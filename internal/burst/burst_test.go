package burst

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
)

// bucketLink is a synthetic one-way link of known capacity: it holds
// Capacity messages and drops the rest, and is emptied (its capacity
// restored) only once no message was sent for Idle. A burst of D
// messages after a pause of Idle or more delivers min(D, Capacity); bursts
// back to back deliver Capacity in all.
type bucketLink struct {
	Capacity int
	Idle     time.Duration

	mu     sync.Mutex
	queues map[string]*bucket
}

var _ driver.StreamTransport = (*bucketLink)(nil)

type bucket struct {
	l        *bucketLink
	addr     string
	ch       chan []byte
	free     int
	lastSend time.Time
}

func (l *bucketLink) Name() string { return "bucket" }
func (l *bucketLink) Listen(context.Context, string, driver.Options) (driver.Echoer, error) {
	return nil, errors.New("one-way only")
}
func (l *bucketLink) Dial(context.Context, string, driver.Options) (driver.Pinger, error) {
	return nil, errors.New("one-way only")
}

func (l *bucketLink) Capabilities() driver.Capabilities { return driver.Capabilities{} }

func (l *bucketLink) Subscribe(context.Context, string, driver.Options) (driver.Subscriber, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.queues == nil {
		l.queues = map[string]*bucket{}
	}
	b := &bucket{l: l, addr: fmt.Sprintf("q%d", len(l.queues)), ch: make(chan []byte, l.Capacity), free: l.Capacity}
	l.queues[b.addr] = b
	return b, nil
}

func (l *bucketLink) Publish(_ context.Context, addr string, _ driver.Options) (driver.Publisher, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.queues[addr], nil
}

func (b *bucket) Addr() string { return b.addr }
func (b *bucket) Close() error { return nil }

func (b *bucket) Send(msg []byte) error {
	now := time.Now()
	if now.Sub(b.lastSend) >= b.l.Idle {
		b.free = b.l.Capacity
	}
	b.lastSend = now
	if b.free == 0 {
		return nil // dropped
	}
	b.free--
	b.ch <- bytes.Clone(msg)
	return nil
}

func (b *bucket) Receive(buf []byte, deadline time.Time) (int, time.Time, error) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case m := <-b.ch:
		return copy(buf, m), time.Now(), nil
	case <-t.C:
		return 0, time.Time{}, fmt.Errorf("bucket: %w", driver.ErrTimeout)
	}
}

func measureOnce(t *testing.T, links load.Links, payload, demand, recovery int, cfg Config) result.BurstRow {
	t.Helper()
	tp, _ := load.NewTopology(load.FanIn, 1, 1, 1)
	ends, err := links.Open(context.Background(), tp, payload)
	if err != nil {
		t.Fatal(err)
	}
	defer ends.Close()
	row, err := Measure(context.Background(), ends, payload, demand, recovery, cfg.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// TestKnownCapacity: over a link that holds 300 messages and drains in
// 30 ms of quiet, bursts of 1000 with 60 ms to recover deliver 300 each and
// lose 700; 300 ms of test make 6 bursts (one starts before 200 ms have
// passed and ends after) unless the timer oversleeps; bursts back to back lose nearly everything.
func TestKnownCapacity(t *testing.T) {
	links := load.Links{Transport: &bucketLink{Capacity: 300, Idle: 30 * time.Millisecond}}
	cfg := Config{TestTime: 300 * time.Millisecond, Timeout: 50 * time.Millisecond}
	r := measureOnce(t, links, 64, 1000, 60, cfg)
	bursts := r.Sent / 1000
	// A loaded machine oversleeps: fewer bursts, never more.
	if r.Sent%1000 != 0 || bursts < 3 || bursts > 6 {
		t.Fatalf("sent %d: expected 6 bursts of 1000 (fewer when the timer oversleeps)", r.Sent)
	}
	if r.Received != 300*bursts || r.Lost != 700*bursts {
		t.Errorf("%d bursts: received %d, lost %d; want %d and %d", bursts, r.Received, r.Lost, 300*bursts, 700*bursts)
	}
	if r.PubTimeUs < float64(bursts-1)*60e3 || r.PubTimeUs < 300e3 || r.PubTimeUs > 600e3 {
		t.Errorf("publication time %.3f us for %d bursts 60 ms apart over 300 ms", r.PubTimeUs, bursts)
	}
	if want := float64(r.Received) * 64 * 8 / r.SubTimeUs; r.SubMbps != want || r.SubTimeUs < r.PubTimeUs {
		t.Errorf("subscription %.3f Mb/s over %.3f us, want %.3f", r.SubMbps, r.SubTimeUs, want)
	}

	// Without recovery the link drains only when the scheduler happens to
	// pause the publisher for 30 ms: 300 arrive, and 300 more per pause.
	r = measureOnce(t, links, 64, 1000, 0, cfg)
	if r.Received < 300 || r.Received > r.Sent/10 || r.Lost != r.Sent-r.Received {
		t.Errorf("back to back: sent %d, received %d, lost %d; want about 300 received", r.Sent, r.Received, r.Lost)
	}
}

// TestReliableIntraprocessLosesNothing: a reliable in-process queue blocks
// the publisher instead of dropping, so every burst arrives.
func TestReliableIntraprocessLosesNothing(t *testing.T) {
	links := load.Links{Transport: intraprocess.Transport{}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 256}}
	r := measureOnce(t, links, 64, 1000, 5, Config{TestTime: 50 * time.Millisecond})
	if r.Sent < 1000 || r.Received != r.Sent || r.Lost != 0 || r.SubRate <= 0 || r.PubMbps <= 0 {
		t.Fatalf("%+v", r)
	}
}

// TestRunnerEmbeddedNATS runs two payloads, two demands and two recovery
// times over NATS and checks the files: eight rows, a summary of the best
// row of each payload, and the four scatter plots.
func TestRunnerEmbeddedNATS(t *testing.T) {
	url, stop, err := nats.Transport{}.StartEmbedded(context.Background(), driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	dir := t.TempDir()
	var progress bytes.Buffer
	m := &meta.Meta{Experiment: "x"}
	r := &Runner{Config: Config{Demands: []int{10, 100}, Recoveries: []int{0, 5}, TestTime: 30 * time.Millisecond, Timeout: 100 * time.Millisecond},
		Payloads: []int{16, 256}, Dir: dir, Meta: m, Progress: &progress}
	sub := load.Sub{Type: "nats_best_effort", Transport: "nats", Links: load.Links{Transport: nats.Transport{}, URL: url,
		Publish: driver.Options{Topic: "b"}, Subscribe: driver.Options{Topic: "b"}}}
	if err := r.Run(context.Background(), []load.Sub{sub}); err != nil {
		t.Fatal(err)
	}
	read := func(name string) []result.BurstRow {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := result.ReadBurst(f, f.Name())
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	rows := read(experiment.BurstFileName("nats_best_effort"))
	if len(rows) != 8 || rows[0].Payload != 16 || rows[0].Demand != 10 || rows[1].RecoveryMs != 5 || rows[7].Payload != 256 {
		t.Fatalf("%+v", rows)
	}
	for _, row := range rows {
		if row.Sent == 0 || row.Received+row.Lost != row.Sent || row.PubTimeUs < 30e3 {
			t.Errorf("%+v", row)
		}
	}
	if sum := read(experiment.BurstSummaryFileName("nats_best_effort")); len(sum) < 2 || sum[0].Payload != 16 || sum[len(sum)-1].Payload != 256 {
		t.Errorf("summary %+v", sum)
	}
	for _, p := range []int{16, 256} {
		tn, ln := plots.BurstScatterFileNames(p, plots.FormatPNG)
		for _, name := range []string{tn, ln} {
			if _, err := os.Stat(filepath.Join(experiment.BurstPlotsDir(dir, "nats_best_effort"), name)); err != nil {
				t.Error(err)
			}
		}
	}
	if !m.Completed || len(m.SubExperiments) != 1 || len(m.SubExperiments[0].Payloads) != 2 {
		t.Fatalf("meta %+v", m)
	}
	if strings.Count(progress.String(), "\n") != 8 {
		t.Errorf("progress:\n%s", progress.String())
	}
}

// TestDemandsText: meta.json's mode names the bursts measured: a demands
// file's per payload (it named the default list, never measured), else the
// list.
func TestDemandsText(t *testing.T) {
	cfg := Config{}.WithDefaults()
	if got := demandsText(cfg, []int{16}); got != "[100 1000 10000 30000 50000] samples" {
		t.Errorf("defaults: %q", got)
	}
	cfg.PayloadDemands = map[int][]int{64: {10}, 128: {5, 7}}
	if got := demandsText(cfg, []int{64, 128}); got != "[10] samples at 64 B, [5 7] samples at 128 B" {
		t.Errorf("demands file: %q", got)
	}
}

// TestRecoveryBound: a recovery time longer than 24 h is refused before
// anything is measured; 9223372036854775807 ms was taken and overflowed
// into no pause at all, the row still naming that recovery time.
func TestRecoveryBound(t *testing.T) {
	for _, c := range []struct {
		ms int
		ok bool
	}{{0, true}, {MaxRecoveryMs, true}, {MaxRecoveryMs + 1, false}, {9223372036854775807, false}, {-1, false}} {
		err := Config{Recoveries: []int{c.ms}}.WithDefaults().Validate()
		if (err == nil) != c.ok {
			t.Errorf("recovery %d ms: %v, want ok %v", c.ms, err, c.ok)
		}
	}
}
