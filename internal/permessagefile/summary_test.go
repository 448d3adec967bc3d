package permessagefile

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSummaryRoundTrip: a summary as run permessage writes it reads back
// and writes again to the same bytes.
func TestSummaryRoundTrip(t *testing.T) {
	path := filepath.Join("testdata", SummaryFileName("intraprocess_best_effort"))
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ReadSummaryFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2*len(Quantities) || rows[0].Quantity != "L [µs]" || !math.IsNaN(rows[0].Overall) {
		t.Fatalf("read %d rows: %+v", len(rows), rows[0])
	}
	var b bytes.Buffer
	if err := WriteSummary(&b, rows); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("written again, %s differs", path)
	}
}

// TestOldQuantityReads: a summary written before "L [us]" was renamed
// reads as today's.
func TestOldQuantityReads(t *testing.T) {
	in := strings.Join(SummaryHeader, ",") + "\n16,L [us],10,1,1,1,0,1,1,1,1,1,,no,,\n"
	rows, err := ReadSummary(strings.NewReader(in), "s.csv")
	if err != nil || len(rows) != 1 || rows[0].Quantity != "L [µs]" || rows[0].Count != 10 || !math.IsNaN(rows[0].Bimodality) {
		t.Fatalf("%+v, %v", rows, err)
	}
}

// TestReadSummaryErrors: every bad row is refused, naming the file, the
// line and the column, and what was expected.
func TestReadSummaryErrors(t *testing.T) {
	h := strings.Join(SummaryHeader, ",") + "\n"
	good := "16,L [µs],10,1,1,1,0,1,1,1,1,1,,no,,\n"
	for _, c := range []struct{ in, want string }{
		{"", "s.csv: empty file: expected the header"},
		{"Payload,Quantity\n", `s.csv:1: header "Payload,Quantity", expected`},
		{h + good + "16,L [µs],10\n", "s.csv:3: 3 columns, expected 16"},
		{h + "0,L [µs],10,1,1,1,0,1,1,1,1,1,,no,,\n", `s.csv:2: column "Payload [Bytes]": "0" is not a positive byte count`},
		{h + "16,L [ms],10,1,1,1,0,1,1,1,1,1,,no,,\n", `s.csv:2: column "Quantity": "L [ms]": expected one of L [µs], SO [ns]`},
		{h + "16,L [µs],-1,1,1,1,0,1,1,1,1,1,,no,,\n", `s.csv:2: column "Count": "-1" is not a count`},
		{h + "16,L [µs],10,x,1,1,0,1,1,1,1,NaN,,no,,\n", `s.csv:2: column "Mean": "x" is not a number`},
		{h + "16,L [µs],10,1,1,1,0,1,1,1,1,Inf,,no,,\n", `s.csv:2: column "p99": "Inf" is not a number`},
		{h + "16,L [µs],10,1,1,1,0,1,1,1,1,1,,maybe,,\n", `s.csv:2: column "Multimodal": "maybe": expected yes or no`},
		{h + "16,\"L [µs],10\n", "s.csv:2:"},
		// A reader takes one row of each payload and quantity: a second,
		// or none at all, was read without a word.
		{h, "s.csv:1: no rows after the header: expected a row per payload and quantity"},
		{h + good + strings.Replace(good, ",10,", ",99,", 1),
			`s.csv:3: column "Quantity": a second row of L [µs] at payload 16 (the first is on line 2): expected one row per payload and quantity`},
	} {
		_, err := ReadSummary(strings.NewReader(c.in), "s.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// TestSummaryByteOrderMark: a summary saved by an editor that starts it
// with a UTF-8 byte-order mark reads as every other CSV of the pipeline
// does (formats §6); it was refused as a wrong header.
func TestSummaryByteOrderMark(t *testing.T) {
	in := "\ufeff" + strings.Join(SummaryHeader, ",") + "\n16,L [µs],10,1,1,1,0,1,1,1,1,1,,no,,\n"
	rows, err := ReadSummary(strings.NewReader(in), "s.csv")
	if err != nil || len(rows) != 1 || rows[0].Count != 10 {
		t.Fatalf("%+v, %v", rows, err)
	}
}

// TestCellRoundTrips: a value that rounds to a whole number at three
// decimals is written as that number, so reading the file back and writing
// it again gives the same cell (99.9996 once came back as "100" after being
// written as "100.000").
func TestCellRoundTrips(t *testing.T) {
	for _, v := range []float64{99.9996, 100, -0.0004, 0.2574, 12.5, 1e6 + 0.0001} {
		c := Cell(v)
		back, err := strconv.ParseFloat(c, 64)
		if err != nil {
			t.Fatalf("Cell(%v) = %q: %v", v, c, err)
		}
		if again := Cell(back); again != c {
			t.Errorf("Cell(%v) = %q, read back and written again %q", v, c, again)
		}
	}
	if got := Cell(99.9996); got != "100" {
		t.Errorf("Cell(99.9996) = %q, want 100", got)
	}
}

// FuzzReadSummary: whatever ReadSummary accepts writes and reads back to
// the same bytes on a second round trip.
func FuzzReadSummary(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", SummaryFileName("intraprocess_best_effort"))); err == nil {
		f.Add(b)
	}
	f.Add([]byte(strings.Join(SummaryHeader, ",") + "\n16,L [us],10,1,1,1,0,1,1,1,1,1,,no,,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ReadSummary(bytes.NewReader(data), "f.csv")
		if err != nil {
			return
		}
		var once, twice bytes.Buffer
		if err := WriteSummary(&once, rows); err != nil {
			t.Fatal(err)
		}
		back, err := ReadSummary(bytes.NewReader(once.Bytes()), "f.csv")
		if err != nil {
			t.Fatalf("written summary does not read back: %v", err)
		}
		if err := WriteSummary(&twice, back); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("a second round trip changed the summary:\n%s\n%s", once.Bytes(), twice.Bytes())
		}
	})
}

// WriteSummary writes the summary CSV of rows.
func WriteSummary(w io.Writer, rows []Row) error { return WriteTable(w, SummaryTable(rows)) }
