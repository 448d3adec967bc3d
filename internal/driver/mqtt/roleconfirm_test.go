package mqtt

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	mochi "github.com/mochi-mqtt/server/v2"
	"github.com/mochi-mqtt/server/v2/hooks/auth"
	"github.com/mochi-mqtt/server/v2/packets"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
)

// roleThroughProxy dials a role client at qos to an embedded broker with
// hook h, through a proxy the test cuts or stalls.
func roleThroughProxy(t *testing.T, h mochi.Hook, qos int) (driver.Client, *drivertest.Proxy) {
	t.Helper()
	url, stop, err := StartBroker(nil, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop() })
	px, via := drivertest.StartProxy(t, url)
	c, err := Transport{}.DialClient(dialCtx(t), []string{via}, driver.Options{Reliable: qos > 0,
		Params: map[string]string{ParamQoS: strconv.Itoa(qos)}}, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, px
}

// TestRoleConfirm: at QoS 0 a role's client confirms what the broker
// read, not what it wrote to its socket: not while the link is stalled,
// again once it flows, and never once it was cut with messages written
// after the last confirmation. At QoS 1 a message handed to the client
// was acknowledged already, so a cut leaves nothing unconfirmed.
func TestRoleConfirm(t *testing.T) {
	for _, qos := range []int{0, 1} {
		t.Run("qos"+strconv.Itoa(qos), func(t *testing.T) {
			c, px := roleThroughProxy(t, new(auth.AllowHook), qos)
			b, ok := c.(driver.Confirmer)
			if !ok {
				t.Fatalf("the role client at QoS %d is no driver.Confirmer: a pub counts what it took as sent", qos)
			}
			publish := func() (handed int) {
				for range 100 {
					if c.Publish("confirm/test", make([]byte, 64)) == nil {
						handed++
					}
				}
				return handed
			}
			confirm := func(timeout time.Duration) error { return drivertest.Confirm(t, b, timeout) }
			publish()
			if err := confirm(2 * time.Second); err != nil {
				t.Fatalf("Confirm on a working link: %v", err)
			}
			if qos == 0 {
				release := px.Hold()
				publish()
				if err := confirm(300 * time.Millisecond); !errors.Is(err, driver.ErrTimeout) {
					t.Fatalf("Confirm while the broker could read nothing: %v, want a timeout", err)
				}
				release()
				if err := confirm(2 * time.Second); err != nil {
					t.Fatalf("Confirm once the link flows again: %v", err)
				}
				publish()
			}
			px.Kill()
			handed := publish()
			err := confirm(2 * time.Second)
			switch {
			case qos == 0 && (err == nil || !strings.Contains(err.Error(), "did not confirm")):
				t.Fatalf("Confirm after the link was cut: %v, want an error", err)
			case qos > 0 && (err != nil || handed > 0):
				t.Fatalf("QoS 1: %d handed after the cut, Confirm %v: want none and nil", handed, err)
			}
		})
	}
}

// refusingPublishes lets every client in and refuses every PUBLISH (a
// PUBACK or PUBREC with reason code 0x87 in MQTT 5).
type refusingPublishes struct{ mochi.HookBase }

func (*refusingPublishes) ID() string { return "refusing-publishes" }

func (*refusingPublishes) Provides(b byte) bool {
	return b == mochi.OnConnectAuthenticate || b == mochi.OnACLCheck
}

func (*refusingPublishes) OnConnectAuthenticate(*mochi.Client, packets.Packet) bool { return true }

func (*refusingPublishes) OnACLCheck(_ *mochi.Client, _ string, write bool) bool { return !write }

// TestRolePublishRefused: a message the broker refuses is an error at QoS
// 1 and 2, not handed (paho.golang returns a refusing PUBREC without one).
func TestRolePublishRefused(t *testing.T) {
	for _, qos := range []int{1, 2} {
		t.Run("qos"+strconv.Itoa(qos), func(t *testing.T) {
			c, _ := roleThroughProxy(t, new(refusingPublishes), qos)
			err := c.Publish("refused/test", []byte("no"))
			if err == nil || !strings.Contains(strings.ToLower(err.Error()), "not authorized") {
				t.Fatalf("Publish refused by the broker: %v, want an error with its reason", err)
			}
			t.Log(err)
		})
	}
}
