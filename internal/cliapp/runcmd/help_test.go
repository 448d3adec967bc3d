package runcmd

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestMeasuringHelp: the help of run permessage, run throughput and run ab
// says what they do now: O_n taken just before Send, a negative latency
// failing the run, the throughput file's overall rate when the windows
// disagree; the search ranked by the delivered rate, stopping within the
// noise, and the headline from the confirmation periods; the gate's sign
// tests, group-sequential boundaries, ABBA orientations and dependence
// test, and no example below the pairs a compare needs.
func TestMeasuringHelp(t *testing.T) {
	for _, c := range []struct {
		cmd       *cli.Command
		want, not []string
	}{
		{perMessageCommand(), []string{"just before the message is handed to Send", "negative L_n", "fails the run",
			"disagrees with the overall receive rate by more than\n±10 %", "the overall rate, (delivered − 1) / (last I −\nfirst I)"},
			[]string{"when Send returned", "(the RT_n samples)"}},
		{throughputCommand(), []string{"searched by the delivered\nrate", "bisection stopped within the noise", "5 confirmation periods",
			"95 % prediction interval", "the confirmation at the chosen\n                                 F"},
			[]string{"the median throughput falls", "the best F of each payload: samples and the\n                                 median"}},
		{abCommand(), []string{"exact sign tests", "O'Brien–Fleming", "interleave", "block pair", "intersection–union",
			"serial-dependence", "refuses a verdict", "the pairs the measured spread implies"},
			[]string{"Howard", "normal-mixture", "--runs 3 ", "--runs 5 "}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.cmd.Description, w) {
				t.Errorf("run %s help lacks %q", c.cmd.Name, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(c.cmd.Description, n) {
				t.Errorf("run %s help still says %q", c.cmd.Name, n)
			}
		}
	}
}
