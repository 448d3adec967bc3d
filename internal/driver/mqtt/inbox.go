package mqtt

import (
	"fmt"

	"github.com/mqgate/mqgate/internal/driver"
)

// newInbox is the receiving side of a link on topic: what the library's
// message handler hands over, for Receive or a consumer. At QoS 0 a full
// inbox drops the message (counted); at QoS 1 and 2 the handler waits,
// which holds back the library, the broker's flow control and so the
// sender.
func newInbox(s *settings, c client, topic string) *driver.Handoff {
	return driver.NewHandoff(driver.HandoffConfig{Name: "mqtt", Depth: s.queueDepth, Drop: s.qos == 0, Lost: c.done(), LostErr: c.err,
		Closed:  fmt.Errorf("mqtt: receiving from %s: %w", topic, driver.ErrClosed),
		Timeout: fmt.Errorf("mqtt: nothing arrived on %s before the deadline: %w", topic, driver.ErrTimeout)})
}
