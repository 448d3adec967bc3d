// Package experiment owns the results layout of formats §1: which files an
// experiment directory holds, how they are named, which of them the
// pipeline owns (Owned), and how a sub-experiment type is recovered from a
// file name (as the Fast-RTPS scripts do).
//
// It is also the one loader every tool reads experiments with. Load reads an
// experiment directory into an Experiment: its name and directory, its
// meta.json when it has one (a malformed one is an error), start time
// (meta.json, else the folder name), the system's version and commit, the
// latency definition (half-rtt without meta.json, as Fast-RTPS), whether the
// run completed, its throughput summaries (throughput_<type>.csv, formats
// §9; a folder holding only those is an experiment too), and its summaries,
// refusing a summary older than its raw file (stale) and any file or row of
// a sub-experiment or payload its meta.json does not list (Listed: data of
// another run in the folder). Either file is a
// Table of rows, looked up by result.Key: the rows of two runs a gate
// compares. LoadRoot reads every experiment folder of a results root by
// one rule, following symbolic links to directories and warning about every
// entry it skips; LoadDirs reads a list of experiment directories, e.g. the
// runs of one side of a comparison. Both read in parallel.
//
// A file the pipeline owns that is not a regular file (a directory named
// measurements_<type>.csv, a named pipe named meta.json) is an error naming
// it, never skipped silently nor read: fileerr.OpenRegular opens without
// blocking on a named pipe and refuses anything but a regular file, for
// every reader that expects one.
//
// Admit applies the rules every tool shares to the experiments it uses
// together: an incomplete run is an error unless allowed, and experiments
// with different latency definitions are an error.
package experiment
