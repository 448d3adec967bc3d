package runapp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/nats"
)

// TestRoleFlagsBeforeRole runs `run --run-id X --out-dir D --log-level
// error qry …` (the roles' flags given to run itself) on an embedded NATS
// server: the report lands in D/X. The same flags before anything but a
// role are refused with exit 2, and run's own latency flags still work
// next to them.
func TestRoleFlagsBeforeRole(t *testing.T) {
	url, stop, err := nats.Transport{}.StartEmbedded(context.Background(), driver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	out := t.TempDir()
	code, _, stderr := run(t, "--run-id", "top", "--out-dir", out, "--log-level", "error",
		"qry", "--endpoint", url, "--duration", "300ms", "--instance", "7")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "top", "roles", "qry-query-7.json")); err != nil {
		t.Errorf("no report: %v; stderr %s", err, stderr)
	}
	for _, args := range [][]string{
		{"--out-dir", out, "--payloads", "16", "--samples", "10"},
		{"--prom-port", "9100", "load"},
		{"--config", "x.yaml", "throughput"},
	} {
		code, _, stderr := run(t, args...)
		if code != 2 || !strings.Contains(stderr, args[0]+" is a setting of the roles") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	code, _, stderr = run(t, "--samples", "x")
	if code != 2 || !strings.Contains(stderr, "--samples") {
		t.Errorf("latency flag: exit %d: %s", code, stderr)
	}
}
