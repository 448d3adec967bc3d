package mqtt

import (
	"fmt"
	"strings"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/meta"
	"github.com/mqgate/mqgate/internal/result"
)

// nagleRTT is the median round trip above which an acknowledged MQTT
// link is taken to be held by Nagle's algorithm: a broker on a LAN or
// loopback answers QoS 0 in well under a millisecond, and QoS 1 or 2 adds
// only a packet or two, while a broker that leaves Nagle on holds each
// PUBLISH until the delayed ACK of its previous segment, some 20–40 ms.
const nagleRTT = 5 * time.Millisecond

var _ driver.Advisor = Transport{}

// Advice names Nagle's algorithm and delayed ACKs on the broker's side when
// a sub-experiment at QoS 1 or 2 takes a median round trip above
// nagleRTT, with the remedy for Mosquitto (set_tcp_nodelay, off by
// default), whose stock configuration shows it: 44 ms round trips at QoS 1
// where QoS 0 takes 150 µs.
func (Transport) Advice(sub meta.SubExperiment, p50 time.Duration) string {
	qos := sub.Params[ParamQoS]
	if qos != "1" && qos != "2" || p50 <= nagleRTT {
		return ""
	}
	broker := "the broker"
	if sub.System != nil && sub.System.Product != "" {
		broker = strings.TrimSpace(sub.System.Product + " " + sub.System.Version)
	}
	s := fmt.Sprintf("median round trip %s at QoS %s against %s: a round trip of milliseconds on an acknowledged MQTT link is the mark of Nagle's algorithm on the broker's sockets meeting the clients' delayed ACKs (compare mqtt_best_effort, QoS 0)",
		result.Micros(float64(p50)/1e3), qos, broker)
	if sub.System != nil && strings.EqualFold(sub.System.Product, "mosquitto") {
		return s + "; Mosquitto: set_tcp_nodelay true in mosquitto.conf"
	}
	return s + "; set TCP_NODELAY on the broker's sockets (Mosquitto: set_tcp_nodelay true in mosquitto.conf)"
}
