// Command amqppingpong is the floor of the AMQP overhead benchmark: a
// RabbitMQ ping-pong written directly on github.com/rabbitmq/amqp091-go,
// with the set-up of mqgate's amqp_best_effort sub-experiment and nothing
// else — each end a publishing and a consuming connection with one channel
// each, an exclusive auto-delete queue named by the broker, the default
// exchange, transient messages, auto-ack consumers, the echo republishing
// to the queue in reply_to.
//
//	amqppingpong echo URL
//	amqppingpong ping URL QUEUE N [SIZE] [WARMUP]
//
// The echo prints its queue's name as the first line of standard output
// and echoes until SIGINT or SIGTERM. The pinger sends
// N round trips of SIZE bytes (default 16) to QUEUE after WARMUP (default
// N/10) and prints the median round trip in nanoseconds, timed from before
// the publish to the moment the delivery comes off amqp091's channel, as
// mqgate times it. Pin both with taskset.
package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
	"golang.org/x/sys/unix"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "amqppingpong:", err)
		os.Exit(2)
	}
}

const usage = "usage: amqppingpong echo URL | amqppingpong ping URL QUEUE N [SIZE] [WARMUP] [CPU]"

func run(args []string) error {
	switch {
	case len(args) == 2 && args[0] == "echo":
		return echo(args[1])
	case len(args) >= 4 && len(args) <= 7 && args[0] == "ping":
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
		if err != nil || size < 1 {
			return fmt.Errorf("SIZE must be at least 1")
		}
		warmup, err := num(5, n/10)
		if err != nil {
			return err
		}
		cpu := -1
		if len(args) > 6 {
			if cpu, err = num(6, 0); err != nil {
				return err
			}
		}
		return ping(args[1], args[2], n, size, warmup, cpu)
	}
	return fmt.Errorf(usage)
}

// end is one side: a publishing channel and a consuming channel on
// connections of their own, and the consumer's queue.
type end struct {
	pub, sub   *amqp.Channel
	queue      string
	deliveries <-chan amqp.Delivery
}

func open(url string) (*end, error) {
	pc, err := amqp.Dial(url)
	if err != nil {
		return nil, err
	}
	sc, err := amqp.Dial(url)
	if err != nil {
		return nil, err
	}
	e := &end{}
	if e.pub, err = pc.Channel(); err != nil {
		return nil, err
	}
	if e.sub, err = sc.Channel(); err != nil {
		return nil, err
	}
	q, err := e.sub.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		return nil, err
	}
	e.queue = q.Name
	e.deliveries, err = e.sub.Consume(q.Name, "", true, true, false, false, nil)
	return e, err
}

func echo(url string) error {
	e, err := open(url)
	if err != nil {
		return err
	}
	fmt.Println(e.queue)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for {
		select {
		case d, ok := <-e.deliveries:
			if !ok {
				return fmt.Errorf("the consumer stopped")
			}
			if err := e.pub.Publish("", d.ReplyTo, false, false, amqp.Publishing{Body: d.Body, DeliveryMode: amqp.Transient}); err != nil {
				return err
			}
		case <-ctx.Done():
			return nil
		}
	}
}

func ping(url, queue string, n, size, warmup, cpu int) error {
	if cpu >= 0 {
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
		runtime.LockOSThread()
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			return fmt.Errorf("cannot pin to CPU %d: %w", cpu, err)
		}
	}
	e, err := open(url)
	if err != nil {
		return err
	}
	msg := make([]byte, size)
	rtt := make([]int64, 0, n)
	timer := time.NewTimer(time.Hour)
	for i := range warmup + n {
		t0 := time.Now()
		if err := e.pub.Publish("", queue, false, false, amqp.Publishing{Body: msg, DeliveryMode: amqp.Transient, ReplyTo: e.queue}); err != nil {
			return err
		}
		timer.Reset(5 * time.Second)
		select {
		case _, ok := <-e.deliveries:
			if !ok {
				return fmt.Errorf("the consumer stopped")
			}
		case <-timer.C:
			return fmt.Errorf("round trip %d: no echo within 5s (is the echo consuming from %s?)", i+1, queue)
		}
		if i >= warmup {
			rtt = append(rtt, int64(time.Since(t0)))
		}
	}
	slices.Sort(rtt)
	m := rtt[len(rtt)/2]
	if len(rtt)%2 == 0 {
		m = (rtt[len(rtt)/2-1] + rtt[len(rtt)/2]) / 2
	}
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(w, m)
	return w.Flush()
}
