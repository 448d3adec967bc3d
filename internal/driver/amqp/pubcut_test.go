package amqp_test

import (
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/driver/amqp"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/roles/rolestest"
	"github.com/mqgate/mqgate/internal/testenv"
)

// TestPubConfirms runs a pub of 1 KiB messages and a sub through
// RabbitMQ, best effort and reliable, cutting the pub's link to the
// broker a second into its run (the sub's link stays) or not. Cut, the
// messages published after the broker's last confirmation (a qos-ok best
// effort, basic.ack reliable) count as unconfirmed, not sent, and make
// the run incomplete. Uncut, every message is confirmed. Always the sub
// received every message counted as sent, and sent and unconfirmed add
// up to what the client took. The broker, which other tests share, is
// cut off through a proxy.
func TestPubConfirms(t *testing.T) {
	url := testenv.Service(t, "RabbitMQ", testenv.Getenv(amqp.EnvURL, amqp.DefaultURL), "start it with: rabbitmq-server -detached")
	for _, cut := range []bool{true, false} {
		for _, rel := range []string{"best_effort", "reliable"} {
			name := map[bool]string{true: "cut/", false: "clean/"}[cut] + rel
			t.Run(name, func(t *testing.T) {
				flags := map[string]any{"driver": "amqp", "reliability": rel, "topic-prefix": rolestest.TopicPrefix(t, ".")}
				if !cut {
					rolestest.RunPub(t, url, flags, "2000", nil).CheckClean(t)
					return
				}
				r := rolestest.RunPub(t, url, flags, "20000", (*drivertest.Proxy).Kill)
				r.CheckCut(t)
				if r.Unconfirmed == 0 || !strings.Contains(r.Pub.Summary, rolestest.Unconfirmed) {
					t.Errorf("%d unconfirmed (%s): the messages published as the link was cut were counted as sent", r.Unconfirmed, r.Pub.Summary)
				}
			})
		}
	}
}
