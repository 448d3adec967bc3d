package amqp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/mqgate/mqgate/internal/driver"
)

// consumer is the consuming link of an end: an exclusive, auto-delete
// queue named by the broker (or by the caller), and one consumer on it.
type consumer struct {
	*link
	queue      string
	deliveries <-chan amqp091.Delivery
	cancelled  chan string
	done       chan struct{} // closed when the end is closed
	timer      *time.Timer
	// inTx counts the acknowledgements of the open consumer transaction
	// (--amqp-consumer-tx-size); one goroutine acknowledges.
	inTx int
}

// openConsumer connects, declares the queue (name "" lets the broker name
// it), binds it to the exchange when one is set (routing key bindKey, or
// the queue's name when empty) and starts consuming: auto-ack when best
// effort, manual acks with the prefetch limit when reliable.
func openConsumer(ctx context.Context, a address, s *settings, role, name, bindKey string, done chan struct{}) (*consumer, error) {
	l, err := dial(ctx, a, s, role+" consuming")
	if err != nil {
		return nil, err
	}
	c := &consumer{link: l, done: done}
	if err := c.setUp(name, bindKey); err != nil {
		l.close()
		return nil, err
	}
	c.timer = time.NewTimer(time.Hour)
	c.timer.Stop()
	return c, nil
}

func (c *consumer) setUp(name, bindKey string) error {
	// Exclusive: the queue goes with its connection, so an end that dies
	// leaves nothing behind; auto-delete: it goes with its consumer too.
	// A group's consumers share a queue: it goes with the last of them.
	shared := c.s.group != ""
	q, err := c.ch.QueueDeclare(name, c.s.durable, true, !shared, false, nil)
	if err != nil {
		var ae *amqp091.Error
		if errors.As(err, &ae) && ae.Code == amqp091.ResourceLocked {
			return fmt.Errorf("amqp: queue %q on %s belongs to another connection (another echo or subscriber of this topic?): %w", name, c.url, err)
		}
		return fmt.Errorf("amqp: declaring queue %q on %s: %w", name, c.url, err)
	}
	c.queue = q.Name
	if c.s.exchange != "" {
		if err := c.ch.QueueBind(q.Name, cmp.Or(bindKey, q.Name), c.s.exchange, false, nil); err != nil {
			return fmt.Errorf("amqp: binding queue %s to exchange %q on %s (does the exchange exist? --%s): %w", q.Name, c.s.exchange, c.url, FlagExchange, err)
		}
	}
	if !c.s.autoAck && c.s.prefetch > 0 {
		if err := c.ch.Qos(c.s.prefetch, 0, false); err != nil {
			return fmt.Errorf("amqp: basic.qos %d on %s: %w", c.s.prefetch, c.url, err)
		}
	}
	if c.s.consumerTxSize > 0 {
		if err := c.ch.Tx(); err != nil {
			return fmt.Errorf("amqp: tx.select on the consuming channel of %s: %w", c.url, err)
		}
	}
	c.cancelled = c.ch.NotifyCancel(make(chan string, 1))
	c.deliveries, err = c.ch.Consume(q.Name, c.tag(), c.s.autoAck, !shared, false, false, nil)
	if err != nil {
		return fmt.Errorf("amqp: consuming from %s on %s: %w", q.Name, c.url, err)
	}
	return nil
}

// tag is the consumer's tag on its channel.
func (c *consumer) tag() string { return "mqgate " + c.role }

// receive waits for the next delivery until deadline (zero: no deadline)
// and copies its body into buf. amqp091 hands deliveries over on a Go
// channel (fed by its connection reader through one buffering goroutine);
// the arrival time is read as a delivery comes off that channel. A
// reliable consumer acknowledges the delivery before returning.
//
// pub, when not nil, is the end's publishing link: its failure and its
// returned messages end the wait too.
func (c *consumer) receive(buf []byte, deadline time.Time, pub *publisher) (int, time.Time, error) {
	if err := c.broken(pub); err != nil {
		return 0, time.Time{}, err
	}
	var (
		d  amqp091.Delivery
		ok bool
	)
	select {
	case d, ok = <-c.deliveries:
	default:
		var timeout <-chan time.Time
		if !deadline.IsZero() {
			wait := time.Until(deadline)
			if wait <= 0 {
				return 0, time.Time{}, c.timeoutErr()
			}
			c.timer.Reset(wait)
			defer c.timer.Stop()
			timeout = c.timer.C
		}
		var (
			pubConn, pubCh chan *amqp091.Error
			returned       chan amqp091.Return
		)
		if pub != nil {
			pubConn, pubCh, returned = pub.connClosed, pub.chClosed, pub.returnedPing
		}
		select {
		case d, ok = <-c.deliveries:
		case <-timeout:
			return 0, time.Time{}, c.timeoutErr()
		case <-c.done:
			return 0, time.Time{}, c.closedErr()
		case e, ok := <-c.connClosed:
			return 0, time.Time{}, c.broke("connection", e, ok)
		case e, ok := <-c.chClosed:
			return 0, time.Time{}, c.broke("channel", e, ok)
		case tag, ok := <-c.cancelled:
			return 0, time.Time{}, c.cancelErr(tag, ok)
		case e, ok := <-pubConn:
			return 0, time.Time{}, pub.broke("connection", e, ok)
		case e, ok := <-pubCh:
			return 0, time.Time{}, pub.broke("channel", e, ok)
		case r := <-returned:
			return 0, time.Time{}, pub.returnErr(r)
		}
	}
	at := time.Now()
	if !ok {
		return 0, time.Time{}, c.stopped()
	}
	if err := c.ack(d); err != nil {
		return 0, time.Time{}, err
	}
	if len(d.Body) > len(buf) {
		return 0, time.Time{}, fmt.Errorf("amqp: a %d-byte message does not fit the %d-byte receive buffer", len(d.Body), len(buf))
	}
	return copy(buf, d.Body), at, nil
}

// ack acknowledges d unless the consumer is in auto-ack mode; in a
// consumer transaction the acknowledgement takes effect when the
// transaction of --amqp-consumer-tx-size acknowledgements commits.
func (c *consumer) ack(d amqp091.Delivery) error {
	if c.s.autoAck {
		return nil
	}
	if err := c.ch.Ack(d.DeliveryTag, false); err != nil {
		return c.opErr("acknowledging a delivery", err)
	}
	if c.s.consumerTxSize == 0 {
		return nil
	}
	if c.inTx++; c.inTx < c.s.consumerTxSize {
		return nil
	}
	c.inTx = 0
	if err := c.ch.TxCommit(); err != nil {
		return c.opErr("committing acknowledgements (tx.commit)", err)
	}
	return nil
}

// broken returns the error that ends every receive once the end is
// closed or a link broke.
func (c *consumer) broken(pub *publisher) error {
	select {
	case <-c.done:
		return c.closedErr()
	default:
	}
	if err := c.failed(); err != nil {
		return err
	}
	if pub != nil {
		return pub.failed()
	}
	return nil
}

func (c *consumer) timeoutErr() error {
	return fmt.Errorf("amqp: nothing arrived in queue %s: %w", c.queue, driver.ErrTimeout)
}

func (c *consumer) closedErr() error {
	return fmt.Errorf("amqp: the %s is closed: %w", c.role, driver.ErrClosed)
}

func (c *consumer) cancelErr(tag string, ok bool) error {
	if !ok {
		return c.stopped()
	}
	return c.fail(fmt.Errorf("amqp: the broker cancelled consumer %q of queue %s on %s (was the queue deleted?)",
		tag, c.queue, c.url))
}

// stopped explains why the delivery channel was closed.
func (c *consumer) stopped() error {
	if err := c.broken(nil); err != nil {
		return err
	}
	select {
	case tag, ok := <-c.cancelled:
		return c.cancelErr(tag, ok)
	default:
	}
	return c.fail(fmt.Errorf("amqp: the consumer of queue %s on %s stopped: %w", c.queue, c.url, driver.ErrClosed))
}
