package mqtt_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/driver/mqtt"
	"github.com/mqgate/mqgate/internal/roles/rolestest"
)

// embeddedBroker starts a mochi-mqtt broker for the test.
func embeddedBroker(t *testing.T) string {
	t.Helper()
	url, stop, err := mqtt.Transport{}.StartEmbedded(context.Background(), driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop() })
	return url
}

// TestPubConfirms runs a pub of 1 KiB messages and a sub at QoS 0
// (best_effort) and 1 (reliable), cutting the pub's link to the broker a
// second into its run (the sub's link stays) or not. Cut at QoS 0, the
// messages the client wrote after the broker's last PINGRESP count as
// unconfirmed, not sent, and make the run incomplete; at QoS 1 every
// message handed was acknowledged, so none is. Uncut, every message is
// confirmed. Always the sub received every message counted as sent, and
// sent and unconfirmed add up to what the client took.
func TestPubConfirms(t *testing.T) {
	for _, cut := range []bool{true, false} {
		for _, rel := range []string{"best_effort", "reliable"} {
			name := map[bool]string{true: "cut/", false: "clean/"}[cut] + rel
			t.Run(name, func(t *testing.T) {
				flags := map[string]any{"driver": "mqtt", "reliability": rel, "topic-prefix": rolestest.TopicPrefix(t, "/")}
				if !cut {
					rolestest.RunPub(t, embeddedBroker(t), flags, "2000", nil).CheckClean(t)
					return
				}
				r := rolestest.RunPub(t, embeddedBroker(t), flags, "20000", (*drivertest.Proxy).Kill)
				r.CheckCut(t)
				switch {
				case rel == "best_effort" && (r.Unconfirmed == 0 || !strings.Contains(r.Pub.Summary, rolestest.Unconfirmed)):
					t.Errorf("QoS 0: %d unconfirmed (%s): the messages written as the link was cut were counted as sent", r.Unconfirmed, r.Pub.Summary)
				case rel == "reliable" && r.Unconfirmed != 0:
					t.Errorf("QoS 1: %d unconfirmed, though every message handed was acknowledged", r.Unconfirmed)
				}
			})
		}
	}
}
