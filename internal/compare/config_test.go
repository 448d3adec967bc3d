package compare

import (
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
		{in: " Max = 0.5 ", column: "Max", value: 0.5},
		{in: "Max=1.5", wantErr: `threshold "Max=1.5": 1.5 read as a fraction is 150%: did you mean 1.5%?`},
		{in: "Max=150%", wantErr: "out of range: expected a value at least 0% and below 100%"},
		{in: "99.99%=0.3", column: "99.99%", value: 0.3},
		{in: "99%=20%", column: "99%", value: 0.2},
		{in: "99%=20 %", column: "99%", value: 0.2},
		{in: "99%=%", wantErr: `"%" is not a number: expected a value at least 0% and below 100%, written as a fraction (0.1) or a percentage (10%)`},
		{in: "99%", wantErr: "expected COLUMN=VALUE"},
		{in: "99%=", wantErr: "is not a number"},
		{in: "99%=abc", wantErr: `"abc" is not a number`},
		{in: "p99=0.2", wantErr: `unknown column "p99"`},
		{in: "Stdev=0.2", wantErr: `unknown column "Stdev"`},
		{in: "Max=-0.1", wantErr: "-0.1 (-10%) is out of range"},
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
