// Package process turns raw measurements files into summaries and plots: the
// job of the process tool.
//
// For an experiment directory it reads every measurements_<type>.csv and
// writes beside it measurements_<type>_summary.csv (formats §3) and, under the
// plots directory, the Fast-RTPS job's plots:
//
//	plots/measurements_<type>/histogram_<payload>.png   latency histogram, 100 bins
//	plots/measurements_<type>/series_<payload>.png      latency per sample number
//	plots/comparison_{min,median,max,99}.png            every sub-experiment × payload
//
// The comparisons are heat maps (plots.HeatMap), a row per sub-experiment:
// the Fast-RTPS job's one line per sub-experiment tangles at ten.
//
// The summaries of the other kinds of run are read and drawn too: run
// throughput's (throughput.go), run burst's (burst.go), and run load's and
// run permessage's (oneway.go: tables for the HTML report's headline and
// figures by payload, through the formats' readers internal/loadsummary and
// internal/permessagefile: reading them pulls in none of what measured
// them, no driver, histogram or metrics exporter).
//
// Work is spread over a pool of workers, one payload at a time: reader
// goroutines stream each file and hand over a payload's samples as soon as
// its last row is read, so memory holds one payload per worker plus what is
// being read, and the plots rendered so far. Summaries and those plots are
// written only once every file has been read without error (the summaries
// of run throughput, load and permessage, and the burst files, too), so a
// bad input leaves no summary or plot behind. Every file is
// replaced by the rename of a complete temporary file, and no earlier
// summary is removed before that: a process killed at any point leaves
// each summary and plot as it was or completely new; the summary of a raw
// file that could not be read is removed once that is known. A raw file
// that is not a regular file (a directory, a named pipe) is an input
// error, and --jobs is 1 to MaxJobs. A raw file with fewer rows than its
// folder's meta.json says the run wrote of the payloads it completed (a
// file cut at a line end) is refused before anything is written
// (admitMeasured).
package process
