package process

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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

// maxHeader bounds what firstLine reads: far more than any header process
// reads, so that a file without line ends (or of CR line ends) is not read
// whole, nor printed whole in an error.
const maxHeader = 4096

// firstLine returns the first line of the file at path (at most maxHeader
// bytes of it), without a UTF-8 byte order mark or line end; "" when it
// cannot be read (the reader of the file then says why).
func firstLine(path string) string {
	f, err := fileerr.OpenRegular(path, "a raw file")
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(io.LimitReader(f, maxHeader)).ReadString('\n')
	return strings.TrimPrefix(strings.TrimRight(line, "\r\n"), "\ufeff")
}

// checkHeader refuses a raw file whose header is none that process reads,
// naming the header found (its start, when long) and the ones it reads,
// before anything is written. An empty first line is left to the file's
// reader.
func checkHeader(path string) error {
	h := firstLine(path)
	switch h {
	case "", measurements.Header, result.BurstHeader, OldBurstHeader:
		return nil
	}
	if before, _, cr := strings.Cut(h, "\r"); cr && slices.Contains([]string{measurements.Header, result.BurstHeader, OldBurstHeader}, before) {
		return fileerr.New(path, 1, "", "the lines end in a carriage return alone (CR, as classic Mac OS wrote text): "+
			"expected LF or CRLF line ends; convert the file (tr '\\r' '\\n')")
	}
	return fileerr.New(path, 1, "", "header is %s, which process does not read: it reads raw latency files, header %q "+
		"(run; Fast-RTPS LatencyTest --export_raw_data), and burst measurements, header %q (run burst; Fast-RTPS ThroughputTest), "+
		"or the same columns under the older header of Fast-RTPS's published throughput results (results_all_*), %q",
		quoteStart(h), measurements.Header, result.BurstHeader, OldBurstHeader)
}

// quoteStart quotes s, or only its first 1000 bytes when it is longer (a
// header is shorter), so that a file without line ends is not printed
// whole.
func quoteStart(s string) string {
	const keep = 1000
	if len(s) <= keep {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s (the first %d bytes of a line of %d or more)", strconv.Quote(s[:keep]+"…"), keep, len(s))
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
