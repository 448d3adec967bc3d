// Command relay-echo is the example adapter of mqgate's relay protocol
// (docs/relay.md): it reads length-framed messages on standard input and
// writes each one back on standard output, either directly or after a trip
// through a TCP connection on the loopback interface.
//
//	relay-echo [-via direct|tcp] [-fail-after N] [-stall]
//
// With -via direct it measures the protocol's own cost (two pipe
// crossings); with -via tcp each message goes to a TCP echo server this
// adapter starts on 127.0.0.1 and back, as an adapter for a real system
// sends it through that system's client. -fail-after N exits with status 3
// after N messages and -stall stops reading after the hello, to exercise
// mqgate's fault handling.
//
// The protocol, in short: every frame is a u32 little-endian length and
// that many bytes. The adapter first writes a hello frame (text describing
// what it relays through) once it is ready, then echoes every frame it
// reads, unchanged and in order, and exits with status 0 when its standard
// input ends.
package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
)

func main() {
	via := flag.String("via", "direct", "direct (echo on the spot) or tcp (through a TCP echo server on 127.0.0.1)")
	failAfter := flag.Int("fail-after", 0, "exit with status 3 after this many messages (0: never)")
	stall := flag.Bool("stall", false, "after the hello, read nothing and write nothing until killed (a hung system)")
	flag.Parse()
	max := 16 << 20
	if s := os.Getenv("MQGATE_RELAY_MAX_MESSAGE"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			max = n
		}
	}
	if *stall {
		writeFrame(os.Stdout, []byte("relay-echo stalled"))
		select {}
	}
	if err := run(*via, *failAfter, max); err != nil {
		fmt.Fprintln(os.Stderr, "relay-echo:", err)
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(int(ee))
		}
		os.Exit(1)
	}
}

type exitError int

func (e exitError) Error() string { return "exit status " + strconv.Itoa(int(e)) }

// through sends one message through the system and returns its echo.
type through func(msg []byte) ([]byte, error)

func run(via string, failAfter, max int) error {
	var send through
	hello := "relay-echo direct " + runtime.Version()
	switch via {
	case "direct":
		send = func(msg []byte) ([]byte, error) { return msg, nil }
	case "tcp":
		conn, err := tcpEcho()
		if err != nil {
			return err
		}
		defer conn.Close()
		r := bufio.NewReader(conn)
		var back []byte
		send = func(msg []byte) ([]byte, error) {
			if err := writeFrame(conn, msg); err != nil {
				return nil, err
			}
			var err error
			back, err = readFrame(r, back, max)
			return back, err
		}
		hello = "relay-echo tcp " + conn.RemoteAddr().String() + " " + runtime.Version()
	default:
		return fmt.Errorf("-via %q: expected direct or tcp", via)
	}

	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := os.Stdout
	// Ready: the hello frame tells mqgate what the messages go through.
	if err := writeFrame(out, []byte(hello)); err != nil {
		return err
	}
	var msg []byte
	for n := 1; ; n++ {
		var err error
		msg, err = readFrame(in, msg, max)
		if errors.Is(err, io.EOF) {
			return nil // mqgate closed our standard input: done
		}
		if err != nil {
			return err
		}
		if failAfter > 0 && n > failAfter {
			return fmt.Errorf("giving up after %d messages as asked: %w", failAfter, exitError(3))
		}
		echo, err := send(msg)
		if err != nil {
			return err
		}
		if err := writeFrame(out, echo); err != nil {
			return err
		}
	}
}

// readFrame reads one frame into buf (grown as needed). It returns io.EOF
// only at a frame boundary.
func readFrame(r *bufio.Reader, buf []byte, max int) ([]byte, error) {
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
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("input ended inside a %d-byte frame: %w", n, err)
	}
	return buf, nil
}

// frameBuf holds one outgoing frame, so that it leaves in a single write.
var frameBuf []byte

// writeFrame writes msg as one frame, in one write.
func writeFrame(w io.Writer, msg []byte) error {
	frameBuf = binary.LittleEndian.AppendUint32(frameBuf[:0], uint32(len(msg)))
	frameBuf = append(frameBuf, msg...)
	_, err := w.Write(frameBuf)
	return err
}

// tcpEcho starts a framed TCP echo server on 127.0.0.1 and connects to it.
func tcpEcho() (*net.TCPConn, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	go func() {
		defer ln.Close()
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		// The server echoes the bytes as they come: frames stay intact.
		io.Copy(c, c)
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return nil, err
	}
	tc := c.(*net.TCPConn)
	tc.SetNoDelay(true)
	return tc, nil
}
