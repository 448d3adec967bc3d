// Package permessage is run permessage, the per-message method (ZeroMQ's
// "measuring messaging performance").
//
// Measure (measure.go) sends Count messages of one payload from one
// publisher to one subscriber, back to back or paced at Rate, and records
// when each was sent (O_n) and delivered (I_n), in memory allocated before
// the first message; from them come the latency L_n = I_n − O_n, the
// overheads SO_n and RO_n and the rates ST_n and RT_n over windows of M
// messages. Every k-th message the CPU time of the sender and receiver
// threads, of the whole process and of the broker's process (BrokerCPU,
// broker.go) is read, each reading stamped in the middle of its clocks
// (cputime*.go: thread and process clocks, a process clock's step being
// the scheduler tick).
//
// Aggregates (files.go) summarises each quantity (median, lower median,
// robust deviation, percentiles, Sarle's bimodality) beside its value over
// the whole run, and notes when the windows' median disagrees with it
// (bursts). Runner (runner.go) runs the method over sub-experiments
// through load.RunOneWay and writes permessage_<type>.csv,
// permessage_<type>_cpu.csv and permessage_<type>_summary.csv through
// internal/permessagefile (their names, headers and the summary's reader),
// the throughput summary CSV of the overall receive rates (Row, through
// internal/throughput's rows), and the curves against the message number
// and by payload under permessage/ (plots.go).
package permessage
