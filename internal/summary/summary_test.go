package summary

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

const fixture = "../../testdata/fastrtps-v192/measurements_interprocess_reliable_summary.csv"

func TestRoundTripFixture(t *testing.T) {
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Read(bytes.NewReader(data), fixture)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 11 || rows[0].Bytes != 16 || rows[10].Bytes != 16384 || rows[0].P9999 != 58.631 {
		t.Fatalf("rows %+v", rows)
	}
	var buf bytes.Buffer
	if err := Write(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if buf.String() != string(data) {
		t.Fatalf("round trip differs:\n%s\nwant\n%s", buf.String(), data)
	}
}

func TestGet(t *testing.T) {
	r := Row{Bytes: 16, Samples: 3, Max: 9, Min: 1, Median: 5, P99: 8.5, P9999: 8.9}
	for col, want := range map[string]float64{"Max": 9, "Min": 1, "Median": 5, "99%": 8.5, "99.99%": 8.9} {
		if got, ok := r.Get(col); !ok || got != want {
			t.Errorf("Get(%q) = %v, %v", col, got, ok)
		}
	}
	for _, col := range []string{"Bytes", "Samples", "p99", ""} {
		if _, ok := r.Get(col); ok {
			t.Errorf("Get(%q) accepted", col)
		}
	}
}

func TestFormat3RoundsLikePython(t *testing.T) {
	// Values checked with Python's "{:.3f}".format: it rounds the exact binary value.
	cases := map[float64]string{0.0005: "0.001", 1.0005: "1.000", 2.5e-4: "0.000", 58.6305: "58.630", 0: "0.000"}
	for v, want := range cases {
		if got := Format3(v); got != want {
			t.Errorf("Format3(%v) = %s, want %s", v, got, want)
		}
	}
}

func TestBadInput(t *testing.T) {
	h := strings.Join(Columns, ",") + "\n"
	cases := []struct{ name, data, want string }{
		{"empty", "", "s.csv: empty file: expected the header"},
		{"wrong header", "Bytes,Samples\n", `s.csv:1: header is "Bytes,Samples", expected exactly`},
		{"no rows", h, "s.csv:1: no rows after the header"},
		{"short row", h + "16,10,1,2\n", "s.csv:2: row has 4 fields, expected 12"},
		{"bad bytes", h + "x,10,1,1,1,1,1,1,1,1,1,1\n", `s.csv:2: column "Bytes": "x" is not a positive integer`},
		{"bad float", h + "16,10,1,1,1,1.2.3,1,1,1,1,1,1\n", `s.csv:2: column "Median": "1.2.3" is not a number`},
		{"nan", h + "16,10,1,1,1,nan,1,1,1,1,1,1\n", `s.csv:2: column "Median": "nan" is not a finite latency`},
		{"negative", h + "16,10,1,1,1,1,1,1,1,1,-1,1\n", `s.csv:2: column "99%": "-1" is negative`},
		{"duplicate", h + "16,10,1,1,1,1,1,1,1,1,1,1\n16,10,1,1,1,1,1,1,1,1,1,1\n", `s.csv:3: column "Bytes": payload 16 appears again (first on line 2)`},
		{"quote", h + "16,10,\"1,1\n", "s.csv:2: malformed CSV"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.data), "s.csv")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestOneSampleJitterNaN(t *testing.T) {
	h := strings.Join(Columns, ",") + "\n"
	rows, err := Read(strings.NewReader(h+"16,1,5.000,5.000,5.000,5.000,0.000,nan,nan,5.000,5.000,5.000\n"), "s.csv")
	if err != nil || len(rows) != 1 {
		t.Fatal(rows, err)
	}
}

func TestReadFileMissing(t *testing.T) {
	_, err := ReadFile("does/not/exist.csv")
	if err == nil || !strings.Contains(err.Error(), "does/not/exist.csv: cannot read summary file") {
		t.Fatal(err)
	}
}

func FuzzRead(f *testing.F) {
	data, _ := os.ReadFile(fixture)
	f.Add(data)
	f.Add([]byte(strings.Join(Columns, ",") + "\n1,1,1,1,1,1,1,1,1,1,1,1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := Read(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.csv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, rows); err != nil {
			t.Fatal(err)
		}
		again, err := Read(&buf, "again")
		if err != nil || len(again) != len(rows) {
			t.Fatalf("written summary does not read back: %v", err)
		}
	})
}
