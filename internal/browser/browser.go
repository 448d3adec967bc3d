package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// Screenshot loads the local HTML file page (see FileURL) in a viewport of
// w×h CSS pixels and saves it as a PNG file at png, w×h pixels.
//
// Chromium's headless windows are at least 500 pixels wide while a page
// loads: its scripts, and anything measured then (see Eval), see that width
// and only the shot is taken at w. The page is therefore shown in a frame
// of exactly w×h pixels, whose viewport its layout, media queries and
// scripts all see.
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
	frame, cleanup, err := writeFrame(u, w, h)
	if err != nil {
		return err
	}
	defer cleanup()
	if _, err := run(ctx, "--screenshot="+abs, "--window-size="+strconv.Itoa(w)+","+strconv.Itoa(h), frame); err != nil {
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

// Eval loads the local HTML file page (see FileURL) in a viewport of w×h CSS
// pixels, as Screenshot does, and once it has loaded, run its scripts and
// its fonts are ready, runs the JavaScript function body fn in it and
// returns the JSON encoding of what fn returns, e.g. measures of the
// layout:
//
//	var r = document.querySelector("h1").getBoundingClientRect();
//	return {top: r.top, height: r.height};
//
// It runs fn in a copy of the page, in a temporary directory, with a
// script appended; the page must not depend on files beside it. An
// exception thrown by fn is returned as an error.
func Eval(ctx context.Context, page string, w, h int, fn string) (string, error) {
	if w <= 0 || h <= 0 {
		return "", fmt.Errorf("eval in %s: window size %dx%d: expected positive width and height", page, w, h)
	}
	u, err := FileURL(page)
	if err != nil {
		return "", err
	}
	pu, err := url.Parse(u)
	if err != nil {
		return "", err
	}
	src, err := os.ReadFile(filepath.FromSlash(pu.Path))
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "mqgate-eval-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	probe := "<script>window.addEventListener(\"load\", function () {\n" +
		"document.fonts.ready.then(function () {\n" +
		"var r;\ntry { r = {value: (function () {\n" + fn + "\n})()}; } catch (e) { r = {error: String(e)}; }\n" +
		"parent.postMessage(\"" + evalTag + "\" + JSON.stringify(r), \"*\");\n});\n});</script>\n"
	copyPath := filepath.Join(dir, "page.html")
	if err := os.WriteFile(copyPath, injectScript(src, probe), 0o644); err != nil {
		return "", err
	}
	cu := (&url.URL{Scheme: "file", Path: filepath.ToSlash(copyPath), Fragment: pu.Fragment}).String()
	frame, cleanup, err := writeFrame(cu, w, h)
	if err != nil {
		return "", err
	}
	defer cleanup()
	out, err := run(ctx, "--dump-dom", "--window-size="+strconv.Itoa(w)+","+strconv.Itoa(h), frame)
	if err != nil {
		return "", err
	}
	m := evalResultRE.FindSubmatch(out)
	if m == nil || len(m[1]) == 0 {
		return "", fmt.Errorf("eval in %s: no result: the page did not load, or fn did not finish", page)
	}
	var r struct {
		Value json.RawMessage `json:"value"`
		Error *string         `json:"error"`
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &r); err != nil {
		return "", fmt.Errorf("eval in %s: %w", page, err)
	}
	if r.Error != nil {
		return "", fmt.Errorf("eval in %s: %s", page, *r.Error)
	}
	if r.Value == nil {
		return "null", nil
	}
	return string(r.Value), nil
}

// evalTag starts the message a page sends its frame with Eval's result.
const evalTag = "mqgate-eval:"

var evalResultRE = regexp.MustCompile(`(?s)<pre id="mqgate-eval">(.*?)</pre>`)

// injectScript returns the HTML document src with script inserted before
// its closing body tag, or appended when it has none.
func injectScript(src []byte, script string) []byte {
	i := bytes.LastIndex(bytes.ToLower(src), []byte("</body>"))
	if i < 0 {
		return append(append([]byte{}, src...), script...)
	}
	out := make([]byte, 0, len(src)+len(script))
	out = append(out, src[:i]...)
	out = append(out, script...)
	return append(out, src[i:]...)
}

// writeFrame writes, in a temporary directory, a page that shows the page
// at URL u in a frame of w×h CSS pixels at its top left corner, and
// collects what Eval's probe sends. It returns the page's URL and a
// function that removes it.
func writeFrame(u string, w, h int) (string, func(), error) {
	dir, err := os.MkdirTemp("", "mqgate-frame-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	doc := `<!DOCTYPE html><html><head><meta charset="utf-8"><style>html,body{margin:0;padding:0;overflow:hidden;background:#fff}` +
		`iframe{display:block;border:0}</style></head><body>` +
		`<iframe src="` + html.EscapeString(u) + `" style="width:` + strconv.Itoa(w) + `px;height:` + strconv.Itoa(h) + `px"></iframe>` +
		`<pre id="mqgate-eval"></pre><script>window.addEventListener("message", function (e) {` +
		`if (typeof e.data === "string" && e.data.indexOf("` + evalTag + `") === 0) ` +
		`document.getElementById("mqgate-eval").textContent = e.data.slice(` + strconv.Itoa(len(evalTag)) + `);});</script>` +
		`</body></html>`
	path := filepath.Join(dir, "frame.html")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		cleanup()
		return "", nil, err
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String(), cleanup, nil
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
