package throughput

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/load"
)

// TestThroughputPadding: run throughput pads its messages as run load's
// --padding does. A plain client subscribed to every subject of the
// broker reads the messages on the wire: zeros, or the seeded random
// stream (the same for the same seed), and by default the pattern.
func TestThroughputPadding(t *testing.T) {
	natsURL, stop, err := nats.Transport{}.StartEmbedded(context.Background(), driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	u, _ := url.Parse(natsURL)
	const size = 64
	wire := func(t *testing.T, pad load.Padding, seed uint64) []byte {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		r := bufio.NewReader(c)
		fmt.Fprintf(c, "CONNECT {\"verbose\":false}\r\nSUB > 1\r\nPING\r\n")
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(line, "PONG") {
				break
			}
		}
		topic := drivertest.TestTopic(t)
		links := load.Links{Transport: nats.Transport{}, URL: natsURL, Publish: driver.Options{Topic: topic}, Subscribe: driver.Options{Topic: topic}}
		tp, _ := load.NewTopology(load.FanIn, 1, 1, 1)
		ends, err := links.Open(context.Background(), tp, size)
		if err != nil {
			t.Fatal(err)
		}
		defer ends.Close()
		cfg := Config{MinWindow: time.Millisecond, Windows: 2, Padding: pad, PaddingSeed: seed}.WithDefaults()
		if _, err := Measure(context.Background(), ends, size, 1, cfg); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			f := strings.Fields(line)
			if len(f) < 4 || f[0] != "MSG" {
				continue
			}
			n, _ := strconv.Atoi(f[len(f)-1])
			body := make([]byte, n+2)
			if _, err := io.ReadFull(r, body); err != nil {
				t.Fatal(err)
			}
			if n == size {
				return body[load.HeaderSize:n]
			}
		}
	}
	zeros := wire(t, load.PaddingZeros, 0)
	if !bytes.Equal(zeros, make([]byte, size-load.HeaderSize)) {
		t.Errorf("zeros padding on the wire: % x", zeros)
	}
	r1, r2, r3 := wire(t, load.PaddingRandom, 7), wire(t, load.PaddingRandom, 7), wire(t, load.PaddingRandom, 8)
	if !bytes.Equal(r1, r2) || bytes.Equal(r1, r3) || bytes.Equal(r1, zeros) {
		t.Errorf("random padding, seeds 7, 7, 8: % x / % x / % x", r1, r2, r3)
	}
	pattern := wire(t, "", 0)
	for i, b := range pattern {
		if want := byte((load.HeaderSize + i) % 251); b != want {
			t.Fatalf("default padding byte %d: %d, want the pattern's %d", load.HeaderSize+i, b, want)
		}
	}
}
