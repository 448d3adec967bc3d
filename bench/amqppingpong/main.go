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
	"fmt"
	"time"

	"github.com/mqgate/mqgate/bench/internal/pingpong"
	amqp "github.com/rabbitmq/amqp091-go"
)

func main() { pingpong.Main("amqppingpong", run) }

const usage = "usage: amqppingpong echo URL | amqppingpong ping URL QUEUE N [SIZE] [WARMUP] [CPU]"

func run(args []string) error {
	switch {
	case len(args) == 2 && args[0] == "echo":
		return echo(args[1])
	case len(args) >= 4 && len(args) <= 7 && args[0] == "ping":
		p, err := pingpong.ParsePing(args, 3, 1)
		if err != nil {
			return err
		}
		return ping(args[1], args[2], p)
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
	sigs := pingpong.Signals()
	for {
		select {
		case d, ok := <-e.deliveries:
			if !ok {
				return fmt.Errorf("the consumer stopped")
			}
			if err := e.pub.Publish("", d.ReplyTo, false, false, amqp.Publishing{Body: d.Body, DeliveryMode: amqp.Transient}); err != nil {
				return err
			}
		case <-sigs:
			return nil
		}
	}
}

func ping(url, queue string, p pingpong.Ping) error {
	if err := pingpong.Pin(p.CPU); err != nil {
		return fmt.Errorf("cannot pin to CPU %d: %w", p.CPU, err)
	}
	e, err := open(url)
	if err != nil {
		return err
	}
	msg := make([]byte, p.Size)
	timer := time.NewTimer(time.Hour)
	m, err := p.Median(func(i int) (time.Duration, error) {
		t0 := time.Now()
		if err := e.pub.Publish("", queue, false, false, amqp.Publishing{Body: msg, DeliveryMode: amqp.Transient, ReplyTo: e.queue}); err != nil {
			return 0, err
		}
		timer.Reset(5 * time.Second)
		select {
		case _, ok := <-e.deliveries:
			if !ok {
				return 0, fmt.Errorf("the consumer stopped")
			}
		case <-timer.C:
			return 0, fmt.Errorf("round trip %d: no echo within 5s (is the echo consuming from %s?)", i+1, queue)
		}
		return time.Since(t0), nil
	})
	if err != nil {
		return err
	}
	_, err = fmt.Println(int64(m))
	return err
}
