// Package clobber keeps a tool's outputs from overwriting its inputs or
// each other. Every tool declares, by the flag that names each, the files
// and experiment directories it reads and the files and directories it
// writes, then calls Check before it reads, removes or writes anything:
//
//	var g clobber.Guard
//	g.File("--requirements", cfg.Requirements)
//	g.Experiment("--experiment-directory", cfg.ExperimentDir)
//	g.Output("--json", cfg.JSON)
//	if err := g.Check(); err != nil { ... } // exit code 2
//
// An output is refused when it is one of the inputs, when it lies inside an
// input experiment as a file the pipeline owns (experiment.Owned: meta.json,
// raw measurements, summaries, check reports, plots), when it is one of the
// files an output directory gets, or when another output names the same
// file. Paths are compared absolute and clean with symbolic links resolved,
// and as files (os.SameFile, which also catches hard links) when both exist.
//
// Every experiment folder a report would land in is protected too, read by
// the tool or not: a report (Output) is refused when it would be a file the
// pipeline owns in a folder holding meta.json or a raw, summary,
// throughput, load or per-message file. A tool writing such a file by its
// role declares it with OwnedOutput (process's summary beside its raw
// file). OutputOutside keeps a file out of the input experiments whatever
// its name (requirements' CSVs), and ReportDir keeps a directory of reports
// (compare's and history's --plots-directory) from being an experiment
// folder, lying under one's plots/, or being a results root being read or
// a folder directly in one.
package clobber
