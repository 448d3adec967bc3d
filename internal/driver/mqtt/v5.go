package mqtt

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/eclipse/paho.golang/packets"
	"github.com/eclipse/paho.golang/paho"
	"github.com/eclipse/paho.golang/paho/session"
	"github.com/eclipse/paho.golang/paho/session/state"

	"github.com/mqgate/mqgate/internal/driver"
)

// Library5 is the client library of MQTT 5.
const Library5 = "github.com/eclipse/paho.golang"

// client5 is an MQTT 5 connection through paho.golang's paho.Client (not
// autopaho, which reconnects): clean start, session expiry 0, handlers
// called one at a time on the library's router goroutine. QoS 0 messages
// are written by the publishing goroutine itself; QoS 1 and 2 ones are
// added to the session state and written without waiting for their
// acknowledgement, which the session wrapper counts.
type client5 struct {
	base
	cli    *paho.Client
	conn   *batchConn
	pinger *pinger
	pub    paho.Publish // reused: each client publishes from one goroutine

	mu       sync.RWMutex
	handlers map[string]func([]byte)
	other    func(*paho.Publish) // what no handler takes: a role's filters and replies

	connack   *paho.Connack
	maxPacket uint32 // the broker's Maximum Packet Size, 0 for none
}

var _ client = (*client5)(nil)

func connect5(ctx context.Context, s *settings, role string, acks *ackTracker) (*client5, error) {
	c := &client5{base: newBase(s, role, acks), handlers: map[string]func([]byte){}, pinger: &pinger{DefaultPinger: paho.NewDefaultPinger()}}
	conn, err := c.dialBroker(ctx, true)
	if err != nil {
		return nil, err
	}
	c.conn = conn.(*batchConn)
	c.cli = paho.NewClient(paho.ClientConfig{
		ClientID:          c.id,
		Conn:              conn,
		PacketTimeout:     s.packetTimeout,
		PingHandler:       c.pinger,
		Session:           &session5{SessionManager: state.New(discard{}, discard{}), acks: acks},
		OnPublishReceived: []func(paho.PublishReceived) (bool, error){c.route},
		OnClientError:     c.lost,
		OnServerDisconnect: func(d *paho.Disconnect) {
			c.lost(fmt.Errorf("the broker sent DISCONNECT with reason code 0x%02X (%s)%s",
				d.ReasonCode, (&packets.Disconnect{ReasonCode: d.ReasonCode}).Reason(), reasonString(d.Properties)))
		},
	})
	cp := &paho.Connect{
		ClientID:   c.id,
		KeepAlive:  s.keepAlive,
		CleanStart: true,
	}
	if s.hasUser {
		cp.Username, cp.UsernameFlag = s.username, true
	}
	if s.hasPassword {
		cp.Password, cp.PasswordFlag = []byte(s.password), true
	}
	ca, err := c.cli.Connect(ctx, cp)
	if err != nil {
		conn.Close()
		if ca != nil && ca.ReasonCode >= 0x80 {
			why := ""
			if ca.Properties != nil && ca.Properties.ReasonString != "" {
				why = ": " + ca.Properties.ReasonString
			}
			return nil, fmt.Errorf("mqtt: the broker at %s refused the connection of client %s: CONNACK reason code 0x%02X (%s)%s",
				s.redacted, c.id, ca.ReasonCode, (&packets.Connack{ReasonCode: ca.ReasonCode}).Reason(), why)
		}
		return nil, s.connectErr(err)
	}
	c.connack = ca
	if ca.Properties != nil && ca.Properties.MaximumPacketSize != nil {
		c.maxPacket = *ca.Properties.MaximumPacketSize
	}
	c.pub.QoS = s.qos
	return c, nil
}

func reasonString(p *paho.DisconnectProperties) string {
	if p == nil || p.ReasonString == "" {
		return ""
	}
	return ": " + p.ReasonString
}

// route passes a message to its topic's handler, or else to other.
func (c *client5) route(pr paho.PublishReceived) (bool, error) {
	c.mu.RLock()
	h, other := c.handlers[pr.Packet.Topic], c.other
	c.mu.RUnlock()
	switch {
	case h != nil:
		h(pr.Packet.Payload)
	case other != nil:
		other(pr.Packet)
	}
	return true, nil
}

// packetSize is the size of a PUBLISH of payload to topic without
// properties.
func packetSize(topic string, qos byte, payload int) int {
	rem := 2 + len(topic) + 1 + payload
	if qos > 0 {
		rem += 2
	}
	n := 1 + 1
	for r := rem; r >= 128; r >>= 7 {
		n++
	}
	return n + rem
}

// publish writes the message before it returns (QoS 0), or adds it to the
// session state and writes it (QoS 1 and 2): payload is not kept.
func (c *client5) publish(topic string, payload []byte, _ bool) error {
	if err := c.err(); err != nil {
		return err
	}
	if c.maxPacket > 0 {
		if n := packetSize(topic, c.s.qos, len(payload)); n > int(c.maxPacket) {
			return fmt.Errorf("mqtt: a %d-byte message to %s is a %d-byte PUBLISH, above the Maximum Packet Size of %d bytes the broker at %s declared",
				len(payload), topic, n, c.maxPacket, c.s.redacted)
		}
	}
	tracked := c.acks != nil && c.s.qos > 0
	if tracked {
		if err := c.acks.add(); err != nil {
			return err
		}
	}
	c.pub.Topic = topic
	c.pub.Payload = payload
	var err error
	if c.s.qos == 0 {
		_, err = c.cli.Publish(context.Background(), &c.pub)
	} else {
		_, err = c.cli.PublishWithOptions(context.Background(), &c.pub, paho.PublishOptions{Method: paho.PublishMethod_AsyncSend})
	}
	c.pub.Payload = nil
	if err == nil {
		err = c.conn.writeErr()
	}
	if err != nil {
		if tracked && !c.acks.unadd() {
			return nil // refused through OnAck
		}
		return c.opErr("publishing to "+topic, err)
	}
	return nil
}

// ping sends a PINGREQ and waits within timeout for the broker's PINGRESP
// to it. A broker reads a connection in order and answers a PINGREQ once
// it read it, so the answer says that it read every packet sent before.
func (c *client5) ping(timeout time.Duration) error {
	rank, err := c.conn.ping()
	if err != nil {
		return c.opErr("sending PINGREQ", err)
	}
	c.pinger.PacketSent()
	switch err := c.pinger.resps.Wait(rank, timeout, c.done()); err {
	case nil:
		return nil
	case driver.ErrClosed:
		return c.err()
	default:
		return fmt.Errorf("mqtt: no PINGRESP from %s within %v: %w", c.s.redacted, timeout, driver.ErrTimeout)
	}
}

// pinger is paho.golang's keep-alive pinger with the PINGRESPs counted,
// so that a client can wait for the answer to a PINGREQ of its own
// (client5.ping): the keep-alive's PINGREQs are counted with the others
// as they are sent (batchConn).
type pinger struct {
	*paho.DefaultPinger
	resps driver.Tally
}

// PingResp counts a PINGRESP, called by paho.golang's reading goroutine
// in the order they arrive.
func (p *pinger) PingResp() {
	p.DefaultPinger.PingResp()
	p.resps.Add()
}

func (c *client5) subscribe(ctx context.Context, topic string, qos byte, h func([]byte)) error {
	c.mu.Lock()
	c.handlers[topic] = h
	c.mu.Unlock()
	filter := topic
	if c.s.group != "" {
		filter = "$share/" + c.s.group + "/" + topic // messages still name topic
	}
	sa, err := c.cli.Subscribe(ctx, &paho.Subscribe{Subscriptions: []paho.SubscribeOptions{{Topic: filter, QoS: qos}}})
	if sa != nil && len(sa.Reasons) == 1 {
		switch r := sa.Reasons[0]; {
		case r >= 0x80:
			return fmt.Errorf("mqtt: the broker at %s refused the subscription of client %s to %s: SUBACK reason code 0x%02X (%s)%s",
				c.s.redacted, c.id, topic, r, cmp.Or(subackTexts[r], "unknown"), subackReason(sa))
		case r < qos:
			return fmt.Errorf("mqtt: the broker at %s granted QoS %d for %s, not the QoS %d asked for", c.s.redacted, r, topic, qos)
		}
	}
	if err != nil {
		return c.opErr("subscribing to "+topic, err)
	}
	return nil
}

func subackReason(sa *paho.Suback) string {
	if sa.Properties == nil || sa.Properties.ReasonString == "" {
		return ""
	}
	return ": " + sa.Properties.ReasonString
}

// subackTexts names the SUBACK failure codes of MQTT 5 (section 3.9.3).
var subackTexts = map[byte]string{
	0x80: "unspecified error",
	0x83: "implementation specific error",
	0x87: "not authorized",
	0x8F: "topic filter invalid",
	0x91: "packet identifier in use",
	0x97: "quota exceeded",
	0x9E: "shared subscriptions not supported",
	0xA1: "subscription identifiers not supported",
	0xA2: "wildcard subscriptions not supported",
}

func (c *client5) unsubscribe(ctx context.Context, topic string) error {
	_, err := c.cli.Unsubscribe(ctx, &paho.Unsubscribe{Topics: []string{topic}})
	c.mu.Lock()
	delete(c.handlers, topic)
	c.mu.Unlock()
	if err != nil {
		return fmt.Errorf("mqtt: unsubscribing from %s on %s: %w", topic, c.s.redacted, err)
	}
	return nil
}

func (c *client5) close() error {
	if !c.startClose() {
		return nil
	}
	// Disconnect writes DISCONNECT, closes the connection and waits for
	// the library's goroutines; an error only means the connection was
	// already gone.
	c.cli.Disconnect(&paho.Disconnect{ReasonCode: 0})
	return nil
}

// facts adds what the broker declared in its CONNACK to the connection's.
func (c *client5) facts() map[string]string {
	m := c.base.facts()
	if p := c.connack.Properties; p != nil {
		putUint(m, "broker_maximum_packet_size", p.MaximumPacketSize)
		putUint(m, "broker_receive_maximum", p.ReceiveMaximum)
		putUint(m, "broker_maximum_qos", p.MaximumQoS)
		putUint(m, "broker_topic_alias_maximum", p.TopicAliasMaximum)
		if p.ServerKeepAlive != nil {
			m["broker_keepalive"] = (time.Duration(*p.ServerKeepAlive) * time.Second).String()
		}
		if p.ResponseInfo != "" {
			m["broker_response_information"] = p.ResponseInfo
		}
		for _, u := range p.User {
			m["broker_user_property_"+u.Key] = u.Value
		}
	}
	return m
}

// putUint sets m[k] to *v in decimal, unless v is nil.
func putUint[T uint32 | uint16 | byte](m map[string]string, k string, v *T) {
	if v != nil {
		m[k] = strconv.FormatUint(uint64(*v), 10)
	}
}

// session5 is paho.golang's session state, with the acknowledgements of
// this client's publishes counted as the reading goroutine receives them:
// PUBACK ends a QoS 1 publish, PUBCOMP a QoS 2 one, and a PUBACK or PUBREC
// with a reason code of 0x80 or more refuses it. PUBACK, PUBREC and
// PUBCOMP only ever answer this client's PUBLISH packets.
//
// mu serialises PacketReceived and ConnectionLost, and packets read after
// the connection was lost are ignored: the state answers a PUBREC through
// its connection without its own lock, while a lost connection sets it to
// nil (a PUBREC read then would write to nil).
type session5 struct {
	session.SessionManager
	acks *ackTracker
	mu   sync.Mutex
	lost bool
}

func (s *session5) ConnectionLost(dp *packets.Disconnect) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lost = true
	return s.SessionManager.ConnectionLost(dp)
}

func (s *session5) PacketReceived(cp *packets.ControlPacket, pubs chan<- *packets.Publish) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost {
		return nil
	}
	if s.acks != nil {
		switch p := cp.Content.(type) {
		case *packets.Puback:
			s.acks.settle(refusal("PUBACK", p.ReasonCode, p.Reason()))
		case *packets.Pubrec:
			if p.ReasonCode >= 0x80 {
				s.acks.settle(refusal("PUBREC", p.ReasonCode, p.Reason()))
			}
		case *packets.Pubcomp:
			s.acks.settle(refusal("PUBCOMP", p.ReasonCode, p.Reason()))
		}
	}
	return s.SessionManager.PacketReceived(cp, pubs)
}

// discard is the session store of a session that ends with its connection
// (clean start, session expiry 0, no reconnection): nothing stored is ever
// resent, so nothing is stored, which spares a copy of every QoS 1 and 2
// packet.
type discard struct{}

func (discard) Put(uint16, byte, io.WriterTo) error { return nil }
func (discard) Get(id uint16) (io.ReadCloser, error) {
	return nil, fmt.Errorf("packet %d: the session is not stored", id)
}
func (discard) Delete(uint16) error     { return nil }
func (discard) Quarantine(uint16) error { return nil }
func (discard) List() ([]uint16, error) { return nil, nil }
func (discard) Reset() error            { return nil }

// refusal is nil for a success reason code (below 0x80).
func refusal(packet string, code byte, text string) error {
	if code < 0x80 {
		return nil
	}
	return fmt.Errorf("mqtt: the broker refused the message: %s reason code 0x%02X (%s)", packet, code, text)
}
