package load

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/loadsummary"
)

// measured runs a short in-process measurement for the file tests.
func measured(t *testing.T) ([]PayloadResult, Config) {
	t.Helper()
	cfg := quick(t, FanIn, 2, 0, 0)
	cfg = cfg.WithDefaults()
	res, err := Measure(context.Background(), "intraprocess_reliable", Links{Transport: intraprocess.Transport{},
		Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 1024}}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res, cfg
}

func TestFilesRoundTrip(t *testing.T) {
	res, cfg := measured(t)
	var rows []Snapshot
	for i := range res {
		rows = append(rows, Snapshots("intraprocess_reliable", &res[i])...)
	}
	if len(rows) != len(SnapshotMetrics)*(len(res[0].Ticks)+len(res[1].Ticks)) {
		t.Fatalf("%d rows", len(rows))
	}
	var b bytes.Buffer
	if err := WriteSnapshots(&b, rows); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSnapshots(bytes.NewReader(b.Bytes()), "s.csv")
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].T = float64(int64(rows[i].T*1000+0.5)) / 1000 // written with 3 decimals
	}
	if !reflect.DeepEqual(back, rows) {
		t.Fatalf("snapshots differ after a round trip: %v vs %v", back[:3], rows[:3])
	}

	sum := Summary{Format: SummaryFormat, SubExperiment: "intraprocess_reliable", Transport: "intraprocess", Completed: true,
		Parameters: Parameters{Scenario: FanIn, Publishers: 2, Subscribers: 1, Topics: 1, Payloads: cfg.Payloads}}
	for i := range res {
		sum.Payloads = append(sum.Payloads, SummaryOf(&res[i], cfg))
	}
	b.Reset()
	if err := loadsummary.Write(&b, sum); err != nil {
		t.Fatal(err)
	}
	got, err := loadsummary.Read(bytes.NewReader(b.Bytes()), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sum) {
		t.Fatalf("summary differs after a round trip")
	}

	b.Reset()
	if err := WriteHistogramLog(&b, "intraprocess_reliable", res, cfg.Clock); err != nil {
		t.Fatal(err)
	}
	hs, err := ReadHistogramLog(bytes.NewReader(b.Bytes()), "h.hlog")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res {
		h := hs["intraprocess_reliable/"+itoa(p.Payload)]
		if h == nil || !h.Equals(p.Histogram) {
			t.Fatalf("%d B: the log's intervals do not add up to the payload's histogram", p.Payload)
		}
	}
}

func itoa(n int) string { return fmtInt(n) }

func fmtInt(n int) string {
	var b []byte
	if n == 0 {
		return "0"
	}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

func TestReadErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "s.csv: empty file"},
		{"t,metric,value\n", "s.csv:1:"},
		{"t [s],metric,value,tags\n1.0,x,abc,\n", `s.csv:2: column "value": "abc" is not a finite number`},
		{"t [s],metric,value,tags\nz,x,1,\n", `s.csv:2: column "t [s]"`},
		{"t,metric,value,tags\nz,x,1,\n", `s.csv:2: column "t"`},
		{"t [s],metric,value,tags\n1,,1,\n", `s.csv:2: column "metric"`},
		{"t [ms],metric,value,tags\n", `s.csv:1: header "t [ms],metric,value,tags", expected "t [s],metric,value,tags"`},
	} {
		_, err := ReadSnapshots(strings.NewReader(c.in), "s.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// TestReadOldSnapshotHeader: snapshot files written before the time column
// named its unit ("t", not "t [s]") read as the new ones do.
func TestReadOldSnapshotHeader(t *testing.T) {
	rows := "0.500,messages_sent,120,sub=intraprocess_best_effort;payload=16;phase=measure\n" +
		"1.000,latency_p99_us,12.5,sub=intraprocess_best_effort;payload=16;phase=measure\n"
	old, err := ReadSnapshots(strings.NewReader("t,metric,value,tags\n"+rows), "old.csv")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := ReadSnapshots(strings.NewReader(SnapshotsHeader+"\n"+rows), "new.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(old) != 2 || !reflect.DeepEqual(old, cur) || old[1] != (Snapshot{T: 1, Metric: "latency_p99_us", Value: 12.5, Tags: "sub=intraprocess_best_effort;payload=16;phase=measure"}) {
		t.Errorf("old header read %+v, new %+v", old, cur)
	}
}
