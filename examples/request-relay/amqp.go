package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// replyTo is RabbitMQ's direct reply-to pseudo-queue: replies come straight
// to this connection's consumer, without a queue of its own.
const replyTo = "amq.rabbitmq.reply-to"

// amqpRequester publishes each request to the service's queue (through the
// default exchange) with reply_to set to direct reply-to and the request's
// number as correlation_id, the RPC pattern of RabbitMQ's tutorials.
type amqpRequester struct {
	conn    *amqp.Connection
	ch      *amqp.Channel
	queue   string
	product string
}

func dialAMQP(url, queue string, wait time.Duration, back func(uint64)) (requester, error) {
	conn, err := amqp.Dial(url)
	if err != nil {
		return nil, err
	}
	if err := awaitConsumer(conn, queue, wait); err != nil {
		conn.Close()
		return nil, err
	}
	ch, err := conn.Channel()
	if err != nil {
		conn.Close()
		return nil, err
	}
	replies, err := ch.Consume(replyTo, "", true, false, false, false, nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	go func() {
		for d := range replies {
			if seq, err := strconv.ParseUint(d.CorrelationId, 10, 64); err == nil {
				back(seq)
			}
		}
	}()
	product := fmt.Sprint(conn.Properties["product"], " ", conn.Properties["version"])
	return &amqpRequester{conn: conn, ch: ch, queue: queue, product: product}, nil
}

// awaitConsumer waits, for at most wait, until the service's queue exists
// and has a consumer.
func awaitConsumer(conn *amqp.Connection, queue string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		// A passive declare of a missing queue closes the channel: one
		// channel per try.
		ch, err := conn.Channel()
		if err != nil {
			return err
		}
		q, err := ch.QueueDeclarePassive(queue, false, false, false, false, nil)
		if err == nil {
			ch.Close()
		}
		if err == nil && q.Consumers > 0 {
			return nil
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = fmt.Errorf("the queue has no consumer")
			}
			return fmt.Errorf("no service consumes from queue %s after %v: %w", queue, wait, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (r *amqpRequester) Hello() string {
	return "request-relay amqp " + r.queue + " " + r.product
}

func (r *amqpRequester) Request(seq uint64, body []byte) error {
	return r.ch.PublishWithContext(context.Background(), "", r.queue, false, false, amqp.Publishing{
		ReplyTo:       replyTo,
		CorrelationId: strconv.FormatUint(seq, 10),
		Body:          body,
	})
}

func (r *amqpRequester) Close() error {
	return r.conn.Close()
}
