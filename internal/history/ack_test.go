package history

import (
	"strings"
	"testing"
)

const ackHeader = "sub-experiment,payload,metric,experiment,note\n"

// TestReadAcksText: an acknowledgements file is UTF-8 text; a byte that is
// not UTF-8, or a NUL byte, is refused at its line and character (both were
// read into a name that matched nothing, silently). A byte order mark is
// skipped, and the characters after it are counted from 1.
func TestReadAcksText(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"latin-1 in a name", ackHeader + "interprocess_reliable,16,Median,e033,caf\xe9\n", "a.csv:2:41: byte 0xE9 is not UTF-8"},
		{"not UTF-8 in the header", "sub-experiment,payload,metric,experiment,not\xffe\n", "a.csv:1:45: byte 0xFF is not UTF-8"},
		{"NUL in a name", ackHeader + "*,*,*,e0\x0033,why\n", "a.csv:2:9: NUL byte"},
		{"NUL after a byte order mark", "\uFEFF" + ackHeader + "\x00\n", "a.csv:2:1: NUL byte"},
		{"NUL at the end", ackHeader + "*,*,*,e033,why\n\x00", "a.csv:3:1: NUL byte"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadAcks(strings.NewReader(c.in), "a.csv")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("ReadAcks = %v, want %q", err, c.want)
			}
		})
	}
	acks, err := ReadAcks(strings.NewReader("\uFEFF"+ackHeader+"interprocess_reliable,16,Median,e033,café ☕\n"), "a.csv")
	if err != nil || len(acks) != 1 || acks[0].Note != "café ☕" || acks[0].Line != 2 {
		t.Fatalf("ReadAcks = %+v, %v", acks, err)
	}
}

// TestGateWarnsUnmatchedAcks: an acknowledgement whose sub-experiment,
// payload or metric is not among the series the gate judges can never
// cover a change point: the gate warns, naming its file and line (it said
// nothing). One naming an experiment that is not in the history warns too
// (acknowledgements outlive the experiments they name: not an error). A row
// that covers a series does not warn.
func TestGateWarnsUnmatchedAcks(t *testing.T) {
	ack := func(line int, typ string, payload int, metric, exp string) Ack {
		return Ack{SubExperiment: typ, Payload: payload, Metric: metric, Experiment: exp, Note: "n", File: "acks.csv", Line: line}
	}
	acks := []Ack{
		ack(2, "interprocess_reliable", 16, "Median", "e033"),
		ack(3, "", -1, "", "e033"),
		ack(4, "interprocess_relaible", 16, "Median", "e033"),
		ack(5, "interprocess_reliable", 4096, "Median", "e033"),
		ack(6, "", 4096, "", "e033"),
		ack(7, "interprocess_reliable", -1, "Max", "e033"),
		ack(8, "interprocess_reliable", -1, "Messages/s", "e033"),
		ack(9, "interprocess_reliable", 16, "", "e999"),
	}
	g := gateSim(t, simHistory(1, 40, twoPayloads, 0.04, 0, 1.2, 33), 1,
		GateOptions{Window: DefaultGateWindow, Acks: acks, AcksFile: "acks.csv"})[0]
	warnings := strings.Join(g.Verdict.Warnings, "\n")
	for _, want := range []string{
		"acks.csv:4: matches no series of the history: sub-experiment interprocess_relaible is not in it (it holds interprocess_reliable); it can never cover a change point",
		"acks.csv:5: matches no series of the history: payload 4096 B is not measured by sub-experiment interprocess_reliable",
		"acks.csv:6: matches no series of the history: payload 4096 B is not measured by any sub-experiment",
		"acks.csv:7: matches no series of the history: metric Max is not judged for sub-experiment interprocess_reliable at any payload (latency series are judged by Median",
		"acks.csv:8: matches no series of the history: metric Messages/s is not judged",
		`acks.csv:9: acknowledges a shift at experiment "e999", which is not among the 40 experiments`,
	} {
		if !strings.Contains(warnings, want) {
			t.Errorf("no warning %q in:\n%s", want, warnings)
		}
	}
	for _, line := range []string{"acks.csv:2: matches", "acks.csv:3: matches", "acks.csv:9: matches"} {
		if strings.Contains(warnings, line) {
			t.Errorf("warning %q for a row that covers a series:\n%s", line, warnings)
		}
	}
}
