// Command request-relay is the client side of the worked example in
// docs/ci.md: an adapter of mqgate's relay protocol (docs/relay.md) that
// sends every message run gives it as a request to a service, through
// NATS request–reply or RabbitMQ RPC, and hands the request back to run
// when the service's reply comes, so that run times the service's round
// trip. It knows nothing of the service but the subject (or queue) it
// answers on; the service need not know mqgate.
//
//	request-relay -url nats://127.0.0.1:4222 -subject svc.v1
//	request-relay -url amqp://guest:guest@127.0.0.1:5672/ -subject svc.v1
//
// It says hello to run only once the service answers (a NATS request is
// replied to; the RabbitMQ queue has a consumer), waiting up to -wait, so
// that a service started just before run is not measured half ready.
package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	url := flag.String("url", "nats://127.0.0.1:4222", "the broker: nats://HOST:PORT or amqp://USER:PASSWORD@HOST:PORT/VHOST")
	subject := flag.String("subject", "svc.v1", "the service's subject (NATS) or queue (RabbitMQ)")
	wait := flag.Duration("wait", 4*time.Second, "how long to wait for the service to answer before giving up (below run's --connect-timeout, 5s by default, so that run reports why)")
	flag.Parse()
	max := 16 << 20
	if s := os.Getenv("MQGATE_RELAY_MAX_MESSAGE"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			max = n
		}
	}
	var dial func(url, subject string, wait time.Duration, back func(seq uint64)) (requester, error)
	switch {
	case strings.HasPrefix(*url, "nats://"), strings.HasPrefix(*url, "tls://"):
		dial = dialNATS
	case strings.HasPrefix(*url, "amqp://"), strings.HasPrefix(*url, "amqps://"):
		dial = dialAMQP
	default:
		fmt.Fprintf(os.Stderr, "request-relay: -url %q: expected nats:// or amqp://\n", *url)
		os.Exit(2)
	}
	if err := relay(dial, *url, *subject, *wait, max); err != nil {
		fmt.Fprintln(os.Stderr, "request-relay:", err)
		os.Exit(1)
	}
}

// requester sends requests to the service; the replies come back through
// the callback given to its dial function, with the request's number.
type requester interface {
	// Hello describes what the requests go through, for run's meta.json.
	Hello() string
	// Request sends body as request number seq.
	Request(seq uint64, body []byte) error
	Close() error
}

// relay reads run's messages, sends each as a request and writes it back
// to run when the reply to it arrives. The pending requests are kept by
// number, so that a reply, whatever it holds, gives back the very message
// it answers, and a late one finds nothing.
func relay(dial func(string, string, time.Duration, func(uint64)) (requester, error), url, subject string, wait time.Duration, max int) error {
	var (
		mu      sync.Mutex
		pending = map[uint64][]byte{}
		werr    error
	)
	out := os.Stdout
	back := func(seq uint64) {
		mu.Lock()
		defer mu.Unlock()
		msg, ok := pending[seq]
		if !ok || werr != nil {
			return
		}
		delete(pending, seq)
		werr = writeFrame(out, msg)
	}
	r, err := dial(url, subject, wait, back)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := writeFrame(out, []byte(r.Hello())); err != nil {
		return err
	}
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	for seq := uint64(1); ; seq++ {
		msg, err := readFrame(in, max)
		if errors.Is(err, io.EOF) {
			return nil // run closed our standard input: done
		}
		if err != nil {
			return err
		}
		mu.Lock()
		if werr != nil {
			mu.Unlock()
			return fmt.Errorf("writing to run: %w", werr)
		}
		pending[seq] = msg
		mu.Unlock()
		if err := r.Request(seq, msg); err != nil {
			return err
		}
	}
}

// readFrame reads one frame (docs/relay.md) into a new slice. It returns
// io.EOF only at a frame boundary.
func readFrame(r *bufio.Reader, max int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("input ended inside a frame header")
		}
		return nil, err
	}
	n := int(binary.LittleEndian.Uint32(hdr[:]))
	if n > max {
		return nil, fmt.Errorf("a frame of %d bytes, larger than the %d-byte maximum", n, max)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("input ended inside a %d-byte frame: %w", n, err)
	}
	return buf, nil
}

// frameBuf holds one outgoing frame, so that it leaves in a single write;
// writeFrame's callers hold the relay's lock.
var frameBuf []byte

// writeFrame writes msg as one frame, in one write.
func writeFrame(w io.Writer, msg []byte) error {
	frameBuf = binary.LittleEndian.AppendUint32(frameBuf[:0], uint32(len(msg)))
	frameBuf = append(frameBuf, msg...)
	_, err := w.Write(frameBuf)
	return err
}
