package process

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/measurements"
	"github.com/mqgate/mqgate/internal/result"
)

// OldBurstHeader is the header of the Fast-RTPS throughput test's results
// as eProsima published them (results_all_<date>, 2019): the columns of
// result.BurstHeader in its order, with older spellings of the units
// ([samples/burst], [samples/s], [Mbits/s] for [sample/burst], [Sample/s],
// [Mb/s]). process reads such a file as burst measurements.
const OldBurstHeader = "Payload [Bytes],Demand [samples/burst],Recovery time [ms],Sent [samples],Publication time [us]," +
	"Publication sample rate [samples/s],Publication throughput [Mbits/s],Received [samples],Lost [samples]," +
	"Subscription time [us],Subscription sample rate [samples/s],Subscription throughput [Mbits/s]"

// firstLine returns the first line of the file at path, without a UTF-8
// byte order mark or line end; "" when it cannot be read (the reader of the
// file then says why).
func firstLine(path string) string {
	f, err := fileerr.OpenRegular(path, "a raw file")
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	return strings.TrimPrefix(strings.TrimRight(line, "\r\n"), "\ufeff")
}

// checkHeader refuses a raw file whose header is none that process reads,
// naming the header found and the ones it reads, before anything is
// written. An empty first line is left to the file's reader.
func checkHeader(path string) error {
	switch h := firstLine(path); h {
	case "", measurements.Header, result.BurstHeader, OldBurstHeader:
		return nil
	default:
		return fileerr.New(path, 1, "", "header is %q, which process does not read: it reads raw latency files, header %q "+
			"(run; Fast-RTPS LatencyTest --export_raw_data), and burst measurements, header %q (run burst; Fast-RTPS ThroughputTest), "+
			"or the same columns under the older header of Fast-RTPS's published throughput results (results_all_*), %q",
			h, measurements.Header, result.BurstHeader, OldBurstHeader)
	}
}

// newHeader reads r with its first line, OldBurstHeader, read as
// result.BurstHeader: the same columns in the same order.
func newHeader(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	line, err := br.ReadString('\n')
	if err != nil && line == "" {
		return br
	}
	if h := strings.TrimRight(line, "\r\n"); strings.TrimPrefix(h, "\ufeff") == OldBurstHeader {
		line = result.BurstHeader + line[len(h):]
	}
	return io.MultiReader(strings.NewReader(line), br)
}

// oldHeaderNote says how a file with OldBurstHeader was read, for the
// progress lines.
func oldHeaderNote(path string) string {
	return path + ": the older header of Fast-RTPS's published throughput results (results_all_*), read as burst measurements " +
		"(formats §9): the same columns in the same order, [samples/burst], [samples/s] and [Mbits/s] being [sample/burst], [Sample/s] and [Mb/s]"
}

// burstHint names, for a folder without raw files, a CSV file in dir that
// holds burst measurements under another name (results_all_*), and how to
// process it; "" when there is none.
func burstHint(dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !e.Type().IsRegular() {
			continue
		}
		switch firstLine(path) {
		case OldBurstHeader:
			return fmt.Sprintf("; %s holds burst measurements under the older header of Fast-RTPS's published throughput results: process it with --raw-csv %s",
				e.Name(), path)
		case result.BurstHeader:
			return fmt.Sprintf("; %s holds burst measurements: process it with --raw-csv %s, or name it burst_<type>.csv", e.Name(), path)
		}
	}
	return ""
}
