package throughput

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqgate/mqgate/internal/driver"
	"github.com/mqgate/mqgate/internal/driver/intraprocess"
	"github.com/mqgate/mqgate/internal/load"
	"github.com/mqgate/mqgate/internal/meta"
)

// flatInNoise is a link whose scale 1, 10, 100 delivers 500, 1,000 and
// 990 msg/s, and whose best F, 10, measured again for the noise, gives
// 1,300, 700, 1,300, 700: the bracket 1–100 is flat within the noise
// (its ends differ from its best by 500 msg/s, less than NoiseMargin × 300),
// so the bisection stops at once, and the best point, 10, is chosen, not
// the bracket's mean, 51, which was never measured.
func flatInNoise() MeasureFunc {
	tens := 0
	return func(f int) (Point, error) {
		v := map[int]float64{1: 500, 10: 1000, 100: 990}[f]
		if f == 10 {
			if tens >= 1 && tens <= 4 { // the noise's
				v = []float64{1300, 700, 1300, 700}[tens-1]
			}
			tens++
		}
		p := Point{Payload: 16, F: f, Samples: []float64{v, v}, Delivered: int(v), Period: time.Second}
		p.Summarise()
		return p, nil
	}
}

// TestSearchChoice: Search says which point it measured again: the
// bracket's best when the bisection stopped within the noise, its mean
// otherwise.
func TestSearchChoice(t *testing.T) {
	out, _, err := Search(flatInNoise(), Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !out.WithinNoise || out.F != 10 || out.Lo != 1 || out.Hi != 100 || out.Choice != ChoiceBest {
		t.Errorf("within the noise %v, F %d, bracket %d–%d, choice %q; want the best point 10 of 1–100", out.WithinNoise, out.F, out.Lo, out.Hi, out.Choice)
	}
	out, _, err = Search(curve(42), Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out.WithinNoise || out.Choice != ChoiceMean {
		t.Errorf("peak 42: within the noise %v, choice %q; want the bracket's mean", out.WithinNoise, out.Choice)
	}
}

// TestRunnerModeSaysWhatWasMeasured: meta.json's mode names the point the
// searches measured again: the bracket's best when the bisection stopped
// within the noise (not "the bracket's mean measured again"), the mean
// when it did not, and each with its payloads when they differ.
func TestRunnerModeSaysWhatWasMeasured(t *testing.T) {
	for _, c := range []struct {
		name     string
		payloads []int
		want     []string
		not      string
	}{
		{"within the noise", []int{16}, []string{"; " + string(ChoiceBest) + " measured again 5 times"}, "the bracket's mean measured again"},
		{"bisected", []int{64}, []string{"; " + string(ChoiceMean) + " measured again 5 times"}, "best point"},
		{"both", []int{16, 64}, []string{"; the chosen F (" + string(ChoiceBest) + " for intraprocess_reliable 16 B; " +
			string(ChoiceMean) + " for intraprocess_reliable 64 B) measured again 5 times"}, "or its best point"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &meta.Meta{Experiment: "x"}
			dir := t.TempDir()
			r := &Runner{Config: Config{MinWindow: time.Millisecond, Windows: 10, MaxF: 100}, Payloads: c.payloads, Dir: dir, Meta: m}
			// Payload 16 stops within the noise, 64 is bisected to its
			// precision.
			searches := 0
			r.search = func(_ MeasureFunc, cfg Config, report func(Step)) (Outcome, []Step, error) {
				measure := curve(42)
				if c.payloads[searches] == 16 {
					measure = flatInNoise()
				}
				searches++
				return Search(measure, cfg, report)
			}
			sub := load.Sub{Type: "intraprocess_reliable", Transport: "intraprocess", Reliable: true,
				Links: load.Links{Transport: intraprocess.Transport{}, Publish: driver.Options{Reliable: true}, Subscribe: driver.Options{Reliable: true, QueueDepth: 256}}}
			if err := r.Run(context.Background(), []load.Sub{sub}); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, meta.FileName))
			if err != nil {
				t.Fatal(err)
			}
			var disk struct {
				Mode string `json:"mode"`
			}
			if err := json.Unmarshal(b, &disk); err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(disk.Mode, w) {
					t.Errorf("meta.json mode %q\nlacks %q", disk.Mode, w)
				}
			}
			if strings.Contains(disk.Mode, c.not) {
				t.Errorf("meta.json mode %q\nsays %q", disk.Mode, c.not)
			}
		})
	}
}
