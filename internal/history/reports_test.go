package history_test

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/gate"
)

// TestGateReports: --gate-junit, --gate-markdown and --gate-json write the
// gate's verdict in the formats of check and compare, one check per judged
// series, failing exactly the series printed FAILED, with the Holm p-values
// decided on; without --gate they are refused.
func TestGateReports(t *testing.T) {
	root := tputHistory(t, 0.8, 4)
	dir := t.TempDir()
	junit, md, js := filepath.Join(dir, "h.xml"), filepath.Join(dir, "h.md"), filepath.Join(dir, "h.json")
	code, stdout, stderr := runHistoryApp(t, "-e", root, "-p", filepath.Join(dir, "plots"), "--format", "svg", "--gate",
		"--gate-junit", junit, "--gate-markdown", md, "--gate-json", js)
	if code != exit.GateFailed {
		t.Fatalf("exit %d, want %d\n%s%s", code, exit.GateFailed, stdout, stderr)
	}
	var v gate.Verdict
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	failedLines := strings.Count(stdout, "\nFAILED ")
	if v.Tool != "history" || v.Status != gate.Failed || v.Failed != failedLines || v.Failed == 0 || v.Subject != root || v.Passed+v.Failed != len(v.Checks) {
		t.Errorf("verdict %s %s: %d failed (%d FAILED lines), %d passed of %d checks, subject %q", v.Tool, v.Status, v.Failed, failedLines, v.Passed, len(v.Checks), v.Subject)
	}
	for _, c := range v.Checks {
		if !strings.Contains(stdout, "FAILED "+c.SubExperiment) && c.Status == gate.Failed {
			t.Errorf("%s %d B failed in the verdict, not on stdout", c.SubExperiment, c.Payload)
		}
		if c.Stats != nil && (c.Stats.PAdjusted < c.Stats.P || (c.Stats.PAdjusted <= v.FalseFail) != (c.Status == gate.Failed)) {
			t.Errorf("%s %d B %s: p %v Holm %v at level %v", c.SubExperiment, c.Payload, c.Status, c.Stats.P, c.Stats.PAdjusted, v.FalseFail)
		}
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if b, err = os.ReadFile(junit); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(b, &doc); err != nil || doc.Tests != len(v.Checks) || doc.Failures != v.Failed {
		t.Errorf("JUnit: %d tests, %d failures (%v); want %d, %d", doc.Tests, doc.Failures, err, len(v.Checks), v.Failed)
	}
	if b, err = os.ReadFile(md); err != nil || !strings.Contains(string(b), "history") || !strings.Contains(string(b), "(Holm ") {
		t.Errorf("Markdown (%v):\n%s", err, b)
	}

	code, _, stderr = runHistoryApp(t, "-e", root, "-p", filepath.Join(dir, "plots2"), "--gate-junit", junit)
	if code != exit.Usage || !strings.Contains(stderr, "--gate-junit needs --gate") {
		t.Errorf("--gate-junit without --gate: exit %d, %s", code, stderr)
	}
}
