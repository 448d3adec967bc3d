package paired

import (
	"strings"
	"testing"
)

// TestDependenceTextSaysWhyNotTested: five pairs that each gave every check
// the same ratio leave no order to test; the report said "fewer than 3
// units" of five (compare --paired on runs 20 % apart, run for run).
func TestDependenceTextSaysWhyNotTested(t *testing.T) {
	a := []float64{10, 10, 10, 10, 10}
	b := []float64{12, 12, 12, 12, 12}
	an, err := Analyze([]Check{{Name: "x", A: a, B: b}}, Pairs, Config{Tail: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	got := an.Dependence.Text()
	if an.Dependence.Tested || strings.Contains(got, "fewer than 3") || !strings.Contains(got, "no check's log ratio varies over the 5 units") {
		t.Errorf("constant ratios of 5 pairs: %q", got)
	}
	two, err := Analyze([]Check{{Name: "x", A: a[:2], B: []float64{11, 12}}}, Pairs, Config{Tail: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	if got := two.Dependence.Text(); !strings.Contains(got, "fewer than 3 units") {
		t.Errorf("2 pairs: %q", got)
	}
}

// TestDependenceTextClipped: units about 5 times worse, varying, all far
// beyond the margins: clipped about the margin they no longer vary, and
// the text says that it is the clipped ratios that do not (the ratios
// themselves do).
func TestDependenceTextClipped(t *testing.T) {
	a := []float64{10, 10, 10, 10, 10, 10}
	b := []float64{48, 52, 50, 49, 51, 53}
	an, err := Analyze([]Check{{Name: "x", A: a, B: b}}, Pairs, Config{Tail: 0.01, Clipped: true})
	if err != nil {
		t.Fatal(err)
	}
	got := an.Dependence.Text()
	if an.Dependence.Tested {
		t.Fatalf("tested, though no clipped ratio varies: %q", got)
	}
	if !strings.Contains(got, "clipped to two spreads about the margin decided on, varies over the 6 units") {
		t.Errorf("clipped constant ratios: %q", got)
	}
}
