package result

import (
	"bytes"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestBurstSpecExamples: the measurements and summary examples of the
// Fast-RTPS throughput specification read, write back byte for byte, and
// their rates and throughputs are what NewBurstRow derives from the counts
// and times.
func TestBurstSpecExamples(t *testing.T) {
	for _, name := range []string{"testdata/burst/spec_measurements.csv", "testdata/burst/spec_summary.csv"} {
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := ReadBurst(bytes.NewReader(want), name)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteBurst(&b, rows); err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want) {
			t.Errorf("%s written back:\n%s\nwant:\n%s", name, b.String(), want)
		}
		for _, r := range rows {
			d := NewBurstRow(r.Payload, r.Demand, r.RecoveryMs, r.Sent, r.PubTimeUs, r.Received, r.SubTimeUs)
			for _, p := range [][2]float64{{d.PubRate, r.PubRate}, {d.PubMbps, r.PubMbps}, {d.SubRate, r.SubRate}, {d.SubMbps, r.SubMbps}} {
				// The specification derived them from unrounded times.
				if math.Abs(p[0]-p[1]) > 0.0015 {
					t.Errorf("%s payload %d: derived %.4f, file %.3f", name, r.Payload, p[0], p[1])
				}
			}
			if d.Lost != r.Lost {
				t.Errorf("%s payload %d: lost %d, file %d", name, r.Payload, d.Lost, r.Lost)
			}
		}
	}
}

func TestBurstSummary(t *testing.T) {
	row := func(payload, demand, rec int, subMbps float64) BurstRow {
		return BurstRow{Payload: payload, Demand: demand, RecoveryMs: rec, SubMbps: subMbps}
	}
	rows := []BurstRow{row(32, 100, 0, 5), row(16, 100, 0, 1), row(16, 1000, 0, 3), row(32, 1000, 20, 7.0001),
		row(16, 100, 20, 2.9994), row(32, 100, 40, 7.0004)}
	// 7.0001 and 7.0004 are both 7.000 as written: a tie keeps both.
	want := []BurstRow{rows[3], rows[5], rows[2]}
	if got := BurstSummary(rows); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestReadBurstErrors(t *testing.T) {
	ok := "16,1000,0,68000,1009243.093,67377.226,8.624,68000,0,1008973.053,67395.259,8.627"
	for _, c := range []struct{ in, want string }{
		{"", "b.csv: empty file"},
		{"x\n", "b.csv:1: header"},
		{BurstHeader + "\n16,1000\n", "b.csv:2: 2 columns"},
		{BurstHeader + "\n" + ok + "\n" + strings.Replace(ok, "68000,0", "68000,-1", 1) + "\n", `b.csv:3: column "Lost [samples]"`},
		{BurstHeader + "\n" + strings.Replace(ok, "16,1000", "16,1000.5", 1) + "\n", `column "Demand [sample/burst]": "1000.5" is not a count`},
		{BurstHeader + "\n" + strings.Replace(ok, "16,", "0,", 1) + "\n", `column "Payload [Bytes]"`},
		{BurstHeader + "\n" + strings.Replace(ok, "8.627", "nan", 1) + "\n", `column "Subscription throughput [Mb/s]"`},
	} {
		if _, err := ReadBurst(strings.NewReader(c.in), "b.csv"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	// pandas writes counts as floats after a missing value; they read.
	rows, err := ReadBurst(strings.NewReader(BurstHeader+"\n16.0,1000.0,0,68000,1.000,1.000,1.000,68000,0.0,1.000,1.000,1.000\n"), "b.csv")
	if err != nil || rows[0].Payload != 16 || rows[0].Demand != 1000 {
		t.Errorf("%+v, %v", rows, err)
	}
}

// TestReadBurstCounts: a row with more received than sent, or more lost
// than sent − received, is refused naming file, line and the counts; one
// with fewer lost, as Fast-DDS ThroughputTest wrote before 2023 when the
// last messages were lost, reads.
func TestReadBurstCounts(t *testing.T) {
	row := func(sent, received, lost string) string {
		return "16,1000,0," + sent + ",1009243.093,67377.226,8.624," + received + "," + lost + ",1008973.053,67395.259,8.627"
	}
	ok := row("1000", "990", "10")
	for _, c := range []struct{ bad, want string }{
		{row("1000", "990", "12"), "b.csv:3: lost 12 is more than sent 1000 − received 990 = 10"},
		{row("1000", "0", "1001"), "b.csv:3: lost 1001 is more than sent 1000 − received 0 = 1000"},
		{row("1000", "1010", "0"), "b.csv:3: received 1010 is more than sent 1000"},
	} {
		_, err := ReadBurst(strings.NewReader(BurstHeader+"\n"+ok+"\n"+c.bad+"\n"), "b.csv")
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.bad, err, c.want)
		}
	}
	rows, err := ReadBurst(strings.NewReader(BurstHeader+"\n"+ok+"\n"+row("1000", "990", "4")+"\n"), "b.csv")
	if err != nil || len(rows) != 2 || rows[1].Lost != 4 {
		t.Errorf("a loss after the last arrival uncounted: %+v, %v", rows, err)
	}
}
