package compare

import (
	"math"
	"strings"
	"testing"
)

func TestParseThreshold(t *testing.T) {
	tests := []struct {
		in      string
		column  string
		value   float64
		wantErr string
	}{
		{in: "99%=0.2", column: "99%", value: 0.2},
		{in: "median=0", column: "Median", value: 0},
		{in: " Max = 1.5 ", column: "Max", value: 1.5},
		{in: "99.99%=0.3", column: "99.99%", value: 0.3},
		{in: "99%=20%", column: "99%", value: 0.2},
		{in: "99%=20 %", column: "99%", value: 0.2},
		{in: "99%=%", wantErr: `"%" is not a number: expected a fraction such as 0.1 or a percentage such as 10%`},
		{in: "99%", wantErr: "expected COLUMN=VALUE"},
		{in: "99%=", wantErr: "is not a number"},
		{in: "99%=abc", wantErr: `"abc" is not a number`},
		{in: "p99=0.2", wantErr: `unknown column "p99"`},
		{in: "Stdev=0.2", wantErr: `unknown column "Stdev"`},
		{in: "Max=-0.1", wantErr: "below 0"},
		{in: "Max=NaN", wantErr: "not a finite number"},
		{in: "Max=Inf", wantErr: "not a finite number"},
	}
	for _, tt := range tests {
		col, v, err := ParseThreshold(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseThreshold(%q) error %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || col != tt.column || v != tt.value {
			t.Errorf("ParseThreshold(%q) = %q, %v, %v; want %q, %v", tt.in, col, v, err, tt.column, tt.value)
		}
	}
}

func TestParseFraction(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
		err  bool
	}{
		{"0.5", 0.5, false},
		{"50%", 0.5, false},
		{" 12.5% ", 0.125, false},
		{"0", 0, false},
		{"50", 50, false}, // a bare number is a fraction: 5000 %
		{"fifty", 0, true},
		{"50%%", 0, true},
		{"%", 0, true},
		{"", 0, true},
	} {
		got, err := ParseFraction(tt.in)
		if (err != nil) != tt.err || (!tt.err && math.Abs(got-tt.want) > 1e-15) {
			t.Errorf("ParseFraction(%q) = %v, %v", tt.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "expected a fraction such as 0.1 or a percentage such as 10%") {
			t.Errorf("ParseFraction(%q) error %q does not say the form expected", tt.in, err)
		}
	}
}

func TestParseMargin(t *testing.T) {
	if m, err := ParseMargin("10%"); err != nil || math.Abs(m-0.1) > 1e-15 {
		t.Errorf("10%%: %v, %v", m, err)
	}
	if _, err := ParseMargin("-5%"); err == nil || err.Error() != "-5% is negative: expected a fraction ≥ 0 such as 0.1, or a percentage such as 10%" {
		t.Errorf("-5%%: %v", err)
	}
	if _, err := ParseMargin("abc"); err == nil || strings.Count(err.Error(), "expected") != 1 {
		t.Errorf("abc: %v (the form expected, said once)", err)
	}
}

func TestParseColumns(t *testing.T) {
	ms, err := ParseColumns("min, MEDIAN,99.99%,90%")
	if err != nil {
		t.Fatal(err)
	}
	if got := metricNames(ms); got != "Min, Median, 99.99%, 90%" {
		t.Errorf("columns %q", got)
	}
	for _, bad := range []string{"", ",", "Min,Jitter", "Min;Max"} {
		if _, err := ParseColumns(bad); err == nil {
			t.Errorf("ParseColumns(%q) accepted", bad)
		}
	}
	cfg := DefaultConfig()
	cfg.Metrics, _ = ParseColumns("Min,Min")
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("duplicate column: %v", err)
	}
}

func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"99%=0.2", "Max=0", "median=1e-3", "=", "99%=-1", "Min=NaN", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		col, v, err := ParseThreshold(s)
		if err != nil {
			return
		}
		if _, ok := compareMetric(col); !ok {
			t.Fatalf("%q: accepted unknown column %q", s, col)
		}
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("%q: accepted threshold %v", s, v)
		}
		// The canonical form parses to the same.
		col2, v2, err := ParseThreshold(col + "=" + strings.TrimSpace(s[strings.Index(s, "=")+1:]))
		if err != nil || col2 != col || v2 != v {
			t.Fatalf("%q: canonical form gives %q %v %v", s, col2, v2, err)
		}
	})
}

func FuzzParseColumns(f *testing.F) {
	for _, s := range []string{"Min,Median,99%,Max", "mean", "", ",,", "90%,99.99%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := ParseColumns(s)
		if err != nil {
			return
		}
		if len(ms) == 0 {
			t.Fatalf("%q: no column and no error", s)
		}
		again, err := ParseColumns(metricNames(ms))
		if err != nil || metricNames(again) != metricNames(ms) {
			t.Fatalf("%q: names %q do not parse back: %v", s, metricNames(ms), err)
		}
	})
}
