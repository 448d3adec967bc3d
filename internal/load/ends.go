package load

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// Links says how to open the ends of one sub-experiment.
type Links struct {
	Transport driver.StreamTransport
	// URL is the broker's, for broker transports (driver.IsBroker); empty
	// for sockets and in-process links.
	URL string
	// Listen is where socket subscribers listen (default "127.0.0.1:0").
	Listen string
	// Publish and Subscribe are the ends' options; their Topic is the
	// sub-experiment's base topic (each topic of a topology and payload
	// gets a name of its own derived from it).
	Publish, Subscribe driver.Options
	// ConnectTimeout bounds opening each end (default 5 s).
	ConnectTimeout time.Duration
}

// broker reports whether the ends meet at a broker.
func (l Links) broker() bool { return driver.IsBroker(l.Transport) }

// perPair reports whether every publisher needs a subscriber link of its
// own: in-process queues have one producer each.
func (l Links) perPair() bool { return driver.IsProcessBound(l.Transport) }

// Check refuses tp on a transport that cannot carry it: several
// subscribers of a round-robin topic must compete for its messages
// (driver.CanGroup), several of another topic each get every one
// (driver.FanOutChecker).
func (l Links) Check(tp Topology) error {
	if !tp.Shared() {
		if fc, ok := l.Transport.(driver.FanOutChecker); ok {
			return fc.CheckFanOut(tp.Subscribers, tp.Topics, l.Subscribe.Params)
		}
		return nil
	}
	if tp.Subscribers <= tp.Topics {
		return nil // a subscriber per topic
	}
	if err := driver.CanGroup(l.Transport, l.Subscribe); err != nil {
		return fmt.Errorf("%s: the subscribers of a topic must share its messages, each message to one of them, but %w", tp, err)
	}
	return nil
}

// TopicName is the name of topic i of a payload: the base topic, the
// payload size and the topic index, so that a late message of one payload
// never reaches the subscribers of the next.
func TopicName(base string, payload, i int) string {
	if base == "" {
		base = "mqgate-load"
	}
	return fmt.Sprintf("%s-%d-%d", base, payload, i)
}

// SubLink is one receiving link of subscriber Sub.
type SubLink struct {
	Sub int
	R   driver.Subscriber
}

// PubEnd is publisher Pub's links: one to the broker, or one per
// subscriber of its topic on a point-to-point link (each message is sent on
// each).
type PubEnd struct {
	Pub     int
	Senders []driver.Publisher
}

// Ends are the open links of one payload.
type Ends struct {
	Subs []SubLink
	Pubs []PubEnd
}

// Pair returns the one publisher and the one subscriber of one-way ends;
// what names the mode in the error. The publisher's acknowledgements, if
// it has any, are counted in acks from the first Send on, or discarded
// when acks is nil.
func (e *Ends) Pair(what string, acks *driver.AckCount) (driver.Publisher, driver.Subscriber, error) {
	if len(e.Pubs) != 1 || len(e.Pubs[0].Senders) != 1 || len(e.Subs) != 1 {
		return nil, nil, errors.New(what + ": expected one publisher and one subscriber")
	}
	pub := e.Pubs[0].Senders[0]
	if as, ok := pub.(driver.AckSender); ok {
		on := func(error) {}
		if acks != nil {
			on = acks.On
		}
		as.OnAck(on)
	}
	return pub, e.Subs[0].R, nil
}

// Run runs publish and subscribe, the two ends of a one-way measurement,
// on goroutines of their own until both return. When ctx is cancelled
// first, it calls halt and closes the links, which unblocks a Send or
// Receive in progress, waits for both, and reports true.
func (e *Ends) Run(ctx context.Context, halt, publish, subscribe func()) (interrupted bool) {
	var wg sync.WaitGroup
	wg.Go(publish)
	wg.Go(subscribe)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return false
	case <-ctx.Done():
		halt()
		e.Close()
		<-done
		return true
	}
}

// Close closes every link.
func (e *Ends) Close() {
	for _, p := range e.Pubs {
		for _, s := range p.Senders {
			s.Close()
		}
	}
	for _, s := range e.Subs {
		s.R.Close()
	}
}

// Open opens every subscriber, then every publisher, of tp for payload,
// each within ConnectTimeout. On error nothing is left open.
func (l Links) Open(ctx context.Context, tp Topology, payload int) (_ *Ends, err error) {
	o := &opener{l: l, ctx: ctx, tp: tp, payload: payload, e: &Ends{}}
	defer func() {
		if err != nil {
			o.e.Close()
		}
	}()
	o.timeout = l.ConnectTimeout
	if o.timeout <= 0 {
		o.timeout = 5 * time.Second
	}
	o.listen = cmp.Or(l.Listen, "127.0.0.1:0")
	if l.perPair() {
		o.listen = ""
	}
	addrs, err := o.openSubscribers()
	if err != nil {
		return nil, err
	}
	if err := o.openPublishers(addrs); err != nil {
		return nil, err
	}
	return o.e, nil
}

// opener opens the ends of Links.Open into e.
type opener struct {
	l       Links
	ctx     context.Context
	tp      Topology
	payload int
	timeout time.Duration
	listen  string // where a point-to-point subscriber listens
	e       *Ends
}

// step runs f within the timeout; what names the link in its error.
func (o *opener) step(what string, f func(context.Context) error) error {
	cctx, cancel := context.WithTimeout(o.ctx, o.timeout)
	defer cancel()
	if err := f(cctx); err != nil {
		if o.ctx.Err() != nil {
			return o.ctx.Err()
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// subOpts are the options of a subscriber of topic.
func (o *opener) subOpts(topic int) driver.Options {
	opt := o.l.Subscribe
	opt.Topic = TopicName(o.l.Subscribe.Topic, o.payload, topic)
	if o.tp.Shared() && len(o.tp.SubscribersOf(topic)) > 1 {
		opt.Group = opt.Topic
	}
	return opt
}

// pubOpts are the options of a publisher of topic.
func (o *opener) pubOpts(topic int) driver.Options {
	opt := o.l.Publish
	opt.Topic = TopicName(o.l.Publish.Topic, o.payload, topic)
	return opt
}

// openSubscribers opens every subscriber's links. addrs[j][i] is where
// publisher i reaches subscriber j (per pair), or addrs[j][-1] for every
// publisher (point to point); none with a broker.
func (o *opener) openSubscribers() ([]map[int]string, error) {
	l, tp, e := o.l, o.tp, o.e
	addrs := make([]map[int]string, tp.Subscribers)
	for j := range tp.Subscribers {
		addrs[j] = map[int]string{}
		topic := tp.SubTopic[j]
		at, pairs := o.listen, []int{-1}
		if l.broker() {
			at = l.URL
		} else if l.perPair() {
			pairs = tp.PublishersOf(topic)
		}
		for _, i := range pairs {
			if err := o.step(fmt.Sprintf("subscriber %d", j), func(c context.Context) error {
				s, err := l.Transport.Subscribe(c, at, o.subOpts(topic))
				if err == nil {
					e.Subs = append(e.Subs, SubLink{Sub: j, R: s})
					if !l.broker() {
						addrs[j][i] = s.Addr()
					}
				}
				return err
			}); err != nil {
				return nil, err
			}
		}
	}
	return addrs, nil
}

// openPublishers opens every publisher's links: to the broker, or to the
// subscribers of its topic at addrs.
func (o *opener) openPublishers(addrs []map[int]string) error {
	l, tp, e := o.l, o.tp, o.e
	for i := range tp.Publishers {
		topic := tp.PubTopic[i]
		pe := PubEnd{Pub: i}
		targets := []string{l.URL}
		if !l.broker() {
			targets = nil
			key := -1 // the address of every publisher (point to point), else of this one (per pair)
			if l.perPair() {
				key = i
			}
			for _, j := range tp.SubscribersOf(topic) {
				targets = append(targets, addrs[j][key])
			}
		}
		for _, addr := range targets {
			if err := o.step(fmt.Sprintf("publisher %d", i), func(c context.Context) error {
				p, err := l.Transport.Publish(c, addr, o.pubOpts(topic))
				if err == nil {
					pe.Senders = append(pe.Senders, p)
				}
				return err
			}); err != nil {
				e.Pubs = append(e.Pubs, pe)
				return err
			}
		}
		e.Pubs = append(e.Pubs, pe)
	}
	return nil
}

// errBroken wraps the error of a link that failed during a measurement.
var errBroken = errors.New("link failed")
