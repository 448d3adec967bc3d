package tcp

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
)

// EchoFrames echoes s frame by frame, spending d's delay on each frame
// before it replies, until ctx is done, the peer closes the stream (both
// return nil) or the stream fails. Unlike Echo it must see whole messages,
// so buf holds the largest one.
func EchoFrames(ctx context.Context, s Stream, buf []byte, d *driver.Delayer) error {
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	var hdr [HeaderSize]byte
	for {
		err := recvFull(s, hdr[:])
		if err == nil {
			n := int(binary.BigEndian.Uint32(hdr[:]))
			if n > len(buf) {
				return fmt.Errorf("tcp echo: a %d-byte message is larger than the %d-byte maximum", n, len(buf))
			}
			if err = recvFull(s, buf[:n]); err == nil {
				d.Wait()
				err = s.SendAll(hdr[:], buf[:n])
			}
		}
		if err != nil {
			return echoEnd(ctx, err)
		}
	}
}

// recvFull fills p from s, waiting as long as it takes.
func recvFull(s Stream, p []byte) error {
	for got := 0; got < len(p); {
		n, err := s.Recv(p[got:], time.Time{})
		if err != nil {
			return err
		}
		got += n
	}
	return nil
}
