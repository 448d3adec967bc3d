package tcp

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

func TestMain(m *testing.M) {
	drivertest.ServeEchoProcess(Transport{})
	os.Exit(m.Run())
}

func TestConformance(t *testing.T) {
	for _, reliable := range []bool{false, true} {
		name := map[bool]string{false: "BestEffort", true: "Reliable"}[reliable]
		t.Run(name, func(t *testing.T) {
			drivertest.Run(t, drivertest.Config{
				Transport: Transport{},
				Dial:      driver.Options{Reliable: reliable},
				DeadEchoErr: func(err error) bool {
					return !errors.Is(err, driver.ErrTimeout) // TCP sees the close at once
				},
			})
		})
	}
}

func TestRegistered(t *testing.T) {
	if tr, err := driver.Lookup(driver.TCP); err != nil || tr.Name() != driver.TCP {
		t.Fatalf("Lookup(tcp) = %v, %v", tr, err)
	}
}

func TestEchoProcessKilled(t *testing.T) {
	c := drivertest.Config{Transport: Transport{}, Dial: driver.Options{Reliable: true}}
	ep := drivertest.StartEchoProcess(t, c)
	p := drivertest.Dial(t, c, ep.Addr)
	buf := make([]byte, 64)
	msg := []byte("0123456789abcdef")
	if _, err := drivertest.RoundTrip(p, msg, buf); err != nil {
		t.Fatal(err)
	}
	ep.Kill()
	var err error
	for range 3 {
		if err = p.Send(msg); err == nil {
			_, _, err = p.Receive(buf, time.Now().Add(time.Second))
		}
		if err != nil {
			break
		}
	}
	if err == nil || errors.Is(err, driver.ErrTimeout) || !strings.Contains(err.Error(), ep.Addr) {
		t.Fatalf("after the echo process was killed: %v, want a closed-connection error naming %s", err, ep.Addr)
	}
	t.Log(err)
}

func BenchmarkRoundTripTCP(b *testing.B) {
	for _, size := range []int{16, 16384} {
		name := map[int]string{16: "16B", 16384: "16KB"}[size]
		b.Run(name, func(b *testing.B) {
			drivertest.BenchmarkRoundTrip(b, drivertest.Config{Transport: Transport{}, Dial: driver.Options{Reliable: true}}, size)
		})
	}
}
