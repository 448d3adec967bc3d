package compare

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/fileerr"
	"github.com/mqgate/mqgate/internal/gate"
	"github.com/mqgate/mqgate/internal/plots"
	"github.com/mqgate/mqgate/internal/result"
	"github.com/mqgate/mqgate/internal/stats"
)

// ThroughputResult is the comparison of one sub-experiment's throughput
// summaries (throughput_<type>.csv, formats §9), matched row by row on
// (payload, mode, offered rate) and judged on the Median [msg/s]
// (result.MessageRate, higher is better; the Mb/s columns are the same
// numbers times payload × 8 / 10⁶, reported only); its Checks hold one
// check per key, in Keys order.
type ThroughputResult struct {
	Sub[result.ThroughputRow]
	// Keys are the rows compared, in the first reference run's order.
	Keys []result.Key
}

func (t *ThroughputResult) csvName() string { return CSVFileName("throughput_" + t.Type) }
func (t *ThroughputResult) writeTo(r *Result, w io.Writer) error {
	return t.writeCSV(r, w, strings.Split(result.ThroughputHeader, ","))
}

// describe adds to c's message what a throughput check of key k needs to
// be read: the direction, the values in Mb/s and, in window mode, the F of
// each side.
func (t *ThroughputResult) describe(c gate.Check, k result.Key) gate.Check {
	mbps := func(v float64) string { return strconv.FormatFloat(result.Mbps(v, k.Payload), 'f', 3, 64) }
	extra := fmt.Sprintf("higher is better; %s Mb/s vs %s Mb/s", mbps(c.Value), mbps(c.Reference))
	if k.Mode == result.ModeWindow {
		extra += fmt.Sprintf("; best F %s vs %s", offeredRange(t.TargetRuns, k), offeredRange(t.ReferenceRuns, k))
	}
	c.Message = fmt.Sprintf("%s [%s: %s]", c.Message, k.Load(), extra)
	return c
}

// offeredRange is the F of key k over runs: "100", or "80–120".
func offeredRange(runs []*experiment.Throughput, k result.Key) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range runs {
		f := r.At(k).Offered
		lo, hi = math.Min(lo, f), math.Max(hi, f)
	}
	if lo == hi {
		return result.FormatOffered(lo)
	}
	return result.FormatOffered(lo) + "–" + result.FormatOffered(hi)
}

// sameThroughputRows checks that every run of both sides holds the rows of
// the first reference run, no more and no fewer, and names the rows only
// one side has: a different offered rate is a different measurement, never
// compared with another.
func sameThroughputRows(refRuns, tgtRuns []*experiment.Throughput) error {
	first := refRuns[0]
	var errs []error
	for _, run := range slices.Concat(refRuns[1:], tgtRuns) {
		if parts := onlyIn(first, run, result.Key.String, "", "the reference "+first.Path, run.Path); len(parts) > 0 {
			errs = append(errs, fileerr.New(run.Path, 0, "", "throughput of sub-experiment %q: the runs measured different payloads, modes or offered rates: %s; compare runs made with the same --payloads and --rate",
				first.Type, strings.Join(parts, "; ")))
		}
	}
	return errors.Join(errs...)
}

// figures returns the throughput comparison plots of t, one per
// offered load: the median msg/s over the payloads (with several runs per
// side, the median over each side's runs), reference dashed, results solid,
// regressions marked; higher is better.
func (t *ThroughputResult) figures(r *Result) []Figure {
	var loads []result.Key // payload 0: one figure per load
	for _, k := range t.Keys {
		l := result.Key{Mode: k.Mode, Offered: k.Offered}
		if !slices.Contains(loads, l) {
			loads = append(loads, l)
		}
	}
	var figs []Figure
	for _, l := range loads {
		var categories []string
		ref := plots.Line{Name: "Reference median", Dashed: true}
		tgt := plots.Line{Name: "Result median"}
		marked := false
		for j, k := range t.Keys {
			if k.Mode != l.Mode || k.Offered != l.Offered {
				continue
			}
			categories = append(categories, strconv.Itoa(k.Payload))
			ref.Y = append(ref.Y, stats.Median(values(t.ReferenceRuns, k, result.MessageRate)))
			if t.Missing() {
				continue
			}
			tgt.Y = append(tgt.Y, stats.Median(values(t.TargetRuns, k, result.MessageRate)))
			failed := t.Checks[j].Status == gate.Failed
			tgt.Marked = append(tgt.Marked, failed)
			marked = marked || failed
		}
		lines := []plots.Line{ref}
		if !t.Missing() {
			lines = append(lines, tgt)
		}
		name := strings.NewReplacer(" ", "_", "/", "").Replace(l.Load())
		title := fmt.Sprintf("Throughput %s, %s (higher is better)", t.Type, l.Load())
		if t.Missing() {
			title += " (missing from the results)"
		}
		p := plots.CategoryLines(title, "Payload [Bytes]", "Throughput [msg/s]", categories, lines)
		if marked {
			p.Legend.Add("regression", plots.MarkThumbnail{})
		}
		figs = append(figs, Figure{Name: "throughput_" + t.Type + "_" + name, Plot: p})
	}
	return figs
}
