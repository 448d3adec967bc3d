package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestFindEnv(t *testing.T) {
	t.Setenv(EnvPath, filepath.Join(t.TempDir(), "no-such-browser"))
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), EnvPath) {
		t.Fatalf("Find with %s naming a missing file: err = %v, want an error naming %s", EnvPath, err, EnvPath)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvPath, exe)
	got, err := Find()
	if err != nil || got != exe {
		t.Fatalf("Find with %s=%s = %q, %v; want that path", EnvPath, exe, got, err)
	}
}

func TestFindNone(t *testing.T) {
	t.Setenv(EnvPath, "")
	t.Setenv("PATH", t.TempDir())
	if _, err := Find(); err != ErrNotFound {
		t.Fatalf("Find with an empty PATH: err = %v, want ErrNotFound", err)
	}
}

// fakeTB records what Require does to a test.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit() // as testing.T.Skipf does
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit() // as testing.T.Fatalf does
}

func TestRequireMissing(t *testing.T) {
	t.Setenv(EnvPath, "")
	t.Setenv("PATH", t.TempDir())
	for _, tc := range []struct {
		ci       string
		wantFail bool
	}{{"", false}, {"false", false}, {"true", true}} {
		t.Run("CI="+tc.ci, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			var f fakeTB
			var wg sync.WaitGroup
			wg.Go(func() { Require(&f) })
			wg.Wait()
			if tc.wantFail && (f.failed == "" || f.skipped != "") {
				t.Errorf("Require: failed %q, skipped %q; want a failure", f.failed, f.skipped)
			}
			if !tc.wantFail && (f.skipped == "" || f.failed != "") {
				t.Errorf("Require: failed %q, skipped %q; want a skip", f.failed, f.skipped)
			}
			if msg := f.failed + f.skipped; !strings.Contains(msg, "chromium") {
				t.Errorf("Require: reason %q does not say how to install chromium", msg)
			}
		})
	}
}

const testPage = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head>
<body style="margin:0;background:#ff0000"><table id="t"><tr><td>cell</td></tr></table>
<svg viewBox="0 0 10 10" width="100"><rect width="10" height="10"/></svg>
<div id="corner" style="position:fixed;right:0;top:0;width:10px;height:10px;background:#0000ff"></div>
<p id="js">no script</p><script>document.getElementById("js").textContent = "script ran";</script>
</body></html>`

func writePage(t *testing.T) string {
	t.Helper()
	page := filepath.Join(t.TempDir(), "page with space.html")
	if err := os.WriteFile(page, []byte(testPage), 0o644); err != nil {
		t.Fatal(err)
	}
	return page
}

func TestDumpDOM(t *testing.T) {
	Require(t)
	dom, err := DumpDOM(context.Background(), writePage(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<table id="t">`, "<td>cell</td>", "<svg", "script ran"} {
		if !strings.Contains(dom, want) {
			t.Errorf("DOM lacks %q:\n%s", want, dom)
		}
	}
}

func TestScreenshot(t *testing.T) {
	Require(t)
	page := writePage(t)
	for _, size := range [][2]int{{1280, 900}, {390, 844}} {
		shot := filepath.Join(t.TempDir(), "shot.png")
		if err := Screenshot(context.Background(), page, shot, size[0], size[1]); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(shot)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != size[0] || b.Dy() != size[1] {
			t.Errorf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), size[0], size[1])
		}
		// The page background is red: the shot shows the page, not a blank window.
		r, g, b, _ := img.At(size[0]-1, size[1]-1).RGBA()
		if r>>8 < 200 || g>>8 > 60 || b>>8 > 60 {
			t.Errorf("bottom-right pixel is (%d,%d,%d), want the page's red", r>>8, g>>8, b>>8)
		}
		// The blue square at the viewport's top right corner is in the
		// shot: the page was laid out as wide as the shot (a headless
		// window is at least 500 pixels wide).
		r, g, b, _ = img.At(size[0]-5, 5).RGBA()
		if r>>8 > 60 || g>>8 > 60 || b>>8 < 200 {
			t.Errorf("%dx%d: pixel (%d, 5) is (%d,%d,%d), want the blue of the top right corner", size[0], size[1], size[0]-5, r>>8, g>>8, b>>8)
		}
	}
}

func TestEval(t *testing.T) {
	Require(t)
	page := writePage(t)
	for _, size := range [][2]int{{1280, 900}, {400, 844}, {320, 568}} {
		out, err := Eval(context.Background(), page, size[0], size[1],
			`var r = document.getElementById("corner").getBoundingClientRect();
			return {w: innerWidth, h: innerHeight, right: r.right, js: document.getElementById("js").textContent};`)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			W, H, Right float64
			JS          string
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		if got.W != float64(size[0]) || got.H != float64(size[1]) || got.Right != float64(size[0]) {
			t.Errorf("%dx%d: viewport %gx%g, corner's right edge at %g; want the viewport asked for", size[0], size[1], got.W, got.H, got.Right)
		}
		if got.JS != "script ran" {
			t.Errorf("fn ran before the page's own script: %q", got.JS)
		}
	}
	// A fragment: the page opens at it.
	out, err := Eval(context.Background(), page+"#js", 400, 300, `return location.hash;`)
	if err != nil || out != `"#js"` {
		t.Errorf("Eval at #js: %s, %v; want \"#js\"", out, err)
	}
	if _, err := Eval(context.Background(), page, 400, 300, `throw new Error("no such thing");`); err == nil || !strings.Contains(err.Error(), "no such thing") {
		t.Errorf("Eval of a throwing function: err = %v, want the exception", err)
	}
	if _, err := Eval(context.Background(), page, 0, 300, `return 1;`); err == nil {
		t.Error("Eval with width 0 succeeded")
	}
}

func TestInjectScript(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"<html><body><p>x</p></body></html>", "<html><body><p>x</p><s></body></html>"},
		{"<HTML><BODY>x</BODY></HTML>", "<HTML><BODY>x<s></BODY></HTML>"},
		{"<p>no body", "<p>no body<s>"},
	} {
		if got := string(injectScript([]byte(tc.in), "<s>")); got != tc.want {
			t.Errorf("injectScript(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCancelled(t *testing.T) {
	Require(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := DumpDOM(ctx, writePage(t)); err == nil {
		t.Fatal("DumpDOM with a cancelled context succeeded")
	}
}

func TestMissingPage(t *testing.T) {
	if _, err := DumpDOM(context.Background(), filepath.Join(t.TempDir(), "missing.html")); err == nil {
		t.Fatal("DumpDOM of a missing file succeeded")
	}
	if err := Screenshot(context.Background(), "x.html", "x.png", 0, 10); err == nil {
		t.Fatal("Screenshot with width 0 succeeded")
	}
}

func TestFileURL(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "a b#c.html")
	if err := os.WriteFile(page, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{page, "file://" + filepath.ToSlash(dir) + "/a%20b%23c.html"},
		{page + "#sec-1", "file://" + filepath.ToSlash(dir) + "/a%20b%23c.html#sec-1"},
	} {
		got, err := FileURL(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("FileURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := FileURL(filepath.Join(dir, "missing.html#x")); err == nil {
		t.Error("FileURL of a missing file succeeded")
	}
}
