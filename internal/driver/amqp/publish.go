package amqp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
)

// eventBuffer is the capacity of the confirmation and return channels
// amqp091 notifies: it abandons a notification that waits longer than five
// seconds, so they are drained by a goroutine of their own and never fill.
const eventBuffer = 4096

// ErrNacked is wrapped by the error OnAck receives for a message the
// broker refused (basic.nack), e.g. a full queue with overflow
// reject-publish.
var ErrNacked = errors.New("the broker refused the message (basic.nack)")

// publisher is the publishing link of an end. It publishes on the default
// exchange (or --amqp-exchange) with the routing key of the far end's
// queue, transient (best effort) or persistent (reliable), and tracks
// publisher confirms, transactions and returned messages.
type publisher struct {
	*link
	ctx  context.Context // publishing context; ends with the end
	mode uint8

	// Confirm mode: confirmations and returns are counted by events().
	confirms     chan amqp091.Confirmation
	returns      chan amqp091.Return
	returnedPing chan amqp091.Return // the latest return, for a pinger
	// syncReturns asks events() to count the returns already notified:
	// a transaction's returns are notified before its tx.commit-ok.
	syncReturns chan chan struct{}
	lastReturn  atomic.Pointer[amqp091.Return]
	eventsDone  chan struct{}

	sent, acked, nacked, returned atomic.Uint64
	// commits and committed count the transactions committed and their
	// messages, for SystemInfo.
	commits, committed atomic.Uint64
	progress           chan struct{} // signalled after each confirmation

	onAck atomic.Pointer[func(error)]

	// Transaction mode: messages published since the last commit.
	txMu  sync.Mutex
	inTx  int
	txErr error
}

// openPublisher connects and puts the channel in confirm mode (reliable)
// or transaction mode (--amqp-tx-size), and listens for returns when
// publishing with the mandatory flag.
func openPublisher(ctx context.Context, a address, s *settings, role string) (*publisher, error) {
	l, err := dial(ctx, a, s, role+" publishing")
	if err != nil {
		return nil, err
	}
	p := &publisher{link: l, ctx: context.Background(), mode: s.deliveryMode(), progress: make(chan struct{}, 1)}
	if err := p.setUp(); err != nil {
		l.close()
		return nil, err
	}
	return p, nil
}

func (p *publisher) setUp() error {
	if p.s.exchange != "" {
		if err := p.ch.ExchangeDeclarePassive(p.s.exchange, "direct", false, false, false, false, nil); err != nil {
			return fmt.Errorf("amqp: exchange %q on %s (--%s names an existing exchange): %w", p.s.exchange, p.url, FlagExchange, err)
		}
	}
	switch {
	case p.s.txSize > 0:
		if err := p.ch.Tx(); err != nil {
			return fmt.Errorf("amqp: tx.select on %s: %w", p.url, err)
		}
	case p.s.confirms():
		if err := p.ch.Confirm(false); err != nil {
			return fmt.Errorf("amqp: confirm.select on %s: %w", p.url, err)
		}
		p.confirms = p.ch.NotifyPublish(make(chan amqp091.Confirmation, eventBuffer))
	}
	if p.s.mandatory {
		p.returns = p.ch.NotifyReturn(make(chan amqp091.Return, eventBuffer))
		p.returnedPing = make(chan amqp091.Return, 1)
		p.syncReturns = make(chan chan struct{})
	}
	if p.confirms != nil || p.returns != nil {
		p.eventsDone = make(chan struct{})
		go p.events()
	}
	return nil
}

// events counts confirmations and returns until the channel closes.
// RabbitMQ sends a mandatory message's basic.return before its basic.ack,
// and amqp091 notifies both from its reader in that order, so returns are
// drained before each confirmation is counted: once every confirmation is
// in, every return is counted.
func (p *publisher) events() {
	defer close(p.eventsDone)
	confirms, returns := p.confirms, p.returns
	for confirms != nil || returns != nil {
		select {
		case c, ok := <-confirms:
			if !ok {
				confirms = nil
				continue
			}
			p.drainReturns(returns)
			p.confirmed(c.Ack)
		case r, ok := <-returns:
			if !ok {
				returns = nil
				continue
			}
			p.countReturn(r)
		case done := <-p.syncReturns:
			p.drainReturns(returns)
			close(done)
		}
	}
}

// countNotifiedReturns returns once every return amqp091 has notified so
// far is counted (events() drains them); it does nothing without the
// mandatory flag or once the channel closed.
func (p *publisher) countNotifiedReturns() {
	if p.syncReturns == nil {
		return
	}
	done := make(chan struct{})
	select {
	case p.syncReturns <- done:
		<-done
	case <-p.eventsDone:
	}
}

func (p *publisher) drainReturns(returns chan amqp091.Return) {
	for {
		select {
		case r, ok := <-returns:
			if !ok {
				return
			}
			p.countReturn(r)
		default:
			return
		}
	}
}

func (p *publisher) countReturn(r amqp091.Return) {
	if r.Type == markType {
		return // a role's Confirm, not a message
	}
	p.returned.Add(1)
	select {
	case p.returnedPing <- r:
	default:
	}
}

func (p *publisher) confirmed(ack bool) {
	var err error
	if !ack {
		err = fmt.Errorf("amqp: %s: %w", p.url, ErrNacked)
	}
	if f := p.onAck.Load(); f != nil {
		(*f)(err)
	}
	// Counted after the callback returned: WaitAcks returns on these
	// counts, and its caller reads what the callback counted.
	if ack {
		p.acked.Add(1)
	} else {
		p.nacked.Add(1)
	}
	select {
	case p.progress <- struct{}{}:
	default:
	}
}

// publish sends body to the queue routingKey (through the exchange when
// one is set) and commits when a transaction is full.
func (p *publisher) publish(routingKey, replyTo string, body []byte) error {
	return p.send(p.s.exchange, routingKey, amqp091.Publishing{Body: body, DeliveryMode: p.mode, ReplyTo: replyTo})
}

// send publishes msg through exchange under routingKey, counting it for
// the confirmations or the transaction.
func (p *publisher) send(exchange, routingKey string, msg amqp091.Publishing) error {
	if err := p.failed(); err != nil {
		return err
	}
	err := p.ch.PublishWithContext(p.ctx, exchange, routingKey, p.s.mandatory, false, msg)
	if err != nil {
		return p.opErr("publish", err)
	}
	if p.s.txSize == 0 {
		p.sent.Add(1)
		return nil
	}
	p.txMu.Lock()
	defer p.txMu.Unlock()
	p.inTx++
	if p.inTx >= p.s.txSize {
		return p.commitLocked()
	}
	return nil
}

// commitLocked commits the open transaction: its messages are routed now
// and acknowledged to OnAck (or refused, when the commit fails).
func (p *publisher) commitLocked() error {
	n := p.inTx
	if n == 0 {
		return p.txErr
	}
	p.inTx = 0
	err := p.ch.TxCommit()
	if err != nil {
		err = p.opErr("tx.commit", err)
		p.txErr = err
	} else {
		p.countNotifiedReturns()
		p.commits.Add(1)
		p.committed.Add(uint64(n))
	}
	p.sent.Add(uint64(n))
	f := p.onAck.Load()
	for range n {
		if err == nil {
			p.acked.Add(1)
		} else {
			p.nacked.Add(1)
		}
		if f != nil {
			(*f)(err)
		}
	}
	return err
}

// info describes the broker and what this publisher committed.
func (p *publisher) info() meta.SystemInfo {
	return p.infoTx(txCount{p.commits.Load(), p.committed.Load()})
}

func (p *publisher) returnErr(r amqp091.Return) error {
	return fmt.Errorf("amqp: the broker returned a message published to %q as unroutable (%d %s): the queue it was sent to no longer exists", r.RoutingKey, r.ReplyCode, r.ReplyText)
}

// returnedErr reports the messages the broker returned so far (with
// --amqp-mandatory), naming the latest one's routing key and reason.
func (p *publisher) returnedErr() error {
	n := p.returned.Load()
	if n == 0 {
		return nil
	}
	var r amqp091.Return
	select {
	case r = <-p.returnedPing:
		p.lastReturn.Store(&r)
	default:
		if last := p.lastReturn.Load(); last != nil {
			r = *last
		}
	}
	return fmt.Errorf("amqp: the broker returned %d message(s) as unroutable (basic.return, --%s), the latest published to %q: %d %s", n, FlagMandatory, r.RoutingKey, r.ReplyCode, r.ReplyText)
}

// OnAck implements driver.AckSender: f is called once per message from
// the confirmation goroutine (confirms) or from Send and WaitAcks when a
// transaction commits.
func (p *publisher) OnAck(f func(error)) { p.onAck.Store(&f) }

// WaitAcks implements driver.AckSender: it commits an open transaction,
// or waits until every published message was confirmed.
func (p *publisher) WaitAcks(deadline time.Time) error {
	if p.s.txSize > 0 {
		p.txMu.Lock()
		defer p.txMu.Unlock()
		if err := p.commitLocked(); err != nil {
			return err
		}
		return p.returnedErr()
	}
	if p.confirms == nil {
		return nil
	}
	if err := p.waitConfirmed(p.sent.Load, deadline); err != nil {
		return err
	}
	return p.returnedErr()
}

// waitConfirmed waits until the broker confirmed or refused the first
// upTo() messages published, or deadline passes, or the link breaks
// before; the publisher uses confirms.
func (p *publisher) waitConfirmed(upTo func() uint64, deadline time.Time) error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		sent, done := upTo(), p.acked.Load()+p.nacked.Load()
		if done >= sent {
			return nil
		}
		if err := p.failed(); err != nil {
			return fmt.Errorf("%d of %d messages unconfirmed: %w", sent-done, sent, err)
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return fmt.Errorf("amqp: %d of %d messages unconfirmed on %s: %w", sent-done, sent, p.url, driver.ErrTimeout)
		}
		timer.Reset(wait)
		select {
		case <-p.progress:
		case <-p.eventsDone:
			// The channel closed: no confirmation will come any more.
			if done := p.acked.Load() + p.nacked.Load(); done < sent {
				err := p.failed()
				if err == nil {
					err = fmt.Errorf("amqp: the publishing channel to %s closed: %w", p.url, driver.ErrClosed)
				}
				return fmt.Errorf("%d of %d messages unconfirmed: %w", sent-done, sent, err)
			}
		case <-timer.C:
		case e, ok := <-p.connClosed:
			p.broke("connection", e, ok)
		case e, ok := <-p.chClosed:
			p.broke("channel", e, ok)
		}
	}
}

// counters are what the publisher counted: returned messages as dropped
// (the broker discarded them), refused ones as errors.
func (p *publisher) counters() driver.Counters {
	return driver.Counters{Dropped: p.returned.Load(), Errors: p.nacked.Load()}
}

// close closes the link and waits for the event goroutine.
func (p *publisher) close() error {
	err := p.link.close()
	if p.eventsDone != nil {
		<-p.eventsDone
	}
	return err
}
