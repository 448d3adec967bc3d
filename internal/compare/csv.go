package compare

import (
	"encoding/csv"
	"io"
	"path/filepath"

	"github.com/mqgate/mqgate/internal/atomicfile"
	"github.com/mqgate/mqgate/internal/experiment"
	"github.com/mqgate/mqgate/internal/result"
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

// WriteCSV writes the comparison CSV of s (formats §4): the summary header plus
// Label, the reference rows then the target rows, floats with 3 decimals as
// in a summary file; with several runs per side, every reference run's rows
// then every target run's, each labelled with its experiment. A
// sub-experiment missing from the results has only its reference rows.
func (r *Result) WriteCSV(w io.Writer, s *SubResult) error {
	cw := csv.NewWriter(w)
	header := append(append([]string(nil), result.SummaryColumns...), LabelColumn)
	if err := cw.Write(header); err != nil {
		return err
	}
	write := func(rows []result.SummaryRow, label string) error {
		for _, row := range rows {
			if err := cw.Write(append(row.Record(), label)); err != nil {
				return err
			}
		}
		return nil
	}
	// Every run of each side, in the order given (ReferenceRuns[i] is
	// References[i]'s, as every run of a side has the sub-experiment).
	for i, run := range s.ReferenceRuns {
		if err := write(run.Rows, ReferenceLabel(r.References[i])); err != nil {
			return err
		}
	}
	for i, run := range s.TargetRuns {
		if err := write(run.Rows, TargetLabel(r.Targets[i])); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteCSVFile writes the comparison CSV of s atomically into dir and returns
// its path.
func (r *Result) WriteCSVFile(dir string, s *SubResult) (string, error) {
	path := filepath.Join(dir, CSVFileName(s.Type))
	return path, atomicfile.Write(path, func(w io.Writer) error { return r.WriteCSV(w, s) })
}
