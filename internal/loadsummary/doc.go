// Package loadsummary is the summary JSON of run load,
// load_<type>_summary.json (formats §9, format mqgate-load-summary/2): the
// run's parameters and, per payload, counts, rates, HDR latency
// percentiles and notes.
//
// Write writes it (run load, internal/load); Read and ReadFile read it
// back strictly (process): one UTF-8 JSON object and nothing after it,
// unknown fields and another format refused, each error located in the
// file. The package knows the file, not the measurement: reading a
// summary pulls in no driver, histogram or metrics exporter.
package loadsummary
