package nats

import (
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// TestPublisherHeldBackNotFailed: a JetStream publisher whose stream stops
// acknowledging for longer than nats.go's 200 ms stall wait, with the
// 4,000 messages nats.go lets wait outstanding, is held back until the
// acknowledgements come again, not failed with "stalled with too many
// outstanding async published messages" (unpaced publishers failed so on
// a healthy server). The acknowledgements are held by a proxy that stops
// forwarding the server's bytes for 600 ms.
func TestPublisherHeldBackNotFailed(t *testing.T) {
	url := embeddedURL(t, driver.Options{})
	addr, hold := holdingProxy(t, strings.TrimPrefix(url, "nats://"))
	pub, err := Transport{}.Publish(dialCtx(t), "nats://"+addr, driver.Options{Reliable: true, Topic: topic(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	release := hold()
	done := make(chan error, 1)
	go func() {
		msg := make([]byte, 16)
		for range 4100 {
			if err := pub.Send(msg); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		release()
		t.Fatalf("the publisher returned while no acknowledgement could come: %v", err)
	case <-time.After(600 * time.Millisecond):
	}
	release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("held back for 600 ms: %v", err)
		}
	case <-time.After(drivertest.Watchdog):
		t.Fatal("the publisher did not go on once the acknowledgements came")
	}
	if err := pub.(driver.AckSender).WaitAcks(time.Now().Add(drivertest.Watchdog)); err != nil {
		t.Fatal(err)
	}
}

// holdingProxy forwards TCP connections to target; hold stops forwarding
// what target sends until the function it returns is called.
func holdingProxy(t *testing.T, target string) (addr string, hold func() (release func())) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var gate sync.RWMutex // held (Lock) while the server's bytes wait
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			t.Cleanup(func() { c.Close(); s.Close() })
			go io.Copy(s, c)
			go func() {
				buf := make([]byte, 32<<10)
				for {
					n, err := s.Read(buf)
					gate.RLock()
					if n > 0 {
						c.Write(buf[:n])
					}
					gate.RUnlock()
					if err != nil {
						c.Close()
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String(), func() func() {
		gate.Lock()
		var once sync.Once
		return func() { once.Do(gate.Unlock) }
	}
}
