// Command natsbench is the reference of bench/load-vs-reference.sh: the
// publish/subscribe throughput test of `nats bench` (one publisher and one
// subscriber, each with its own connection, messages published back to
// back and flushed), written directly on nats.go. It prints the
// subscriber's rate, messages over the time from the first to the last
// delivery, as "msgs_per_sec N".
package main

import (
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

func main() {
	url := flag.String("url", nats.DefaultURL, "server URL")
	n := flag.Int("n", 1_000_000, "messages")
	size := flag.Int("size", 16, "message size in bytes")
	subject := flag.String("subject", "natsbench", "subject")
	flag.Parse()
	if err := run(*url, *subject, *n, *size); err != nil {
		fmt.Fprintln(os.Stderr, "natsbench:", err)
		os.Exit(1)
	}
}

func run(url, subject string, n, size int) error {
	sc, err := nats.Connect(url)
	if err != nil {
		return err
	}
	defer sc.Close()
	pc, err := nats.Connect(url)
	if err != nil {
		return err
	}
	defer pc.Close()
	var got atomic.Int64
	var first, last time.Time
	done := make(chan struct{})
	sub, err := sc.Subscribe(subject, func(*nats.Msg) {
		k := got.Add(1)
		if k == 1 {
			first = time.Now()
		}
		if k == int64(n) {
			last = time.Now()
			close(done)
		}
	})
	if err != nil {
		return err
	}
	// As nats bench: no pending limits, so that a fast publisher is not
	// cut off as a slow consumer.
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		return err
	}
	if err := sc.Flush(); err != nil {
		return err
	}
	msg := make([]byte, size)
	for range n {
		if err := pc.Publish(subject, msg); err != nil {
			return err
		}
	}
	if err := pc.Flush(); err != nil {
		return err
	}
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		return fmt.Errorf("received %d of %d messages within 60 s", got.Load(), n)
	}
	fmt.Printf("msgs_per_sec %.0f\n", float64(n-1)/last.Sub(first).Seconds())
	return nil
}
