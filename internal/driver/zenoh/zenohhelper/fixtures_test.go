package zenohhelper

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/goldenfile"
)

// TestWriteFixtures rewrites testdata/<role>/ from a real run of each role
// pair when the tests run with -update (and the helper is built):
//
//	go test ./internal/zenohhelper -run TestWriteFixtures -update
func TestWriteFixtures(t *testing.T) {
	if !goldenfile.Update() {
		t.Skip("rewrites testdata only with -update")
	}
	bin := helperBin(t)
	ctx := watchdog(t)
	out := func(role string) string {
		dir := filepath.Join("testdata", role)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	pong := start(t, ctx, bin, PongArgs(Serve{Common: Common{Listen: listen, Reliable: true, Out: out("pong")}}))
	ping := Ping{Common: Common{Connect: []string{tcpOf(t, pong)}, Reliable: true, Out: out("ping")}, Payloads: []int{16, 1024, 16384}, Samples: 20, Warmup: 5}
	if e := run(t, ctx, bin, ping.Args()); e.Err() != nil {
		t.Fatal(e.Err())
	}
	pong.Stop(30 * time.Second)

	runID := uint32(1)
	sub := start(t, ctx, bin, Sub{Common: Common{Listen: listen, Reliable: true, Out: out("sub")}, Publishers: 2}.Args())
	pub := Pub{Common: Common{Connect: []string{tcpOf(t, sub)}, Reliable: true, Out: out("pub")}, Payloads: []int{16, 64},
		Rate: 100, Publishers: 2, Duration: 100 * time.Millisecond, Warmup: 20 * time.Millisecond, RunID: &runID}
	if e := run(t, ctx, bin, pub.Args()); e.Err() != nil {
		t.Fatal(e.Err())
	}
	if e := sub.Wait(); e.Err() != nil {
		t.Fatal(e.Err())
	}

	qa := start(t, ctx, bin, Queryable{Common: Common{Listen: listen, Reliable: true, Out: out("queryable")}, Replies: 2}.Args())
	q := Query{Common: Common{Connect: []string{tcpOf(t, qa)}, Reliable: true, Out: out("query")}, Payloads: []int{16, 1024}, Samples: 10, Warmup: 2, Replies: 2,
		ResultBytes: true}
	if e := run(t, ctx, bin, q.Args()); e.Err() != nil {
		t.Fatal(e.Err())
	}
	qa.Stop(30 * time.Second)
}
