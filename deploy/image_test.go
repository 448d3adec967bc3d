package deploy

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/testenv"
)

// imageUID is the unprivileged user the image runs as (deploy/Dockerfile).
const imageUID = 65532

// maxImageBytes bounds the image: seven static binaries and nothing else.
const maxImageBytes = 250 << 20

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// image builds the image once per test binary with `make image` and
// returns its tag, or returns $MQGATE_TEST_IMAGE, an image built before
// (by an earlier CI step, say). `make image` reuses the static helper
// $MQGATE_ZENOH_HELPER names (.ci/run builds it first), else builds it with
// cargo. Without Docker (or cargo when it must build the helper) the test
// skips, or fails under CI=true.
func image(t *testing.T) string {
	t.Helper()
	docker := testenv.Program(t, "docker", "install it with: apt-get install docker.io")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, docker, "info", "--format", "{{.ServerVersion}}").CombinedOutput(); err != nil {
		testenv.Unavailable(t, "the Docker daemon is not reachable (%v: %s); start it with: dockerd --bridge=none --iptables=false --ip6tables=false &", err, strings.TrimSpace(string(out)))
	}
	if img := os.Getenv("MQGATE_TEST_IMAGE"); img != "" {
		return img
	}
	if os.Getenv("MQGATE_ZENOH_HELPER") == "" {
		testenv.Program(t, "cargo", "install Rust (the image holds the Zenoh helper, built by cargo), or set MQGATE_ZENOH_HELPER to a static helper built before")
	}
	buildOnce.Do(func() {
		tag := "mqgate:test"
		cmd := exec.Command("make", "-C", "..", "image", "IMAGE="+tag)
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("make image: %v\n%s", err, out)
			return
		}
		built = tag
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return built
}

// docker runs docker with args and returns its combined output, failing
// t unless it exits with code want.
func docker(t *testing.T, want int, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("docker %s: %v", strings.Join(args, " "), err)
	}
	if code != want {
		t.Fatalf("docker %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, out)
	}
	return string(out)
}

// volume is an empty folder the image's user may write into, as a user
// would make one (or run the container with --user "$(id -u)").
func volume(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "artifacts")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil { // past the umask
		t.Fatal(err)
	}
	return dir
}

// TestImage builds the image and runs what it holds: every tool, the
// Zenoh helper and nats-server answer, it runs as the unprivileged user,
// and a short run into a mounted folder, with the root file system
// read-only, writes its experiment there (owned by that user), which
// process then summarises in the image too.
func TestImage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the container image; skipped with -short")
	}
	// Mostly waiting for containers: the image and Compose tests overlap.
	t.Parallel()
	img := image(t)
	if v := strings.TrimSpace(docker(t, 0, "image", "inspect", "--format", "{{.Config.User}}", img)); v != fmt.Sprintf("%d:%d", imageUID, imageUID) {
		t.Errorf("image user %q, want %d:%d", v, imageUID, imageUID)
	}
	size, err := strconv.ParseInt(strings.TrimSpace(docker(t, 0, "image", "inspect", "--format", "{{.Size}}", img)), 10, 64)
	if err != nil || size <= 0 || size > maxImageBytes {
		t.Errorf("image size %d bytes (%v), want at most %d", size, err, maxImageBytes)
	}
	t.Logf("image %s: %.1f MB", img, float64(size)/1e6)
	run := []string{"run", "--rm", "--network", "host", "--read-only"}
	if out := docker(t, 0, append(run, img, "run", "--version")...); !strings.HasPrefix(out, "run version ") {
		t.Errorf("run --version: %q", out)
	}
	if out := docker(t, 0, append(run, img, "mqgate-zenoh", "--version")...); !strings.Contains(out, "zenoh") {
		t.Errorf("mqgate-zenoh --version: %q", out)
	}
	if out := docker(t, 0, append(run, img, "nats-server", "--version")...); !strings.HasPrefix(out, "nats-server: v") {
		t.Errorf("nats-server --version: %q", out)
	}
	for _, tool := range []string{"process", "check", "compare", "requirements", "history"} {
		if out := docker(t, 0, append(run, img, tool, "--help")...); !strings.Contains(out, "USAGE") {
			t.Errorf("%s --help: %q", tool, out)
		}
	}

	vol := volume(t)
	mount := []string{"-v", vol + ":/artifacts"}
	docker(t, 0, append(append(run, mount...), img, "run", "--quiet", "--samples", "300", "--warmup", "30", "--payloads", "64",
		"-s", "intraprocess_reliable,interprocess_reliable_tcp", "--out", "/artifacts", "--name", "r1")...)
	docker(t, 0, append(append(run, mount...), img, "process", "--no-plots", "/artifacts/r1")...)
	exp := filepath.Join(vol, "r1")
	for _, f := range []string{"meta.json", "measurements_intraprocess_reliable.csv", "measurements_interprocess_reliable_tcp.csv",
		"measurements_interprocess_reliable_tcp_summary.csv"} {
		fi, err := os.Stat(filepath.Join(exp, f))
		if err != nil {
			t.Errorf("the run in the image did not write %s: %v", f, err)
			continue
		}
		if uid := fi.Sys().(*syscall.Stat_t).Uid; uid != imageUID {
			t.Errorf("%s is owned by uid %d, want the image's user %d", f, uid, imageUID)
		}
	}
	if b, err := os.ReadFile(filepath.Join(exp, "meta.json")); err != nil || !strings.Contains(string(b), `"completed": true`) {
		t.Errorf("meta.json of the run in the image does not say it completed:\n%.400s", b)
	}
}
