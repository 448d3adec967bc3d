package amqp_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/config"
	"github.com/mqgate/mqgate/internal/driver/amqp"
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/roles"
	"github.com/mqgate/mqgate/internal/testenv"
)

// pubRun is what a pub and a sub of one run reported.
type pubRun struct {
	pub, sub       roles.Outcome
	handed         uint64 // what the pub's client took: its snapshots' Sent
	sent, received uint64 // the pub's report, the sub's
	unconfirmed    uint64
	pubCompleted   bool
}

// runPub runs a sub straight to the broker at url (no clock probes, which
// a pub cut off cannot answer) and a pub of 1 KiB messages at rate per
// second for 3 s through a proxy, calling cut (with the proxy) a second
// into the pub's run when cut is given.
func runPub(t *testing.T, url string, flags map[string]any, rate string, cut func(*drivertest.Proxy)) pubRun {
	t.Helper()
	px, via := drivertest.StartProxy(t, url)
	out := t.TempDir()
	base := maps.Clone(flags)
	maps.Copy(base, map[string]any{"run-id": "cut", "out-dir": out, "timeout": "2s", "log-level": "error",
		"topic-prefix": "mqgate-test." + strings.ReplaceAll(t.Name(), "/", "_")})
	subDone := make(chan roles.Outcome, 1)
	go func() {
		subDone <- roles.Run(context.Background(), roleSettings(t, roles.RoleSub, base, map[string]any{
			"endpoint": []string{url}, "instance": "2", "duration": "1m", "clock-offset": "false"}))
	}()
	time.Sleep(500 * time.Millisecond) // subscribed
	if cut != nil {
		time.AfterFunc(time.Second, func() { cut(px) })
	}
	csv := filepath.Join(out, "pub.csv")
	var r pubRun
	r.pub = roles.Run(context.Background(), roleSettings(t, roles.RolePub, base, map[string]any{
		"endpoint": []string{via}, "instance": "1", "rate": rate, "payload": "1024", "duration": "3s", "csv": csv}))
	r.sub = <-subDone
	var pr roles.PubReport
	readJSON(t, filepath.Join(out, "cut", roles.ReportsDir, "pub-pubsub-1.json"), &pr)
	var sr roles.SubReport
	readJSON(t, filepath.Join(out, "cut", roles.ReportsDir, "sub-pubsub-2.json"), &sr)
	if len(pr.Publishers) != 1 || len(sr.Publishers) != 1 {
		t.Fatalf("pub %+v, sub %+v", pr.Publishers, sr.Publishers)
	}
	r.handed = snapshotTotal(t, csv, "Sent")
	r.sent, r.received = pr.Publishers[0].Sent, sr.Publishers[0].Received
	r.unconfirmed, r.pubCompleted = pr.Unconfirmed, pr.Completed
	t.Logf("handed %d, sent %d, unconfirmed %d, received %d; pub: %s; sub: %s", r.handed, r.sent, r.unconfirmed, r.received, r.pub.Summary, r.sub.Summary)
	if r.sent+r.unconfirmed != r.handed || pr.Publishers[0].Unconfirmed != r.unconfirmed {
		t.Errorf("the client took %d messages; %d sent and %d unconfirmed (the publisher's: %d)", r.handed, r.sent, r.unconfirmed, pr.Publishers[0].Unconfirmed)
	}
	return r
}

// roleSettings resolves a role's settings from flags, as the command does.
func roleSettings(t *testing.T, role string, base, flags map[string]any) roles.Settings {
	t.Helper()
	all := maps.Clone(base)
	maps.Copy(all, flags)
	c, err := config.Load(config.Sources{Flags: all, Known: roles.Keys})
	if err != nil {
		t.Fatal(err)
	}
	s, err := roles.Resolve(role, c, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// snapshotTotal is the sum of column col of a role's --csv snapshots.
func snapshotTotal(t *testing.T, path, col string) uint64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	idx := slices.Index(strings.Split(lines[0], ","), col)
	if lines[0] != roles.SnapshotHeader || idx < 0 {
		t.Fatalf("%s: header %q", path, lines[0])
	}
	var total uint64
	for _, l := range lines[1:] {
		v, err := strconv.ParseUint(strings.Split(l, ",")[idx], 10, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", path, l, err)
		}
		total += v
	}
	return total
}

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
				flags := map[string]any{"driver": "amqp", "reliability": rel}
				if !cut {
					r := runPub(t, url, flags, "2000", nil)
					if r.pub.Incomplete || r.pub.Err != nil || !r.pubCompleted || r.unconfirmed != 0 || r.sent != r.handed || r.received != r.sent {
						t.Errorf("pub %+v: handed %d, sent %d, unconfirmed %d, received %d: want every one sent, confirmed and received", r.pub, r.handed, r.sent, r.unconfirmed, r.received)
					}
					return
				}
				r := runPub(t, url, flags, "20000", (*drivertest.Proxy).Kill)
				if !r.pub.Incomplete || r.pubCompleted {
					t.Errorf("pub %+v: want it incomplete, its link cut", r.pub)
				}
				if r.sent == 0 || r.sent > r.received {
					t.Errorf("sent %d, the sub received %d: sent counts messages the broker never had", r.sent, r.received)
				}
				if r.unconfirmed == 0 || !strings.Contains(r.pub.Summary, "that the system did not confirm") {
					t.Errorf("%d unconfirmed (%s): the messages published as the link was cut were counted as sent", r.unconfirmed, r.pub.Summary)
				}
			})
		}
	}
}
