// Package external is the driver of programs that measure latency on their
// own: Fast DDS LatencyTest, sockperf, zenoh's z_ping, a team's own
// harness. `run` starts the program, waits for it, and turns what it wrote
// into mqgate's raw file (formats §2), so that process, check, compare and
// history treat it as any other sub-experiment.
//
// The program and its sub-experiment are given by flags (the transport is a
// driver.ScenarioDefiner):
//
//	run -s sockperf_best_effort --external-name sockperf_best_effort \
//	    --external-format sockperf --payloads 16,64 \
//	    --external-command 'sockperf ping-pong -i 127.0.0.1 -m {payload} -t 5 --full-log {out}'
//
// The command is an argument list, never given to a shell: a JSON array,
// or words where quotes group and a backslash escapes (ParseCommand). Its
// placeholders are replaced for each start: {payload} (the program then
// starts once per payload size; without it, once for every payload, and
// the format must say each latency's payload), {samples}, {warmup}, and
// {out}, a file in the experiment folder the program writes its results
// to; without {out} its standard output is read. --external-format names
// the reader (internal/extformat): fastrtps, sockperf, zping or lines (with
// --external-unit and --external-latency). Latencies convert to the run's
// definition (--latency): half a round trip is half a whole one.
//
// Each start's standard output and error, and its {out} file, are kept in
// the experiment folder under <type>.external/. meta.json's
// subexperiments[].system records the program (product), its version (the
// first line printed by --external-version-command, by default the program
// with --version, within 5 s) and in extra: the command as given and as
// run (JSON arrays), the reader, the latency definition the program wrote
// and the exit status of each start.
//
// # Faults
//
//   - A program that is not found, and every wrong setting, exit 2 before
//     the experiment directory is created.
//   - A program exiting with a status other than 0 stops the run (exit 2)
//     with its status and the end of its standard error; the latencies it
//     wrote are kept (an unfinished last line is dropped) and meta.json is
//     marked incomplete.
//   - A program running longer than --external-timeout is stopped: SIGTERM
//     to its process group, SIGKILL KillGrace later; then as above.
//   - SIGINT stops the program the same way; run exits 130 with what was
//     measured and meta.json marked interrupted.
//   - Latencies the reader refuses stop the run with the file and line.
//
// When a program exits, whatever it left running in its process group is
// killed.
package external
