package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// EnvPath names the environment variable that, when set, gives the Chromium
// executable to use instead of searching PATH.
const EnvPath = "MQGATE_CHROMIUM"

// DefaultTimeout bounds one browser run when the context has no deadline.
const DefaultTimeout = 60 * time.Second

// candidates are the executable names searched in PATH, in order.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless_shell", "chrome-headless-shell"}

// ErrNotFound is returned by Find when no Chromium executable is found.
var ErrNotFound = errors.New("no Chromium found: install the Debian package chromium (apt-get install -y chromium) or set " + EnvPath)

// Find returns the path of the Chromium executable: the one named by
// MQGATE_CHROMIUM when set, else the first of chromium, chromium-browser,
// google-chrome, ... found in PATH.
func Find() (string, error) {
	if p := os.Getenv(EnvPath); p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvPath, p, err)
		}
		return path, nil
	}
	for _, name := range candidates {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", ErrNotFound
}

// baseFlags keep a headless run quiet, isolated and off the network.
var baseFlags = []string{
	"--headless",
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--no-default-browser-check",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--disable-extensions",
	"--disable-default-apps",
	"--disable-dev-shm-usage",
	"--mute-audio",
	"--hide-scrollbars",
	"--force-device-scale-factor=1",
	"--host-resolver-rules=MAP * ~NOTFOUND",
	// Let the page's scripts run before the DOM is dumped or the page shot.
	"--virtual-time-budget=2000",
}

// FileURL returns the file:// URL of the local file page, which must exist.
// A "#fragment" after the file name is kept in the URL, so that a test can
// open a page at an anchor.
func FileURL(page string) (string, error) {
	frag := ""
	if _, err := os.Stat(page); err != nil {
		if i := strings.LastIndexByte(page, '#'); i >= 0 {
			page, frag = page[:i], page[i+1:]
		}
	}
	abs, err := filepath.Abs(page)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", err
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs), Fragment: frag}).String(), nil
}

// DumpDOM loads the local HTML file page (see FileURL) and returns its serialised DOM.
func DumpDOM(ctx context.Context, page string) (string, error) {
	u, err := FileURL(page)
	if err != nil {
		return "", err
	}
	out, err := run(ctx, "--dump-dom", u)
	if err != nil {
		return "", err
	}
	if !bytes.Contains(out, []byte("<html")) {
		return "", fmt.Errorf("chromium --dump-dom %s: no <html> in output (%d bytes)", u, len(out))
	}
	return string(out), nil
}

// Screenshot loads the local HTML file page (see FileURL) in a window of w×h CSS pixels
// and saves what the window shows as a PNG file at png.
func Screenshot(ctx context.Context, page, png string, w, h int) error {
	if w <= 0 || h <= 0 {
		return fmt.Errorf("screenshot %s: window size %dx%d: expected positive width and height", png, w, h)
	}
	u, err := FileURL(page)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(png)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return err
	}
	os.Remove(abs) // so that a stale file is not taken for a new shot
	if _, err := run(ctx, "--screenshot="+abs, "--window-size="+strconv.Itoa(w)+","+strconv.Itoa(h), u); err != nil {
		return err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return fmt.Errorf("chromium --screenshot %s: no screenshot written: %w", u, err)
	}
	if fi.Size() == 0 {
		return fmt.Errorf("chromium --screenshot %s: empty screenshot %s", u, abs)
	}
	return nil
}

// run executes Chromium with a temporary profile and returns its standard
// output.
func run(ctx context.Context, args ...string) ([]byte, error) {
	path, err := Find()
	if err != nil {
		return nil, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	profile, err := os.MkdirTemp("", "mqgate-chromium-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(profile)

	argv := append(append(append([]string{}, baseFlags...), "--user-data-dir="+profile), args...)
	cmd := exec.CommandContext(ctx, path, argv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Chromium starts helper processes; end them all with it.
	setProcessGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	// Crash reporting and D-Bus lookups only slow a headless run down.
	cmd.Env = append(os.Environ(), "HOME="+profile, "DBUS_SESSION_BUS_ADDRESS=disabled:")
	err = cmd.Run()
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, fmt.Errorf("chromium %s: %w (stderr: %s)", lastArg(args), ctxErr, tail(stderr.String()))
	}
	if err != nil {
		return nil, fmt.Errorf("chromium %s: %w (stderr: %s)", lastArg(args), err, tail(stderr.String()))
	}
	return stdout.Bytes(), nil
}

func lastArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[len(args)-1]
}

// tail returns the last lines of Chromium's chatty standard error.
func tail(s string) string {
	s = strings.TrimSpace(s)
	lines := strings.Split(s, "\n")
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	return strings.Join(lines, "\n")
}
