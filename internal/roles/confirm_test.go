package roles_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/nats"
	"github.com/mqgate/mqgate/internal/roles"
)

// TestPubServerGone stops the NATS server a second into a pub's run of
// 1 KiB messages: nats.go keeps taking messages while it tries to
// reconnect (up to its 8 MiB buffer), then drops them. The pub counts as
// sent only what the server confirmed, which the sub received but for the
// last moments before the server went, and the rest as unconfirmed; the
// two add up to what the client took (the snapshots' Sent).
func TestPubServerGone(t *testing.T) {
	url, stop, err := nats.Transport{}.StartEmbedded(context.Background(), driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	out := t.TempDir()
	base := map[string]any{"endpoint": []string{url}, "run-id": "gone", "out-dir": out, "timeout": "1s", "log-level": "error"}
	subDone := make(chan roles.Outcome, 1)
	go func() {
		subDone <- roles.Run(context.Background(), settings(t, roles.RoleSub, merged(base, map[string]any{"instance": "2", "duration": "1m"})))
	}()
	time.Sleep(300 * time.Millisecond) // subscribed
	csv := filepath.Join(out, "pub.csv")
	time.AfterFunc(time.Second, func() { stop() })
	po := roles.Run(context.Background(), settings(t, roles.RolePub, merged(base, map[string]any{"instance": "1",
		"rate": "20000", "payload": "1024", "duration": "5s", "csv": csv})))
	so := <-subDone
	if !po.Incomplete || !so.Incomplete {
		t.Fatalf("pub %+v, sub %+v: want both incomplete", po, so)
	}
	var pr roles.PubReport
	readJSON(t, filepath.Join(out, "gone", roles.ReportsDir, "pub-pubsub-1.json"), &pr)
	var sr roles.SubReport
	readJSON(t, filepath.Join(out, "gone", roles.ReportsDir, "sub-pubsub-2.json"), &sr)
	if len(pr.Publishers) != 1 || len(sr.Publishers) != 1 {
		t.Fatalf("pub %+v, sub %+v", pr.Publishers, sr.Publishers)
	}
	sent, received := pr.Publishers[0].Sent, sr.Publishers[0].Received
	t.Logf("sent %d, unconfirmed %d, received %d; pub: %s", sent, pr.Unconfirmed, received, po.Summary)
	// What the server confirmed it also delivered, but for what it held
	// for the sub as it stopped.
	if sent == 0 || sent > received+received/10 {
		t.Errorf("sent %d, the sub received %d: sent counts messages that never left the client", sent, received)
	}
	if pr.Unconfirmed == 0 || pr.Publishers[0].Unconfirmed != pr.Unconfirmed || pr.Completed ||
		!strings.Contains(po.Summary, "more handed to the client that the system did not confirm") {
		t.Errorf("report %+v, summary %s", pr, po.Summary)
	}
	if handed := csvTotal(t, csv, "Sent"); handed != sent+pr.Unconfirmed {
		t.Errorf("the client took %d messages; %d sent and %d unconfirmed", handed, sent, pr.Unconfirmed)
	}
}
