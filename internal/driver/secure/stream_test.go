package secure

import (
	"context"
	"errors"
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

func TestStreamConformance(t *testing.T) {
	for _, tc := range []struct {
		tr       driver.StreamTransport
		reliable bool
	}{{TLS{}, false}, {TLS{}, true}, {DTLS{}, false}} {
		name := tc.tr.Name() + map[bool]string{false: "/BestEffort", true: "/Reliable"}[tc.reliable]
		t.Run(name, func(t *testing.T) {
			echo, pinger := pki(t)
			drivertest.RunStream(t, drivertest.StreamConfig{Transport: tc.tr,
				Subscribe: driver.Options{Security: echo},
				Publish:   driver.Options{Security: pinger, Reliable: tc.reliable}})
		})
	}
}

// TestStreamWrongCA: a publisher with a certificate the subscriber's CA did
// not sign is refused, as a pinger is.
func TestStreamWrongCA(t *testing.T) {
	echo, _ := pki(t)
	_, other := pki(t)
	ctx := context.Background()
	for _, tr := range []driver.StreamTransport{TLS{}, DTLS{}} {
		s, err := tr.Subscribe(ctx, "127.0.0.1:0", driver.Options{Security: echo})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		cctx, cancel := context.WithTimeout(ctx, drivertest.Watchdog)
		p, err := tr.Publish(cctx, s.Addr(), driver.Options{Security: other})
		cancel()
		if err == nil {
			p.Close()
			t.Errorf("%s: a publisher trusting another CA connected", tr.Name())
		}
	}
	if _, err := (DTLS{}).Subscribe(ctx, "127.0.0.1:0", driver.Options{Security: echo, Reliable: true}); !errors.Is(err, errDTLSOneWayReliable) {
		t.Errorf("reliable DTLS subscriber: %v", err)
	}
}
