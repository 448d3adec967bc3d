package load

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/meta"
)

// countingTransport is the in-process link whose publishers say in their
// system information how many messages they sent so far, as an AMQP
// publisher in transactions says how many it committed.
type countingTransport struct {
	intraprocess.Transport
	sent *atomic.Uint64
}

type countingPublisher struct {
	driver.Publisher
	sent *atomic.Uint64
}

func (p *countingPublisher) Send(msg []byte) error {
	err := p.Publisher.Send(msg)
	if err == nil {
		p.sent.Add(1)
	}
	return err
}

func (p *countingPublisher) SystemInfo() meta.SystemInfo {
	return meta.SystemInfo{Product: "counting", Extra: map[string]string{"mode": sentSoFar(p.sent.Load())}}
}

func sentSoFar(n uint64) string { return fmt.Sprintf("%d sent", n) }

func (t countingTransport) Publish(ctx context.Context, addr string, opts driver.Options) (driver.Publisher, error) {
	p, err := t.Transport.Publish(ctx, addr, opts)
	if err != nil {
		return nil, err
	}
	return &countingPublisher{Publisher: p, sent: t.sent}, nil
}

// TestSystemInfoReadAfterTheMeasurement: what the publisher says it
// reached is read once every message was sent and drained, so that the
// counts it keeps (AMQP transactions committed) cover the whole
// measurement, in the result and in meta.json, not the moment the link
// opened.
func TestSystemInfoReadAfterTheMeasurement(t *testing.T) {
	cfg := quick(t, FanIn, 1, 0, 0)
	cfg.Payloads = []int{16}
	var sent atomic.Uint64
	links := Links{Transport: countingTransport{sent: &sent}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 1024}}
	res, err := Measure(context.Background(), "intraprocess_reliable", links, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The warm-up, the measured messages and the end marker.
	if got, want := res[0].System, sentSoFar(sent.Load()); got == nil || got.Extra["mode"] != want || sent.Load() == 0 {
		t.Errorf("result's system %+v, want mode %q", got, want)
	}

	sent.Store(0)
	dir := t.TempDir()
	m := &meta.Meta{}
	r := &Runner{Config: cfg, Dir: dir, Meta: m, NoPlots: true}
	if err := r.Run(context.Background(), []Sub{{Type: "intraprocess_reliable", Transport: "intraprocess", Reliable: true, Links: links}}); err != nil {
		t.Fatal(err)
	}
	written, err := meta.ReadFile(filepath.Join(dir, meta.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if s := written.SubExperiments; len(s) != 1 || s[0].System == nil || s[0].System.Extra["mode"] != sentSoFar(sent.Load()) {
		t.Errorf("meta.json's sub-experiments %+v, want a system whose mode is %q", s, sentSoFar(sent.Load()))
	}
}
