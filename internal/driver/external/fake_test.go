package external_test

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// fakeArg as the first argument makes the test binary a benchmark program
// (fakeMain) that writes latencies in one of the formats the driver reads.
const fakeArg = "-fake-program"

// fakeLatency is the i-th latency (µs, 0-based) the fake writes for a
// payload: distinct, exact in binary, and finer than a nanosecond.
func fakeLatency(payload, i int) float64 { return float64(payload)/16 + float64(i)*0.25 + 0.0625 }

// fakeMain writes -n latencies of each -payloads size in -format to -out
// (or standard output), then does what the test asks: write to standard
// error, leave a cut last line, start a child, sleep, ignore SIGTERM, exit
// with a status.
func fakeMain(args []string) int {
	fs := flag.NewFlagSet("fake", flag.ContinueOnError)
	format := fs.String("format", "fastrtps", "")
	payloads := fs.String("payloads", "16", "")
	n := fs.Int("n", 5, "")
	out := fs.String("out", "", "")
	exit := fs.Int("exit", 0, "")
	sleep := fs.Duration("sleep", 0, "")
	stderr := fs.String("stderr", "", "")
	cut := fs.Bool("cut", false, "")
	child := fs.Bool("child", false, "")
	ignoreTerm := fs.Bool("ignore-term", false, "")
	ready := fs.String("ready", "", "")
	version := fs.Bool("version", false, "")
	scale := fs.Float64("scale", 1, "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *version {
		fmt.Println("fakeprog 1.2.3 (test)")
		return 0
	}
	if *ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	var w io.Writer = os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer f.Close()
		w = f
	}
	var b strings.Builder
	k := 0
	for _, ps := range strings.Split(*payloads, ",") {
		p, _ := strconv.Atoi(ps)
		switch *format {
		case "fastrtps":
			if k == 0 {
				b.WriteString("Sample,Payload [Bytes],Latency [us]\n")
			}
			for i := 0; i < *n; i++ {
				k++
				fmt.Fprintf(&b, "%d,%d,%g\n", k, p, *scale*fakeLatency(p, i))
			}
		case "zping":
			b.WriteString("Warming up for 1s...\n")
			for i := 0; i < *n; i++ {
				fmt.Fprintf(&b, "%d bytes: seq=%d rtt=%dµs lat=%dµs\n", p, i, int(2*fakeLatency(p, i)), int(fakeLatency(p, i)))
			}
		case "lines":
			for i := 0; i < *n; i++ {
				fmt.Fprintf(&b, "%g\n", 1000*fakeLatency(p, i)) // ns
			}
		}
	}
	s := b.String()
	if *cut {
		s += "99,16,12.3" // cut in the middle of a line
	}
	io.WriteString(w, s)
	if f, ok := w.(*os.File); ok {
		f.Sync()
	}
	if *stderr != "" {
		fmt.Fprintln(os.Stderr, *stderr)
	}
	var kid *exec.Cmd
	if *child {
		kid = exec.Command("sleep", "3600")
		kid.Start()
	}
	if *ready != "" {
		pids := strconv.Itoa(os.Getpid())
		if kid != nil {
			pids += " " + strconv.Itoa(kid.Process.Pid)
		}
		os.WriteFile(*ready+".tmp", []byte(pids), 0o644)
		os.Rename(*ready+".tmp", *ready)
	}
	time.Sleep(*sleep)
	return *exit
}
