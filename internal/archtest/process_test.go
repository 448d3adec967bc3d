package archtest

import (
	"strings"
	"testing"
)

// TestProcessReadsFormats: process reads the results of run load and run
// permessage through their formats' readers, never through what measured
// them, so that summarising a folder pulls in no driver, engine, HDR
// histogram or metrics exporter.
func TestProcessReadsFormats(t *testing.T) {
	g := graph(t)
	measuring := []string{internal("load"), internal("throughput"), internal("permessage"), internal("engine"), internal("driver"),
		"github.com/HdrHistogram/hdrhistogram-go", "github.com/prometheus/client_golang"}
	for _, d := range deps(g, internal("process")) {
		for _, m := range measuring {
			if under(d, m) {
				t.Errorf("internal/process depends on %s: it reads run's files through the formats layer "+
					"(loadsummary, permessagefile), never through what measured them", strings.TrimPrefix(d, module+"/"))
			}
		}
	}
}
