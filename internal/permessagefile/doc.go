// Package permessagefile is the files of run permessage (formats §9): the
// per-message CSV (permessage_<type>.csv: O_n, I_n, L_n, the overheads and
// the window rates of every message), the CPU samples
// (permessage_<type>_cpu.csv) and the summary (permessage_<type>_summary.csv:
// per payload and quantity, the aggregate of the messages beside the value
// over the whole run).
//
// Table and WriteTable write each of them: a header, then cells that are
// numbers with up to three decimals (Cell), an empty cell for a missing
// value, and the few text columns. SummaryTable lays out the summary's rows
// and ReadSummaryFile reads them back, strictly: a bad cell is an input
// error naming file, line and column. The package knows the files, not the
// measurement (internal/permessage), so that process reads a summary
// without pulling in drivers.
package permessagefile
