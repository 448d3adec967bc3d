// Package permessage is run permessage, the per-message method (ZeroMQ's
// "measuring messaging performance"). Measure sends Count messages of one
// payload from one publisher to one subscriber, back to back or paced at
// Rate, and records when each was sent (O_n) and delivered (I_n) in memory
// allocated before the first message: hence L_n, the overheads SO_n and
// RO_n and the rates ST_n and RT_n over windows of M messages. Every k-th
// message it reads the CPU time of the sender and receiver threads, of the
// process and of the broker (BrokerCPU; cputime*.go: readings stamped in the
// middle of their clocks, a process clock's step the scheduler tick).
// Aggregates summarises each quantity beside its value over the whole run
// and notes when the windows' median disagrees with it (bursts). Runner runs
// it over sub-experiments (load.RunOneWay) and writes the per-message, CPU
// and summary files through internal/permessagefile, the throughput summary
// CSV (Row) and the curves under permessage/ (plots.go).
package permessage
