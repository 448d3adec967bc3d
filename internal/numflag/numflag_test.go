package numflag

import (
	"strings"
	"testing"
)

// TestParse: fractions and percentages are the same value; a bare number
// above 1 (or a bare 1 outside the range) is refused with the percentage it
// probably meant; NaN, infinities, negatives and out-of-range values are
// refused with the range.
func TestParse(t *testing.T) {
	for _, tt := range []struct {
		r    Fraction
		in   string
		want float64
		err  string // "" when accepted
	}{
		{Tolerance, "0.25", 0.25, ""},
		{Tolerance, "25%", 0.25, ""},
		{Tolerance, " 25 % ", 0.25, ""},
		{Tolerance, "0", 0, ""},
		{Tolerance, "0%", 0, ""},
		{Tolerance, "0.999", 0.999, ""},
		{Tolerance, "99.9%", 0.999, ""},
		{Tolerance, "25", 0, "25 read as a fraction is 2500%: did you mean 25%?"},
		{Tolerance, "50", 0, "did you mean 50%?"},
		{Tolerance, "1", 0, "1 read as a fraction is 100%: did you mean 1%?"},
		{Tolerance, "1.5", 0, "did you mean 1.5%?"},
		{Tolerance, "100%", 0, "100% is out of range: expected a value at least 0% and below 100%"},
		{Tolerance, "150%", 0, "out of range"},
		{Tolerance, "-0.1", 0, "-0.1 (-10%) is out of range"},
		{Tolerance, "-5%", 0, "out of range"},
		{Tolerance, "NaN", 0, `"NaN" is not a finite number`},
		{Tolerance, "Inf", 0, "not a finite number"},
		{Tolerance, "-Inf%", 0, "not a finite number"},
		{Tolerance, "1e999", 0, "not a finite number"},
		{Tolerance, "", 0, `"" is not a number`},
		{Tolerance, "%", 0, "not a number"},
		{Tolerance, "ten", 0, "not a number: expected a value at least 0% and below 100%, written as a fraction (0.1) or a percentage (10%)"},
		{Level, "0.01", 0.01, ""},
		{Level, "1%", 0.01, ""},
		{Level, "0", 0, "above 0% and below 100%"},
		{Level, "1", 0, "did you mean 1%?"},
		{Level, "5", 0, "did you mean 5%?"},
		{CompareLevel, "0.5", 0, "above 0% and below 50%"},
		{CompareLevel, "49%", 0.49, ""},
	} {
		got, err := tt.r.Parse(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("Parse(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Parse(%q) = %v, %v; want an error containing %q", tt.in, got, err, tt.err)
		}
	}
}

func TestParseList(t *testing.T) {
	got, err := Tolerance.ParseList("0, 5%,0.1")
	if err != nil || len(got) != 3 || got[1] != 0.05 || got[2] != 0.1 {
		t.Errorf("ParseList = %v, %v", got, err)
	}
	if got, err := Tolerance.ParseList(" "); got != nil || err != nil {
		t.Errorf("ParseList(blank) = %v, %v", got, err)
	}
	if _, err := Tolerance.ParseList("0.1,20"); err == nil || !strings.Contains(err.Error(), "did you mean 20%?") {
		t.Errorf("ParseList(0.1,20) = %v", err)
	}
}

func TestInt(t *testing.T) {
	r := Int{Min: 2, Max: 100, Zero: "half the pool"}
	for _, n := range []int{0, 2, 100} {
		if err := r.Check("--runs-per-side", n); err != nil {
			t.Errorf("Check(%d) = %v", n, err)
		}
	}
	for _, n := range []int{-1, 1, 101} {
		err := r.Check("--runs-per-side", n)
		if err == nil || !strings.Contains(err.Error(), "--runs-per-side") || !strings.Contains(err.Error(), "0 (half the pool) or 2 to 100") {
			t.Errorf("Check(%d) = %v", n, err)
		}
	}
	if err := (Int{Min: 1, Max: 10}).Check("--splits", 0); err == nil || err.Error() != "--splits 0 is out of range: expected 1 to 10" {
		t.Errorf("Check(0) = %v", err)
	}
}

// TestIntRange: Int is the flagrange range it states (one whole-number
// check for run and the gates): the same text, the same values accepted.
func TestIntRange(t *testing.T) {
	for _, r := range []Int{{Min: 1, Max: 10}, {Min: 2, Max: 100, Zero: "half the pool"}, {Min: 5, Max: 10000}} {
		fr := r.Range()
		if r.Text() != fr.String() {
			t.Errorf("%+v: Text %q, flagrange %q", r, r.Text(), fr.String())
		}
		for n := -2; n <= r.Max+2; n++ {
			if ok := r.Check("--n", n) == nil; ok != fr.Contains(float64(n)) || ok != (fr.Check("n", float64(n)) == nil) {
				t.Errorf("%+v: Check(%d) accepts %v, flagrange %v", r, n, ok, fr.Contains(float64(n)))
			}
		}
	}
}
