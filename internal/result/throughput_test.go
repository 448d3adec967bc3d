package result

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestThroughputRoundTrip(t *testing.T) {
	rows := []ThroughputRow{
		{Payload: 16, Mode: ModeWindow, Offered: 100, Samples: 100, Median: 123456.789, Mean: 120000.5, Stdev: 321.25},
		{Payload: 1 << 20, Mode: ModeRate, Offered: 2.5, Samples: 3, Median: 2.5, Mean: 2.4, Stdev: 0.1},
	}
	var b bytes.Buffer
	if err := WriteThroughput(&b, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadThroughput(bytes.NewReader(b.Bytes()), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Fatalf("%+v\n%+v", got, rows)
	}
	for _, c := range []struct{ in, want string }{
		{"", "t.csv: empty file"},
		{"x\n", "t.csv:1: header"},
		{ThroughputHeader + "\n16,window,1,3,1.000,1.000,0.000,0.000,0.000\n", "t.csv:2: 9 columns"},
		{ThroughputHeader + "\n0,window,1,3,1.000,1.000,0.000,0.000,0.000,0.000\n", `column "Payload [Bytes]"`},
		{ThroughputHeader + "\n16,burst,1,3,1.000,1.000,0.000,0.000,0.000,0.000\n", `column "Mode"`},
		{ThroughputHeader + "\n16,window,1,3,1000000.000,1.000,0.000,0.000,0.000,0.000\n", `column "Median [Mb/s]": 0.000 disagrees`},
		{ThroughputHeader + "\n16,window,1,3,-1,1.000,0.000,0.000,0.000,0.000\n", `column "Median [msg/s]"`},
	} {
		if _, err := ReadThroughput(strings.NewReader(c.in), "t.csv"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// TestThroughputByteOrderMark: a throughput summary starting with a UTF-8
// byte-order mark (saved by an editor) reads as the other CSVs of the
// pipeline do; it was refused as a wrong header.
func TestThroughputByteOrderMark(t *testing.T) {
	in := "\ufeff" + ThroughputHeader + "\n16,rate,0,1,1000.000,1000.000,0.000,0.128,0.128,0.000\n"
	rows, err := ReadThroughput(strings.NewReader(in), "t.csv")
	if err != nil || len(rows) != 1 || rows[0].Median != 1000 {
		t.Fatalf("%+v, %v", rows, err)
	}
}
