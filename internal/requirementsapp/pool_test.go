package requirementsapp_test

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mqgate/mqgate/internal/goldenfile"
	"github.com/mqgate/mqgate/internal/requirements"
)

// libTestdata is the library's test data, which the command's tests share.
const libTestdata = "../requirements/testdata"

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// sampleObservations reads the library's testdata/observations.csv, a
// deterministic set of 7 experiments' summary values (one payload backed
// by only 4 of them).
func sampleObservations(t testing.TB) []requirements.Observation {
	f, err := os.Open(filepath.Join(libTestdata, "observations.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var obs []requirements.Observation
	for _, r := range recs[1:] {
		b, _ := strconv.Atoi(r[2])
		num := func(s string) float64 {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			return x
		}
		obs = append(obs, requirements.Observation{Experiment: r[0], Type: r[1], Bytes: b, Median: num(r[3]), P99: num(r[4]), Max: num(r[5])})
	}
	return obs
}

// logNormalObservations are runs of rows independent (sub-experiment,
// payload) rows whose Median, 99% and Max are independent and log-normal
// from run to run with log standard deviation sd.
func logNormalObservations(seed uint64, runs, rows int, sd float64) []requirements.Observation {
	rng := rand.New(rand.NewPCG(seed, 2))
	var obs []requirements.Observation
	for r := 0; r < runs; r++ {
		for b := 0; b < rows; b++ {
			v := func(mu float64) float64 { return mu * math.Exp(sd*rng.NormFloat64()) }
			obs = append(obs, requirements.Observation{Experiment: fmt.Sprintf("run-%03d", r), Type: "intraprocess_reliable", Bytes: 16 << b,
				Median: v(10), P99: v(30), Max: v(100)})
		}
	}
	return obs
}
