// Command mqttpingpong is the floor of the MQTT overhead benchmark: an MQTT
// ping-pong written directly on the client libraries mqgate's mqtt driver
// uses, with the set-up of its mqtt_* sub-experiments and nothing else:
// each end one client with a clean session and no reconnection, the pinger
// publishing to TOPIC/ping and receiving TOPIC/pong, the echo republishing
// each message unchanged from its message handler. MQTT 3.1.1 runs on
// github.com/eclipse/paho.mqtt.golang (ordered delivery), MQTT 5 on
// github.com/eclipse/paho.golang's paho.Client; both read through a buffer,
// as the driver does, so that the comparison shows what mqgate's engine
// and driver add rather than a difference in socket reads.
//
//	mqttpingpong echo VERSION URL TOPIC QOS
//	mqttpingpong ping VERSION URL TOPIC QOS N [SIZE] [WARMUP] [CPU]
//
// VERSION is 3.1.1 or 5, URL mqtt://HOST:PORT. The echo prints "ready" as
// the first line of standard output once its subscription is granted, and
// echoes until SIGINT or SIGTERM. The pinger sends N round trips of SIZE
// bytes (default 16) after WARMUP (default N/10) and prints the median
// round trip in nanoseconds, timed from before the publish to the moment
// the library calls the message handler with the echo, as mqgate times it.
// Place them as run --cpus places its ends: the echo process with
// taskset, the pinger by CPU, which pins only the thread of the measuring
// goroutine.
package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	paho5 "github.com/eclipse/paho.golang/paho"
	paho3 "github.com/eclipse/paho.mqtt.golang"
	"github.com/mqgate/mqgate/bench/internal/pingpong"
)

func main() { pingpong.Main("mqttpingpong", run) }

const usage = "usage: mqttpingpong echo VERSION URL TOPIC QOS | mqttpingpong ping VERSION URL TOPIC QOS N [SIZE] [WARMUP] [CPU]"

// client is what both ends need of an MQTT client.
type client interface {
	subscribe(topic string, qos byte, h func(payload []byte)) error
	publish(topic string, qos byte, payload []byte) error
	close()
}

func run(args []string) error {
	if len(args) < 5 || (args[0] != "echo" && args[0] != "ping") {
		return fmt.Errorf("%s", usage)
	}
	qos, err := pingpong.Count(args, 4, 0)
	if err != nil || qos > 2 {
		return fmt.Errorf("QOS must be 0, 1 or 2")
	}
	u, err := url.Parse(args[2])
	if err != nil || u.Scheme != "mqtt" || u.Port() == "" {
		return fmt.Errorf("URL %q: want mqtt://HOST:PORT", args[2])
	}
	var c client
	switch args[1] {
	case "3.1.1":
		c, err = connect3(u.Host)
	case "5":
		c, err = connect5(u.Host)
	default:
		return fmt.Errorf("VERSION %q: want 3.1.1 or 5", args[1])
	}
	if err != nil {
		return err
	}
	defer c.close()
	topic := args[3]
	if args[0] == "echo" {
		if len(args) != 5 {
			return fmt.Errorf("%s", usage)
		}
		return echo(c, topic, byte(qos))
	}
	p, err := pingpong.ParsePing(args, 5, 8)
	if err != nil {
		return err
	}
	if err := pingpong.Pin(p.CPU); err != nil {
		return fmt.Errorf("pinning to CPU %d: %w", p.CPU, err)
	}
	return ping(c, topic, byte(qos), p)
}

func echo(c client, topic string, qos byte) error {
	pong := topic + "/pong"
	failed := make(chan error, 1)
	err := c.subscribe(topic+"/ping", qos, func(p []byte) {
		if err := c.publish(pong, qos, p); err != nil {
			select {
			case failed <- err:
			default:
			}
		}
	})
	if err != nil {
		return err
	}
	fmt.Println("ready")
	select {
	case <-pingpong.Signals():
		return nil
	case err := <-failed:
		return err
	}
}

type arrival struct {
	payload []byte
	at      time.Time
}

func ping(c client, topic string, qos byte, p pingpong.Ping) error {
	echoes := make(chan arrival, 1024)
	err := c.subscribe(topic+"/pong", qos, func(payload []byte) {
		echoes <- arrival{payload, time.Now()}
	})
	if err != nil {
		return err
	}
	pingTopic := topic + "/ping"
	msg := make([]byte, p.Size)
	timeout := time.NewTimer(time.Hour)
	m, err := p.Median(func(i int) (time.Duration, error) {
		binary.LittleEndian.PutUint64(msg, uint64(i))
		t0 := time.Now()
		if err := c.publish(pingTopic, qos, msg); err != nil {
			return 0, err
		}
		timeout.Reset(5 * time.Second)
		for {
			var a arrival
			select {
			case a = <-echoes:
			case <-timeout.C:
				return 0, fmt.Errorf("round trip %d: no echo within 5 s", i)
			}
			if len(a.payload) == p.Size && binary.LittleEndian.Uint64(a.payload) == uint64(i) {
				return a.at.Sub(t0), nil
			}
		}
	})
	if err != nil {
		return err
	}
	_, err = fmt.Println(int64(m))
	return err
}

// bufConn reads through a buffer, as the driver's connections do.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// batchConn gathers the buffers paho.golang writes a packet with, between
// Lock and Unlock, into one write, as the driver's does: without it the
// wrapper's writes of concurrent packets would interleave.
type batchConn struct {
	*bufConn
	mu  sync.Mutex
	buf []byte
}

func (c *batchConn) Lock() { c.mu.Lock() }

func (c *batchConn) Write(p []byte) (int, error) {
	c.buf = append(c.buf, p...)
	return len(p), nil
}

func (c *batchConn) Unlock() {
	if _, err := c.bufConn.Write(c.buf); err != nil {
		c.bufConn.Close() // the reading goroutine reports it
	}
	c.buf = c.buf[:0]
	c.mu.Unlock()
}

func dial(hostport string) (*bufConn, error) {
	c, err := net.DialTimeout("tcp", hostport, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return &bufConn{Conn: c, r: bufio.NewReaderSize(c, 64<<10)}, nil
}

func clientID(role string) string {
	return "mqttpingpong-" + role + "-" + strconv.Itoa(os.Getpid())
}

// client3 is an MQTT 3.1.1 client on paho.mqtt.golang.
type client3 struct{ c paho3.Client }

func connect3(hostport string) (*client3, error) {
	o := paho3.NewClientOptions().AddBroker("tcp://" + hostport).
		SetClientID(clientID("v3")).SetProtocolVersion(4).SetCleanSession(true).SetOrderMatters(true).
		SetAutoReconnect(false).SetConnectRetry(false).
		SetCustomOpenConnectionFn(func(*url.URL, paho3.ClientOptions) (net.Conn, error) { return dial(hostport) })
	// paho.mqtt.golang writes each packet with one Write: bufConn suffices.
	c := paho3.NewClient(o)
	if t := c.Connect(); t.Wait() && t.Error() != nil {
		return nil, t.Error()
	}
	return &client3{c}, nil
}

func (c *client3) subscribe(topic string, qos byte, h func([]byte)) error {
	t := c.c.Subscribe(topic, qos, func(_ paho3.Client, m paho3.Message) { h(m.Payload()) })
	t.Wait()
	return t.Error()
}

// publish copies p: the library writes it after Publish returned, from its
// own goroutine, and the pinger reuses its buffer.
func (c *client3) publish(topic string, qos byte, p []byte) error {
	t := c.c.Publish(topic, qos, false, append([]byte(nil), p...))
	select {
	case <-t.Done():
		return t.Error()
	default:
		return nil
	}
}

func (c *client3) close() { c.c.Disconnect(250) }

// client5 is an MQTT 5 client on paho.golang.
type client5 struct {
	c        *paho5.Client
	mu       sync.RWMutex
	handlers map[string]func([]byte)
}

func connect5(hostport string) (*client5, error) {
	conn, err := dial(hostport)
	if err != nil {
		return nil, err
	}
	c := &client5{handlers: map[string]func([]byte){}}
	c.c = paho5.NewClient(paho5.ClientConfig{
		Conn: &batchConn{bufConn: conn},
		OnPublishReceived: []func(paho5.PublishReceived) (bool, error){func(pr paho5.PublishReceived) (bool, error) {
			c.mu.RLock()
			h := c.handlers[pr.Packet.Topic]
			c.mu.RUnlock()
			if h != nil {
				h(pr.Packet.Payload)
			}
			return true, nil
		}},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.c.Connect(ctx, &paho5.Connect{ClientID: clientID("v5"), KeepAlive: 30, CleanStart: true}); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *client5) subscribe(topic string, qos byte, h func([]byte)) error {
	c.mu.Lock()
	c.handlers[topic] = h
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := c.c.Subscribe(ctx, &paho5.Subscribe{Subscriptions: []paho5.SubscribeOptions{{Topic: topic, QoS: qos}}})
	return err
}

func (c *client5) publish(topic string, qos byte, p []byte) error {
	pub := &paho5.Publish{Topic: topic, QoS: qos, Payload: p}
	if qos == 0 {
		_, err := c.c.Publish(context.Background(), pub)
		return err
	}
	_, err := c.c.PublishWithOptions(context.Background(), pub, paho5.PublishOptions{Method: paho5.PublishMethod_AsyncSend})
	return err
}

func (c *client5) close() { c.c.Disconnect(&paho5.Disconnect{}) }
