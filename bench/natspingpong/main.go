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
	"os"
	"os/signal"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "natspingpong:", err)
		os.Exit(2)
	}
}

const usage = "usage: natspingpong echo URL TOPIC | natspingpong ping URL TOPIC N [SIZE] [WARMUP] [CPU]"

func run(args []string) error {
	switch {
	case len(args) == 3 && args[0] == "echo":
		return echo(args[1], args[2])
	case len(args) >= 4 && args[0] == "ping":
		num := func(i, def int) (int, error) {
			if i >= len(args) {
				return def, nil
			}
			v, err := strconv.Atoi(args[i])
			if err != nil || v < 0 {
				return 0, fmt.Errorf("argument %d: %q is not a count", i+1, args[i])
			}
			return v, nil
		}
		n, err := num(3, 0)
		if err != nil || n < 1 {
			return fmt.Errorf("N must be at least 1")
		}
		size, err := num(4, 16)
		if err != nil || size < 8 {
			return fmt.Errorf("SIZE must be at least 8")
		}
		warmup, err := num(5, n/10)
		if err != nil {
			return err
		}
		if len(args) > 6 {
			cpu, err := num(6, 0)
			if err != nil {
				return err
			}
			if err := pinThread(cpu); err != nil {
				return fmt.Errorf("pinning to CPU %d: %w", cpu, err)
			}
		}
		return ping(args[1], args[2], n, size, warmup)
	}
	return fmt.Errorf("%s", usage)
}

// connect connects without reconnecting, as mqgate does.
func connect(url string) (*nats.Conn, error) {
	return nats.Connect(url, nats.NoReconnect())
}

func echo(url, topic string) error {
	nc, err := connect(url)
	if err != nil {
		return err
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync(topic + ".ping")
	if err != nil {
		return err
	}
	if err := nc.Flush(); err != nil {
		return err
	}
	fmt.Println("ready")
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
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

func ping(url, topic string, n, size, warmup int) error {
	nc, err := connect(url)
	if err != nil {
		return err
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync(topic + ".pong")
	if err != nil {
		return err
	}
	if err := nc.Flush(); err != nil {
		return err
	}
	pingSubject := topic + ".ping"
	msg := make([]byte, size)
	rtts := make([]time.Duration, 0, n)
	for i := range warmup + n {
		binary.LittleEndian.PutUint64(msg, uint64(i))
		t0 := time.Now()
		if err := nc.Publish(pingSubject, msg); err != nil {
			return err
		}
		for {
			m, err := sub.NextMsg(5 * time.Second)
			if err != nil {
				return fmt.Errorf("round trip %d: %w", i, err)
			}
			if len(m.Data) == size && binary.LittleEndian.Uint64(m.Data) == uint64(i) {
				break
			}
		}
		if i >= warmup {
			rtts = append(rtts, time.Since(t0))
		}
	}
	slices.Sort(rtts)
	med := rtts[len(rtts)/2]
	if len(rtts)%2 == 0 {
		med = (rtts[len(rtts)/2-1] + rtts[len(rtts)/2]) / 2
	}
	fmt.Println(med.Nanoseconds())
	return nil
}
