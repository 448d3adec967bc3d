package process_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/exit"
	"github.com/mqgate/mqgate/internal/process"
	"github.com/mqgate/mqgate/internal/result"
)

// oldThroughput is a part of Fast-RTPS's published throughput results, with
// their older header (process.OldBurstHeader).
const oldThroughput = "testdata/fastrtps-throughput/results_all_2019-11-04_15-39-11.csv"

// TestOldThroughputHeader: eProsima's published throughput results
// (results_all_*, the older header) are read as burst measurements, saying
// so and naming the header found and the one it is read as; the summary
// holds each payload's row of greatest subscription throughput.
func TestOldThroughputHeader(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, filepath.Base(oldThroughput))
	copyFile(t, oldThroughput, raw)
	code, stdout, stderr := runProcess(t, "--raw-csv", raw, "--no-plots")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "the older header of Fast-RTPS's published throughput results (results_all_*), read as burst measurements") {
		t.Errorf("no note of the header:\n%s", stdout)
	}
	got, err := os.ReadFile(strings.TrimSuffix(raw, ".csv") + "_summary.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := result.BurstHeader + "\n" +
		"16,10000,10,1530000,2173472.000,703942.911,90.105,1530000,0,5019084.000,304836.526,39.019\n" +
		"1024,1000,0,1441000,2193378.000,656977.593,5381.960,1441000,0,5002995.000,288027.446,2359.521\n"
	if string(got) != want {
		t.Errorf("summary:\n%s\nwant\n%s", got, want)
	}

	// In a folder without raw files, the error says how to process it.
	folder := filepath.Join(t.TempDir(), "throughput")
	copyFile(t, oldThroughput, filepath.Join(folder, filepath.Base(oldThroughput)))
	code, _, stderr = runProcess(t, folder)
	if code != exit.Usage || !strings.Contains(stderr, "results_all_2019-11-04_15-39-11.csv holds burst measurements under the older header") {
		t.Errorf("folder: exit %d, %q", code, stderr)
	}
}

// TestUnknownHeader: a file of another header is refused naming the
// header found and every header process reads, and nothing is written.
func TestUnknownHeader(t *testing.T) {
	dir := t.TempDir()
	header := "Payload [Bytes],Demand [samples/burst],Recovery time [ms],Lost [samples],Subscription sample rate [samples/s],Subscription throughput [Mbits/s]"
	raw := filepath.Join(dir, "results_all_other.csv")
	if err := os.WriteFile(raw, []byte(header+"\n16,100,0,0,218760.80,28.00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inDir := filepath.Join(dir, "exp", "measurements_interprocess_reliable.csv")
	copyFile(t, raw, inDir)
	for _, args := range [][]string{{"--raw-csv", raw}, {filepath.Dir(inDir)}} {
		code, _, stderr := runProcess(t, args...)
		if code != exit.Usage {
			t.Fatalf("%v: exit %d, %q", args, code, stderr)
		}
		for _, want := range []string{`:1: header is "` + header + `", which process does not read`, "Sample,Payload [Bytes],Latency [us]", result.BurstHeader, process.OldBurstHeader} {
			if !strings.Contains(stderr, want) {
				t.Errorf("%v: stderr lacks %q:\n%s", args, want, stderr)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	exp, _ := os.ReadDir(filepath.Join(dir, "exp"))
	if len(entries) != 2 || len(exp) != 1 {
		t.Errorf("written: %v, %v", entries, exp)
	}
}

// TestCROnlyLineEnds: a raw file whose lines end in a carriage return
// alone is refused saying so; the whole file was its "header", printed in
// full in the error (2 MB for the Fast-RTPS fixture). A first line without
// a line end is quoted by its start only, and a row of one long field too.
func TestCROnlyLineEnds(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "measurements_interprocess_reliable.csv")
	rows := "Sample,Payload [Bytes],Latency [us]\n" + strings.Repeat("1,16,1.000\n", 2000)
	for _, c := range []struct {
		name, text, want string
	}{
		{"CR", strings.ReplaceAll(rows, "\n", "\r"), ":1: the lines end in a carriage return alone (CR, as classic Mac OS wrote text): expected LF or CRLF line ends"},
		{"no line end", strings.Repeat("x", 100000), ":1: header is \"" + strings.Repeat("x", 1000) + "…\" (the first 1000 bytes of a line of "},
		{"long row", "Sample,Payload [Bytes],Latency [us]\n" + strings.Repeat("9", 100000) + "\n", `:2: row "999999999999999999999999…99999999" (100000 characters) has 1 field`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(raw, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runProcess(t, "--no-plots", dir)
			if code != exit.Usage || !strings.Contains(stderr, raw+c.want) || len(stderr) > 3000 {
				t.Errorf("exit %d, %d bytes of stderr (want 2, a short message, and %q): %.600s", code, len(stderr), c.want, stderr)
			}
		})
	}
}
