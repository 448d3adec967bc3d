package mqtt

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	paho "github.com/eclipse/paho.mqtt.golang"
	"github.com/eclipse/paho.mqtt.golang/packets"
)

// Library311 is the client library of MQTT 3.1.1.
const Library311 = "github.com/eclipse/paho.mqtt.golang"

// disconnectQuiesce is how long closing waits for the DISCONNECT packet to
// be written, in milliseconds.
const disconnectQuiesce = 250

// publishTimeout bounds how long a publish waits for the library's writer
// and how long one packet's write may take (paho.mqtt.golang's
// WriteTimeout, 30 s by default and otherwise unbounded writes): when the
// broker drops the connection while a publish is handed over, the library
// may leave the publish waiting until then.
const publishTimeout = 10 * time.Second

// defaultConnectTimeout bounds the MQTT handshake when Dial's context has
// no deadline.
const defaultConnectTimeout = 30 * time.Second

// client311 is an MQTT 3.1.1 connection through paho.mqtt.golang, with
// ordered delivery (handlers run one at a time on the library's router
// goroutine), a clean session and no reconnection.
type client311 struct {
	base
	cli      paho.Client
	tokens   chan paho.Token // publishes whose acknowledgement acks awaits
	inflight chan struct{}   // one element per token in tokens
	stop     chan struct{}
}

var _ client = (*client311)(nil)

func connect311(ctx context.Context, s *settings, role string, acks *ackTracker) (*client311, error) {
	c := &client311{base: newBase(s, role, acks), stop: make(chan struct{})}
	conn, err := c.dialBroker(ctx, false)
	if err != nil {
		return nil, err
	}
	timeout := defaultConnectTimeout
	if d, ok := ctx.Deadline(); ok {
		timeout = time.Until(d)
	}
	ka := time.Duration(s.keepAlive) * time.Second
	o := paho.NewClientOptions().
		AddBroker("tcp://" + s.url.Host).
		SetClientID(c.id).
		SetProtocolVersion(v311). // no fallback to 3.1
		SetCleanSession(true).
		SetOrderMatters(true).
		SetAutoReconnect(false).
		SetConnectRetry(false).
		SetResumeSubs(false).
		SetKeepAlive(ka).
		SetPingTimeout(ka).
		SetConnectTimeout(timeout).
		SetWriteTimeout(publishTimeout).
		SetConnectionLostHandler(func(_ paho.Client, err error) { c.lost(err) }).
		SetCustomOpenConnectionFn(func(*url.URL, paho.ClientOptions) (net.Conn, error) {
			if conn == nil {
				return nil, errors.New("reconnection is off")
			}
			cn := conn
			conn = nil
			return cn, nil
		})
	if s.hasUser {
		o.SetUsername(s.username)
	}
	if s.hasPassword {
		o.SetPassword(s.password)
	}
	c.cli = paho.NewClient(o)
	raw := conn
	stop := context.AfterFunc(ctx, func() { raw.Close() })
	tok := c.cli.Connect()
	<-tok.Done()
	stop()
	if err := tok.Error(); err != nil {
		raw.Close()
		if rc := tok.(*paho.ConnectToken).ReturnCode(); rc > packets.Accepted && rc < packets.ErrNetworkError {
			return nil, fmt.Errorf("mqtt: the broker at %s refused the connection of client %s: CONNACK return code %d (%s)",
				s.redacted, c.id, rc, cmp.Or(packets.ConnackReturnCodes[rc], "unknown"))
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return nil, s.connectErr(err)
	}
	if acks != nil && s.qos > 0 {
		c.tokens = make(chan paho.Token, s.maxInflight)
		c.inflight = make(chan struct{}, s.maxInflight)
		go c.settleTokens()
	}
	return c, nil
}

// publish hands the message to the library's writer goroutine, which
// writes it later: a payload the caller may reuse is copied. MQTT 3.1.1
// has no flow control, so a tracked publish first waits until fewer than
// maxInflight messages await their acknowledgement.
func (c *client311) publish(topic string, payload []byte, owned bool) error {
	if err := c.err(); err != nil {
		return err
	}
	tracked := c.tokens != nil
	if tracked {
		select {
		case c.inflight <- struct{}{}:
		case <-c.lostCh:
			return c.err()
		}
		if err := c.acks.add(); err != nil {
			<-c.inflight
			return err
		}
	}
	if !owned {
		payload = append([]byte(nil), payload...)
	}
	tok := c.cli.Publish(topic, c.s.qos, false, payload)
	select {
	case <-tok.Done():
		// Not connected, or no packet identifier left: failed at once.
		if err := tok.Error(); err != nil {
			if tracked {
				<-c.inflight
				if !c.acks.unadd() {
					return nil // refused through OnAck
				}
			}
			return c.opErr("publishing to "+topic, err)
		}
	default:
	}
	if tracked {
		select {
		case c.tokens <- tok:
		case <-c.stop:
			return c.err()
		}
	}
	return nil
}

// settleTokens reports acknowledgements in publishing order: the token of
// a QoS 1 publish completes on PUBACK, of QoS 2 on PUBCOMP.
func (c *client311) settleTokens() {
	for {
		select {
		case tok := <-c.tokens:
			select {
			case <-tok.Done():
				<-c.inflight
				err := tok.Error()
				if err != nil {
					err = fmt.Errorf("mqtt: no acknowledgement from %s: %w", c.s.redacted, err)
				}
				c.acks.settle(err)
			case <-c.stop:
				return
			}
		case <-c.stop:
			return
		}
	}
}

func (c *client311) subscribe(ctx context.Context, topic string, qos byte, h func([]byte)) error {
	tok := c.cli.Subscribe(topic, qos, func(_ paho.Client, m paho.Message) { h(m.Payload()) })
	if err := c.wait(ctx, tok, "subscribing to "+topic); err != nil {
		return err
	}
	granted, ok := tok.(*paho.SubscribeToken).Result()[topic]
	switch {
	case !ok:
		return fmt.Errorf("mqtt: subscribing to %s on %s: no SUBACK for the topic", topic, c.s.redacted)
	case granted >= 0x80:
		return fmt.Errorf("mqtt: the broker at %s refused the subscription of client %s to %s: SUBACK return code 0x%02X (failure)", c.s.redacted, c.id, topic, granted)
	case granted < qos:
		return fmt.Errorf("mqtt: the broker at %s granted QoS %d for %s, not the QoS %d asked for", c.s.redacted, granted, topic, qos)
	}
	return nil
}

func (c *client311) unsubscribe(ctx context.Context, topic string) error {
	return c.wait(ctx, c.cli.Unsubscribe(topic), "unsubscribing from "+topic)
}

// wait waits for tok, ctx or the end of the connection.
func (c *client311) wait(ctx context.Context, tok paho.Token, what string) error {
	select {
	case <-tok.Done():
		if err := tok.Error(); err != nil {
			return fmt.Errorf("mqtt: %s on %s: %w", what, c.s.redacted, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("mqtt: %s on %s: %w", what, c.s.redacted, ctx.Err())
	case <-c.lostCh:
		return c.err()
	}
}

func (c *client311) close() error {
	if !c.startClose() {
		return nil
	}
	close(c.stop)
	c.cli.Disconnect(disconnectQuiesce)
	return nil
}
