package runapp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/engine"
	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/permessage"
)

// TestPerMessageMemory: a run permessage whose messages would not fit in
// memory until its files are written is refused before anything is
// measured or created, naming --count, the payloads and the memory. It was
// measured, then killed for memory (the stack trace of Go's "fatal error:
// out of memory" under a limit) with nothing of it written.
func TestPerMessageMemory(t *testing.T) {
	const count, payloads = 100_000_000, 7 // --count's largest, 16..1024
	if avail, _ := engine.AvailableMemory(); float64(count)*payloads*permessage.BytesPerMessage <= 0.8*float64(avail) {
		t.Skipf("%d B available: this machine holds the run", avail)
	}
	out := t.TempDir()
	code, _, stderr := run(t, "permessage", "-s", "intraprocess_reliable", "--count", "100000000", "--payloads", "16..1024", "-o", out, "--name", "big")
	if code != exit.Usage || !strings.Contains(stderr, "--count 100000000 × 7 payloads need about") || !strings.Contains(stderr, "choose a smaller --count or fewer --payloads") {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "big")); err == nil {
		t.Errorf("the experiment folder was created")
	}
}
