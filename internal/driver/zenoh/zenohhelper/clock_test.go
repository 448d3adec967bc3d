package zenohhelper

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mqgate/mqgate/internal/clockoffset"
)

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadClock reads the clock role's exchanges by instance and names the
// file, line and column of what is wrong.
func TestReadClock(t *testing.T) {
	p := writeTemp(t, ClockFile, ClockHeader+"\n4,100,50100,50110,230\n7,300,300,301,400\n4,500,50500,50501,600\n")
	got, err := ReadClock(p)
	want := map[uint8][]clockoffset.Exchange{
		4: {{T1: 100, T2: 50100, T3: 50110, T4: 230}, {T1: 500, T2: 50500, T3: 50501, T4: 600}},
		7: {{T1: 300, T2: 300, T3: 301, T4: 400}},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v %v", got, err)
	}
	for content, msg := range map[string]string{
		"":                            ": empty, expected the header",
		"Instance,T1,T2,T3,T4\n":      `:1: header "Instance,T1,T2,T3,T4"`,
		ClockHeader + "\n4,1,2,x,4\n": `:2: column 4 (T3 [ns]): "x" is not an integer`,
		ClockHeader + "\n4,1,2,3\n":   ":2: ",
		ClockHeader + "\n1,1,1,1,1\n300,1,2,3,4\n": ":3: instance 300",
	} {
		p := writeTemp(t, ClockFile, content)
		if _, err := ReadClock(p); err == nil || !strings.Contains(err.Error(), p+msg) {
			t.Errorf("%q: %v, want %q", content, err, msg)
		}
	}
}

// TestReadArrivals reads sub --arrivals rows, negative latencies kept.
func TestReadArrivals(t *testing.T) {
	p := writeTemp(t, ArrivalsFile, ArrivalsHeader+"\n1025,64,-7000\n3,64,1500\n")
	got, err := ReadArrivals(p)
	if err != nil || !reflect.DeepEqual(got, []Arrival{{1025, 64, -7000}, {3, 64, 1500}}) {
		t.Fatalf("got %v %v", got, err)
	}
	p = writeTemp(t, ArrivalsFile, ArrivalsHeader+"\n70000,64,1\n")
	if _, err := ReadArrivals(p); err == nil || !strings.Contains(err.Error(), p+":2: publisher 70000") {
		t.Errorf("bad publisher: %v", err)
	}
}
