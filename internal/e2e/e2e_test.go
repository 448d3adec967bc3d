package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/browser"
)

// tools are the commands the chain runs.
var tools = []string{"run", "process", "requirements", "check", "compare", "history"}

const (
	fixture = "testdata/fastrtps-v192/measurements_interprocess_reliable.csv"
	rawName = "measurements_interprocess_reliable.csv"
)

// built is the folder into which buildOnce compiles every command of cmd/,
// once for all the package's tests; TestMain removes it.
var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if built != "" {
		os.RemoveAll(built)
	}
	os.Exit(code)
}

// buildTools puts the tools, and the cmd/ patterns in more (such as "..."
// for all), into dir and returns the tools' paths by name.
func buildTools(t *testing.T, dir string, more ...string) map[string]string {
	t.Helper()
	names := append(tools[:len(tools):len(tools)], more...)
	if slices.Contains(more, "...") {
		names = nil
	}
	copyTools(t, dir, names...)
	bins := map[string]string{}
	for _, name := range tools {
		bins[name] = filepath.Join(dir, name)
	}
	return bins
}

// copyTools copies the commands of cmd/ named (all of them when none is)
// into dir, compiling them all on the first call: linking the seven
// programs is most of what a build costs even with the build cache, and
// every test would pay it again for the same programs. Each test gets
// copies of its own, so that none can change another's.
func copyTools(t *testing.T, dir string, names ...string) {
	t.Helper()
	buildOnce.Do(func() {
		if built, buildErr = os.MkdirTemp("", "mqgate-e2e-bin-"); buildErr != nil {
			return
		}
		goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goTool); err != nil {
			goTool = "go"
		}
		args := []string{"build", "-o", built + string(filepath.Separator), "github.com/mqgate/mqgate/cmd/..."}
		if out, err := exec.Command(goTool, args...).CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	if len(names) == 0 {
		entries, err := os.ReadDir(built)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			names = append(names, e.Name())
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(built, name))
		if err != nil {
			t.Fatalf("%s: not among the commands of cmd/: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// hasFlag reports whether the tool's --help lists flag.
func hasFlag(t *testing.T, bin, flag string) bool {
	t.Helper()
	out, _ := exec.Command(bin, "--help").CombinedOutput()
	return regexp.MustCompile(`(?m)(^|[\s,])` + regexp.QuoteMeta(flag) + `([\s,=]|$)`).Match(out)
}

// runTool runs a tool and checks its exit code.
func runTool(t *testing.T, wantCode int, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", filepath.Base(bin), err)
	}
	if code != wantCode {
		t.Fatalf("%s %s: exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", filepath.Base(bin), strings.Join(args, " "), code, wantCode, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// scaledRaw writes a copy of the fixture's raw file to path with every
// latency of the payloads at or above minPayload multiplied by factor, and
// Sample counting from 1 within each payload as run writes it (formats §2;
// Fast-RTPS LatencyTest counts across payloads).
func scaledRaw(t *testing.T, path string, factor float64, minPayload int) {
	t.Helper()
	in, err := os.Open(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(in)
	sample, prev := 0, ""
	for line := 1; sc.Scan(); line++ {
		f := strings.Split(sc.Text(), ",")
		if line == 1 || len(f) != 3 {
			out.WriteString(sc.Text() + "\n")
			continue
		}
		payload, err1 := strconv.Atoi(f[1])
		lat, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s:%d: malformed row %q", fixture, line, sc.Text())
		}
		if payload >= minPayload {
			lat *= factor
		}
		if f[1] != prev {
			sample, prev = 0, f[1]
		}
		sample++
		fmt.Fprintf(&out, "%d,%s,%s\n", sample, f[1], strconv.FormatFloat(lat, 'f', 4, 64))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// page is one HTML report written by a tool.
type page struct {
	tool, path string
	// verdict is the status the page's verdict banner must show, or "" when
	// the page has no verdict.
	verdict string
}

// TestReports runs the whole chain and opens every HTML report in Chromium.
func TestReports(t *testing.T) {
	t.Parallel() // gates nothing real: after the gating tests, beside the others (doc.go)
	if testing.Short() {
		t.Skip("skipping end-to-end test in -short mode")
	}
	work := t.TempDir()
	bins := buildTools(t, filepath.Join(work, "bin"))
	html := map[string]bool{}
	for _, name := range []string{"process", "check", "compare", "history"} {
		html[name] = hasFlag(t, bins[name], "--html")
	}

	// Experiments: the fixture as measured, two close runs (the baseline for
	// requirements), and one where large payloads got 25 % slower.
	results := filepath.Join(work, "results")
	baseline := filepath.Join(work, "baseline")
	exps := []struct {
		name   string
		factor float64
		dirs   []string
	}{
		{"2025-01-01_00-00-00", 1, []string{results, baseline}},
		{"2025-01-02_00-00-00", 0.98, []string{results, baseline}},
		{"2025-01-03_00-00-00", 1.02, []string{results, baseline}},
		{"2025-01-04_00-00-00", 1.25, []string{results}},
	}
	reports := filepath.Join(work, "reports")
	var pages []page
	for i, e := range exps {
		dir := filepath.Join(results, e.name)
		scaledRaw(t, filepath.Join(dir, rawName), e.factor, 4096)
		args := []string{dir}
		if i == 0 && html["process"] {
			// One process report is enough; the others only need summaries.
			p := filepath.Join(reports, "process.html")
			args = append([]string{"--format", "svg", "--html", p}, args...)
			pages = append(pages, page{tool: "process", path: p})
		} else {
			args = append([]string{"--no-plots"}, args...)
		}
		runTool(t, 0, bins["process"], append([]string{"--quiet"}, args...)...)
		if _, err := os.Stat(filepath.Join(dir, "measurements_interprocess_reliable_summary.csv")); err != nil {
			t.Fatalf("process wrote no summary: %v", err)
		}
		for _, d := range e.dirs[1:] {
			if err := os.MkdirAll(filepath.Join(d, e.name), 0o755); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, "measurements_interprocess_reliable_summary.csv"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, e.name, "measurements_interprocess_reliable_summary.csv"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	reqs := filepath.Join(work, "latency_requirements.csv")
	runTool(t, 0, bins["requirements"], "--experiments-results", baseline, "--output-file", reqs)

	slow := filepath.Join(results, exps[3].name)
	ref := filepath.Join(results, exps[0].name)
	if html["check"] {
		p := filepath.Join(reports, "check.html")
		runTool(t, 1, bins["check"], "--requirements", reqs, "--experiment-directory", slow,
			"--plots-directory", filepath.Join(work, "check-plots"), "--format", "svg", "--html", p)
		pages = append(pages, page{tool: "check", path: p, verdict: "failed"})
		p = filepath.Join(reports, "check-passed.html")
		runTool(t, 0, bins["check"], "--requirements", reqs, "--experiment-directory", ref,
			"--plots-directory", filepath.Join(work, "check-plots-passed"), "--format", "svg", "--html", p)
		pages = append(pages, page{tool: "check", path: p, verdict: "passed"})
	}
	if html["compare"] {
		p := filepath.Join(reports, "compare.html")
		runTool(t, 1, bins["compare"], "--reference", ref, "--results", slow,
			"--plots-directory", filepath.Join(work, "compare-plots"), "--format", "svg", "--html", p)
		pages = append(pages, page{tool: "compare", path: p, verdict: "failed"})
	}
	if html["history"] {
		p := filepath.Join(reports, "history.html")
		runTool(t, 0, bins["history"], "--experiments-results", results, "--requirements", reqs,
			"--plots-directory", filepath.Join(work, "history-plots"), "--format", "svg", "--html", p)
		pages = append(pages, page{tool: "history", path: p})
	}

	for _, p := range pages {
		t.Run(filepath.Base(p.path), func(t *testing.T) { checkPage(t, p) })
	}
	for _, name := range []string{"process", "check", "compare", "history"} {
		if !html[name] {
			t.Run(name, func(t *testing.T) {
				t.Skipf("cmd/%s has no --html flag yet: its report is not tested", name)
			})
		}
	}
}

// checkPage checks a report's file, then loads it in Chromium: the verdict
// (when expected) comes first, tables and plots are in the DOM, and
// screenshots at laptop and phone sizes are saved.
func checkPage(t *testing.T, p page) {
	b, err := os.ReadFile(p.path)
	if err != nil {
		t.Fatalf("%s wrote no HTML report: %v", p.tool, err)
	}
	src := string(b)
	for _, re := range []string{`(?i)\ssrc\s*=`, `(?i)<link\b`, `(?i)href="(?:https?:|//)`} {
		if m := regexp.MustCompile(re).FindString(src); m != "" {
			t.Errorf("%s report refers to something outside itself: %q", p.tool, m)
		}
	}
	browser.Require(t)
	ctx := context.Background()
	dom, err := browser.DumpDOM(ctx, p.path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(dom, "<table"); n == 0 {
		t.Errorf("%s report: no table in the DOM", p.tool)
	}
	if n := strings.Count(dom, "<svg"); n == 0 {
		t.Errorf("%s report: no plot in the DOM", p.tool)
	}
	if !strings.Contains(dom, "interprocess_reliable") {
		t.Errorf("%s report does not name the sub-experiment", p.tool)
	}
	verdict := strings.Index(dom, `id="verdict"`)
	if p.verdict != "" {
		if verdict < 0 {
			t.Errorf("%s report has no verdict", p.tool)
		} else if !strings.Contains(dom, `class="verdict verdict-`+p.verdict+`"`) {
			t.Errorf("%s report: verdict is not %q", p.tool, p.verdict)
		} else if toc := strings.Index(dom, `id="contents"`); toc >= 0 && toc < verdict {
			t.Errorf("%s report: the verdict does not come first", p.tool)
		}
	}
	name := strings.TrimSuffix(filepath.Base(p.path), ".html")
	for _, s := range []struct {
		name string
		w, h int
	}{{"laptop", 1280, 2000}, {"phone", 390, 844}} {
		png := filepath.Join(t.TempDir(), name+"-"+s.name+".png")
		if err := browser.Screenshot(ctx, p.path, png, s.w, s.h); err != nil {
			t.Fatal(err)
		}
		if dir := os.Getenv("MQGATE_SCREENSHOTS"); dir != "" {
			b, err := os.ReadFile(png)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(png)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
