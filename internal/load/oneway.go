package load

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// Trial is one sub-experiment of a one-way mode with one publisher and one
// subscriber (throughput search, per-message, bursts): Open connects fresh
// ends for each measurement, and Rec is the sub-experiment's record in
// meta.json, which the mode fills with its payloads.
type Trial struct {
	Sub
	Rec *meta.SubExperiment
	ctx context.Context
	tp  Topology
	tag string
	n   int
}

// Open connects a publisher and a subscriber of payload-byte messages on
// a topic of their own (the sub-experiment's, numbered), so that nothing
// of an earlier measurement reaches this one, and records the system's
// description and whether the publisher is acknowledged.
func (t *Trial) Open(payload int) (*Ends, error) {
	t.n++
	links := t.Links
	links.Publish.Topic = fmt.Sprintf("%s-%s%d", links.Publish.Topic, t.tag, t.n)
	links.Subscribe.Topic = links.Publish.Topic
	ends, err := links.Open(t.ctx, t.tp, payload)
	if err != nil {
		if t.ctx.Err() != nil {
			return nil, ErrInterrupted
		}
		return nil, fmt.Errorf("cannot connect: %w", err)
	}
	pub := ends.Pubs[0].Senders[0]
	if ir, ok := pub.(driver.InfoReporter); ok && t.Rec.System == nil {
		t.Rec.System = driver.Recorded(ir.SystemInfo(), t.Embedded)
	}
	_, t.Rec.Acknowledged = pub.(driver.AckSender)
	return ends, nil
}

// WithEnds opens the ends of one measurement of payload, measures them with f and closes them.
func WithEnds[T any](t *Trial, payload int, f func(*Ends) (T, error)) (T, error) {
	ends, err := t.Open(payload)
	if err != nil {
		return *new(T), err
	}
	defer ends.Close()
	return f(ends)
}

// RunOneWay runs a one-way mode over subs, one after the other. It checks
// the payload sizes, records m (its Mode and Clock set by the caller) as a
// run under way (runSubs), and for each sub-experiment calls measure,
// which returns how to write what it measured (nil: nothing) and its
// error; the sub-experiment's record is completed, its files written
// and meta.json rewritten before the next. Topics of the measurements are
// the sub-experiment's with tag and a number.
func RunOneWay(ctx context.Context, dir string, m *meta.Meta, payloads []int, subs []Sub, tag string,
	measure func(*Trial) (write func() error, err error)) (err error) {
	if len(payloads) == 0 {
		return errors.New("no payload sizes")
	}
	if err := checkSizes(payloads); err != nil {
		return err
	}
	tp, _ := NewTopology(FanIn, 1, 1, 1)
	return runSubs(dir, m, subs, func(s Sub, rec *meta.SubExperiment) (func() error, error) {
		return measure(&Trial{Sub: s, Rec: rec, ctx: ctx, tp: tp, tag: tag})
	})
}

// runSubs runs the sub-experiments subs one after the other. It records
// m, one-way, as a run under way in dir (made when missing): no
// sub-experiment yet, neither completed nor interrupted. For each it
// calls measure with the sub-experiment's record, which measure fills
// with its payloads; measure returns how to write what it measured (nil:
// nothing) and its error. The record is completed, the files written and
// meta.json rewritten before the next. At the end meta.json records
// whether the run completed, was interrupted or failed; a failed write
// becomes the run's error when it had none. The load, throughput,
// per-message and burst runners all go through it, so that each leaves
// meta.json by the same rule.
func runSubs(dir string, m *meta.Meta, subs []Sub,
	measure func(Sub, *meta.SubExperiment) (write func() error, err error)) (err error) {
	if m.Start.IsZero() {
		m.Start = time.Now().UTC()
	}
	m.Latency = meta.LatencyOneWay // run load's latency file is one-way; the others use the one-way clock
	m.Completed, m.Interrupted, m.Error = false, false, ""
	m.SubExperiments = []meta.SubExperiment{}
	m.End = m.Start
	metaPath := filepath.Join(dir, meta.FileName)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := meta.Write(metaPath, m); err != nil {
		return err
	}
	defer func() {
		m.End = time.Now().UTC()
		m.Completed = err == nil
		m.Interrupted = errors.Is(err, ErrInterrupted)
		if err != nil {
			m.Error = err.Error()
		}
		if werr := meta.Write(metaPath, m); werr != nil && err == nil {
			err = werr
		}
	}()
	for _, s := range subs {
		rec := &meta.SubExperiment{Type: s.Type, Transport: s.Transport, Reliable: s.Reliable, Echo: "none (one-way)",
			Topic: s.Topic, Params: s.Params, Start: time.Now().UTC(), Payloads: []meta.Payload{}}
		write, runErr := measure(s, rec)
		rec.End = time.Now().UTC()
		rec.Completed = runErr == nil
		if runErr != nil {
			rec.Error = runErr.Error()
		}
		m.SubExperiments = append(m.SubExperiments, *rec)
		if write != nil {
			if err := write(); err != nil {
				return err
			}
		}
		if runErr != nil {
			return runErr
		}
		if err := meta.Write(metaPath, m); err != nil {
			return err
		}
	}
	return nil
}
