package compare

import (
	"encoding/csv"
	"io"
	"slices"

	"github.com/mqgate/mqgate/internal/experiment"
)

// LabelColumn is the extra last column of the comparison CSV.
const LabelColumn = "Label"

// CSVFileName is the name of a sub-experiment's comparison CSV in the plots
// directory, as the Fast-RTPS script names it.
func CSVFileName(typ string) string { return typ + "_comparison.csv" }

// ReferenceLabel and TargetLabel label the rows of the comparison CSV and the
// series of the plots: the experiment's name, marked "(incomplete)" when
// its run did not complete.
func ReferenceLabel(e *experiment.Experiment) string { return "Reference: " + label(e) }

// TargetLabel labels the target's rows and series.
func TargetLabel(e *experiment.Experiment) string { return "Result: " + label(e) }

func label(e *experiment.Experiment) string {
	if !e.Completed() {
		return e.Name + " (incomplete)"
	}
	return e.Name
}

// writeCSV writes the comparison CSV of s (formats §4): header plus
// Label, then every reference run's rows and every target run's, in the
// order given (ReferenceRuns[i] is References[i]'s, as every run of a
// side has the sub-experiment), each labelled with its experiment; floats
// as the summary files write them. A sub-experiment missing from the
// results has only its reference rows.
func (s *Sub[R]) writeCSV(r *Result, w io.Writer, header []string) error {
	cw := csv.NewWriter(w)
	cw.Write(append(slices.Clone(header), LabelColumn))
	write := func(runs []*experiment.Table[R], label func(*experiment.Experiment) string, exps []*experiment.Experiment) {
		for i, run := range runs {
			for _, row := range run.Rows {
				cw.Write(append(row.Record(), label(exps[i])))
			}
		}
	}
	write(s.ReferenceRuns, ReferenceLabel, r.References)
	write(s.TargetRuns, TargetLabel, r.Targets)
	cw.Flush()
	return cw.Error()
}
