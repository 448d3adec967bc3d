// Package rolestest runs the distributed roles for the tests of the
// systems that serve them: a pub whose link to the broker a test cuts,
// beside a sub that stays connected, and what each reported.
package rolestest

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
	"github.com/mqgate/mqgate/internal/driver/drivertest"
	"github.com/mqgate/mqgate/internal/roles"
)

// PubRun is what a pub and a sub of one run reported.
type PubRun struct {
	Pub, Sub       roles.Outcome
	Handed         uint64 // what the pub's client took: its snapshots' Sent
	Sent, Received uint64 // the pub's report, the sub's
	Unconfirmed    uint64
	PubCompleted   bool
}

// RunPub runs a sub straight to the broker at url (no clock probes, which
// a pub cut off cannot answer) and a pub of 1 KiB messages at rate per
// second for 3 s through a proxy, calling cut (with the proxy) a second
// into the pub's run when cut is given. flags name the driver, its
// reliability and the topic prefix. It fails t unless sent and
// unconfirmed add up to what the client took.
func RunPub(t *testing.T, url string, flags map[string]any, rate string, cut func(*drivertest.Proxy)) PubRun {
	t.Helper()
	px, via := drivertest.StartProxy(t, url)
	out := t.TempDir()
	base := maps.Clone(flags)
	maps.Copy(base, map[string]any{"run-id": "cut", "out-dir": out, "timeout": "2s", "log-level": "error"})
	subDone := make(chan roles.Outcome, 1)
	go func() {
		subDone <- roles.Run(context.Background(), Settings(t, roles.RoleSub, base, map[string]any{
			"endpoint": []string{url}, "instance": "2", "duration": "1m", "clock-offset": "false"}))
	}()
	time.Sleep(500 * time.Millisecond) // subscribed
	if cut != nil {
		time.AfterFunc(time.Second, func() { cut(px) })
	}
	csv := filepath.Join(out, "pub.csv")
	var r PubRun
	r.Pub = roles.Run(context.Background(), Settings(t, roles.RolePub, base, map[string]any{
		"endpoint": []string{via}, "instance": "1", "rate": rate, "payload": "1024", "duration": "3s", "csv": csv}))
	r.Sub = <-subDone
	var pr roles.PubReport
	readJSON(t, filepath.Join(out, "cut", roles.ReportsDir, "pub-pubsub-1.json"), &pr)
	var sr roles.SubReport
	readJSON(t, filepath.Join(out, "cut", roles.ReportsDir, "sub-pubsub-2.json"), &sr)
	if len(pr.Publishers) != 1 || len(sr.Publishers) != 1 {
		t.Fatalf("pub %+v, sub %+v", pr.Publishers, sr.Publishers)
	}
	r.Handed = snapshotTotal(t, csv, "Sent")
	r.Sent, r.Received = pr.Publishers[0].Sent, sr.Publishers[0].Received
	r.Unconfirmed, r.PubCompleted = pr.Unconfirmed, pr.Completed
	t.Logf("handed %d, sent %d, unconfirmed %d, received %d; pub: %s; sub: %s", r.Handed, r.Sent, r.Unconfirmed, r.Received, r.Pub.Summary, r.Sub.Summary)
	if r.Sent+r.Unconfirmed != r.Handed || pr.Publishers[0].Unconfirmed != r.Unconfirmed {
		t.Errorf("the client took %d messages; %d sent and %d unconfirmed (the publisher's: %d)", r.Handed, r.Sent, r.Unconfirmed, pr.Publishers[0].Unconfirmed)
	}
	return r
}

// CheckClean fails t unless every message the pub of r handed to its
// client was sent, confirmed and received.
func (r PubRun) CheckClean(t *testing.T) {
	t.Helper()
	if r.Pub.Incomplete || r.Pub.Err != nil || !r.PubCompleted || r.Unconfirmed != 0 || r.Sent != r.Handed || r.Received != r.Sent {
		t.Errorf("pub %+v: handed %d, sent %d, unconfirmed %d, received %d: want every one sent, confirmed and received", r.Pub, r.Handed, r.Sent, r.Unconfirmed, r.Received)
	}
}

// CheckCut fails t unless the pub of r, its link cut, did not complete
// and counted as sent only messages the sub received.
func (r PubRun) CheckCut(t *testing.T) {
	t.Helper()
	if !r.Pub.Incomplete || r.PubCompleted {
		t.Errorf("pub %+v: want it incomplete, its link cut", r.Pub)
	}
	if r.Sent == 0 || r.Sent > r.Received {
		t.Errorf("sent %d, the sub received %d: sent counts messages the broker never had", r.Sent, r.Received)
	}
}

// Unconfirmed is the pub's summary when it counted messages unconfirmed.
const Unconfirmed = "that the system did not confirm"

// TopicPrefix is a topic prefix of t's own, its levels joined by sep.
func TopicPrefix(t *testing.T, sep string) string {
	return "mqgate-test" + sep + strings.ReplaceAll(t.Name(), "/", "_")
}

// Settings resolves a role's settings from base and flags, as the command
// does.
func Settings(t *testing.T, role string, base, flags map[string]any) roles.Settings {
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
