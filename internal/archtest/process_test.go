package archtest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// measuring are the packages of the measurement layer (docs/architecture.md)
// and the libraries only it needs.
var measuring = []string{internal("load"), internal("throughput"), internal("permessage"), internal("engine"), internal("driver"),
	internal("session"), internal("burst"), internal("roles"), internal("clockoffset"),
	"github.com/HdrHistogram/hdrhistogram-go", "github.com/prometheus/client_golang"}

// formatsLayer are the packages of the formats layer (docs/architecture.md).
var formatsLayer = []string{"meta", "measurements", "loadsummary", "permessagefile", "subexp", "experiment", "extformat", "clobber", "config"}

// TestProcessReadsFormats: process reads the results of run load and run
// permessage through their formats' readers, never through what measured
// them, so that summarising a folder pulls in no measurement package,
// HDR histogram or metrics exporter; and cmd/process depends on nothing
// cmd/check does not but process's own packages and the formats layer
// (plotting is check's too), so that a library added to process alone
// shows here.
func TestProcessReadsFormats(t *testing.T) {
	for _, p := range processProblems(graph(t)) {
		t.Error(p)
	}
}

// processProblems applies TestProcessReadsFormats's rules to g.
func processProblems(g map[string][]string) []string {
	var out []string
	for _, d := range deps(g, internal("process")) {
		for _, m := range measuring {
			if under(d, m) {
				out = append(out, fmt.Sprintf("internal/process depends on %s: it reads run's files through the formats layer "+
					"(loadsummary, permessagefile), never through what measured them", strings.TrimPrefix(d, module+"/")))
			}
		}
	}
	check := deps(g, module+"/cmd/check")
	own := []string{module + "/cmd/process", internal("process"), internal("cliapp/processcmd")}
	for _, d := range deps(g, module+"/cmd/process") {
		name, _ := strings.CutPrefix(d, module+"/internal/")
		if isStd(d) || slices.Contains(check, d) || slices.Contains(own, d) || under(d, internal("process")) || slices.Contains(formatsLayer, name) {
			continue
		}
		out = append(out, fmt.Sprintf("cmd/process depends on %s, which cmd/check does not: process needs no more than check's packages, its own and the formats layer's", strings.TrimPrefix(d, module+"/")))
	}
	return out
}

// TestProcessRuleCatches: process reaching a measurement package, or a
// library check does without, is caught.
func TestProcessRuleCatches(t *testing.T) {
	g := map[string][]string{
		module + "/cmd/process":       {internal("cliapp/processcmd")},
		internal("cliapp/processcmd"): {internal("process")},
		internal("process"):           {internal("loadsummary"), internal("clockoffset"), "k8s.io/apimachinery/pkg/util/sets"},
		module + "/cmd/check":         {internal("check")},
	}
	got := strings.Join(processProblems(g), "\n")
	for _, want := range []string{"internal/process depends on internal/clockoffset", "cmd/process depends on k8s.io/apimachinery/pkg/util/sets, which cmd/check does not"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems %q\nwant %q", got, want)
		}
	}
	if strings.Contains(got, "depends on internal/loadsummary") {
		t.Errorf("problems %q: the formats layer is process's to read", got)
	}
}
