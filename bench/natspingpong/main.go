// Command natspingpong is the floor of the NATS overhead benchmark: a core
// NATS ping-pong written directly on github.com/nats-io/nats.go, with the
// set-up of mqgate's nats_best_effort sub-experiment and nothing else —
// each end one connection with the library's default options, the pinger
// publishing on TOPIC.ping and receiving TOPIC.pong through a synchronous
// subscription, the echo doing the reverse.
//
//	natspingpong echo URL TOPIC
//	natspingpong ping URL TOPIC N [SIZE] [WARMUP] [CPU]
//
// The echo prints "ready" as the first line of standard output once the
// server has its subscription, and echoes until SIGINT or SIGTERM. The
// pinger sends N round trips of SIZE bytes (default 16) after WARMUP
// (default N/10) and prints the median round trip in nanoseconds, timed
// from before the publish to the moment NextMsg hands the echo over, as
// mqgate times it. Place them as run --cpus places its ends: the echo
// process with taskset, the pinger by CPU, which pins only the thread of
// the measuring goroutine (nats.go's reader and flusher goroutines run
// wherever the scheduler puts them).
package main

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/mqgate/mqgate/bench/internal/pingpong"
	"github.com/nats-io/nats.go"
)

func main() { pingpong.Main("natspingpong", run) }

const usage = "usage: natspingpong echo URL TOPIC | natspingpong ping URL TOPIC N [SIZE] [WARMUP] [CPU]"

func run(args []string) error {
	switch {
	case len(args) == 3 && args[0] == "echo":
		return echo(args[1], args[2])
	case len(args) >= 4 && args[0] == "ping":
		p, err := pingpong.ParsePing(args, 3, 8)
		if err != nil {
			return err
		}
		if err := pingpong.Pin(p.CPU); err != nil {
			return fmt.Errorf("pinning to CPU %d: %w", p.CPU, err)
		}
		return ping(args[1], args[2], p)
	}
	return fmt.Errorf("%s", usage)
}

// subscribe connects without reconnecting, as mqgate does, and returns
// once the server has the synchronous subscription to subject.
func subscribe(url, subject string) (*nats.Conn, *nats.Subscription, error) {
	nc, err := nats.Connect(url, nats.NoReconnect())
	if err != nil {
		return nil, nil, err
	}
	sub, err := nc.SubscribeSync(subject)
	if err == nil {
		err = nc.Flush()
	}
	if err != nil {
		nc.Close()
	}
	return nc, sub, err
}

func echo(url, topic string) error {
	nc, sub, err := subscribe(url, topic+".ping")
	if err != nil {
		return err
	}
	defer nc.Close()
	fmt.Println("ready")
	sigs := pingpong.Signals()
	go func() { <-sigs; sub.Unsubscribe() }()
	pong := topic + ".pong"
	for {
		m, err := sub.NextMsg(24 * time.Hour)
		if err == nats.ErrTimeout {
			continue
		}
		if err != nil {
			return nil // unsubscribed by a signal, or the server went away
		}
		if err := nc.Publish(pong, m.Data); err != nil {
			return err
		}
	}
}

func ping(url, topic string, p pingpong.Ping) error {
	nc, sub, err := subscribe(url, topic+".pong")
	if err != nil {
		return err
	}
	defer nc.Close()
	pingSubject := topic + ".ping"
	msg := make([]byte, p.Size)
	m, err := p.Median(func(i int) (time.Duration, error) {
		binary.LittleEndian.PutUint64(msg, uint64(i))
		t0 := time.Now()
		if err := nc.Publish(pingSubject, msg); err != nil {
			return 0, err
		}
		for {
			in, err := sub.NextMsg(5 * time.Second)
			if err != nil {
				return 0, fmt.Errorf("round trip %d: %w", i, err)
			}
			if len(in.Data) == p.Size && binary.LittleEndian.Uint64(in.Data) == uint64(i) {
				return time.Since(t0), nil
			}
		}
	})
	if err != nil {
		return err
	}
	_, err = fmt.Println(int64(m))
	return err
}
