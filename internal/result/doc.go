// Package result owns the result model every tool reads and writes: a row
// (Row) is keyed by payload and, for throughput, mode and offered load
// (Key), and holds named metrics, each with its unit and the direction that
// is better (Metric: latency statistics lower, throughput higher), so that
// the gates match and judge both kinds along one path; and the file
// formats that hold the rows, one reader and writer each:
//
//   - summary files (formats §3), one SummaryRow per payload: the payload
//     size and the eleven latency statistics of Summary, in microseconds,
//     every float printed with exactly three decimals (%.3f) as the
//     Fast-RTPS scripts print them, so that files written by either are
//     interchangeable:
//
//     Bytes,Samples,Max,Min,Mean,Median,Stdev,Mean jitter,Max jitter,90%,99%,99.99%
//     16,10000,122.599,7.029,8.272,7.486,2.367,0.534,109.092,10.607,14.735,58.631
//
//   - throughput summaries (formats §9), one ThroughputRow per payload and
//     offered load (ModeWindow or ModeRate), in msg/s with the Mb/s columns
//     derived from them.
//
//   - burst measurements and their summaries (formats §9), the Fast-RTPS
//     throughput pipeline's: one BurstRow per payload, demand and recovery
//     time (BurstSummary keeps each payload's best).
//
// It depends on the standard library and the leaf packages fileerr,
// csvfile and atomicfile only, so that the results-folder reader
// (experiment) and every gate read results without the measuring code.
// Readers use encoding/csv rather than gocsv because every error must name
// the line and column, and the header must match exactly.
package result
