package mqtt

import (
	"testing"

	"github.com/mochi-mqtt/server/v2/hooks/auth"

	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// TestConsume: a subscriber hands its messages to a consumer on the
// library's handler goroutine, the ones queued before Consume first, at
// every QoS and protocol version (QoS 0 through an in-process broker does
// not lose 2,000 messages: the consumer keeps up).
func TestConsume(t *testing.T) {
	url, stop, err := StartBroker(nil, new(auth.AllowHook), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	forEach(t, func(t *testing.T, version string, qos int) {
		o := options(t, version, qos)
		sub, err := Transport{}.Subscribe(dialCtx(t), url, o)
		if err != nil {
			t.Fatal(err)
		}
		pub, err := Transport{}.Publish(dialCtx(t), url, o)
		if err != nil {
			t.Fatal(err)
		}
		drivertest.RunConsume(t, sub, pub)
	})
}

// TestConsumeBrokerLost: Consume returns a lost-connection error naming
// the broker when it goes away.
func TestConsumeBrokerLost(t *testing.T) {
	forEach(t, func(t *testing.T, version string, qos int) {
		url, stop, err := StartBroker(nil, new(auth.AllowHook), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		sub, err := Transport{}.Subscribe(dialCtx(t), url, options(t, version, qos))
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		drivertest.ConsumeLost(t, sub, func() { stop() }, "lost the connection to "+url)
	})
}
