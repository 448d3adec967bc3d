// Command amqp-service is the worked example of a team's RabbitMQ service:
// an RPC responder written with amqp091-go alone, that knows nothing of
// mqgate. docs/ci.md gates two builds of it with run ab through
// request-relay.
//
//	amqp-service [-url amqp://guest:guest@127.0.0.1:5672/] [-queue svc.v1] [-extra-work 0]
//
// It declares -queue (not durable, deleted when the service stops),
// consumes from it and answers every request at its reply_to with its
// correlation_id and the SHA-256 of the request's body, the RPC pattern of
// RabbitMQ's tutorials. -extra-work makes the slower build: it spends that
// long more on every request, computing.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/mqgate/mqgate/examples/internal/work"
)

func main() {
	url := flag.String("url", "amqp://guest:guest@127.0.0.1:5672/", "RabbitMQ URL")
	queue := flag.String("queue", "svc.v1", "queue the service takes requests from")
	extra := flag.Duration("extra-work", 0, "computation added to every request (the slower build), e.g. 300us")
	flag.Parse()
	if err := run(*url, *queue, *extra); err != nil {
		fmt.Fprintln(os.Stderr, "amqp-service:", err)
		os.Exit(1)
	}
}

func run(url, queue string, extra time.Duration) error {
	conn, err := amqp.Dial(url)
	if err != nil {
		return err
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return err
	}
	if _, err := ch.QueueDeclare(queue, false, true, false, false, nil); err != nil {
		return err
	}
	requests, err := ch.Consume(queue, "amqp-service", true, false, false, false, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "amqp-service: answering queue %s (extra work %v)\n", queue, extra)
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	for {
		select {
		case <-stop:
			return nil
		case d, ok := <-requests:
			if !ok {
				return fmt.Errorf("the broker closed the consumer")
			}
			err := ch.PublishWithContext(context.Background(), "", d.ReplyTo, false, false, amqp.Publishing{
				CorrelationId: d.CorrelationId,
				Body:          work.Reply(d.Body, extra),
			})
			if err != nil {
				return err
			}
		}
	}
}
