// Package runapp is the work of the `run` command behind plain
// configurations (its command line is internal/cliapp/runcmd): Run turns a
// Config (the drivers' own settings among them) into a session.Config, lets
// session prepare and measure, and maps the outcome to the exit codes of
// formats §5; with List it prints the registered sub-experiments. AB,
// Load, Throughput and PerMessage are run's other subcommands.
//
// AB interleaves runs of a reference and a candidate in pairs of seeded
// random order or ABBA blocks, recording the order in a series file
// (formats §12); with MaxRuns it is the sequential gate, feeding each
// unit's values (the family of package pairing) to stats/seq and stopping
// when it decides or the budget is spent. It checks everything before the
// first run (both sides' flags and that they measure alike, the report
// paths) and claims its series file, as Run claims its experiment folder,
// by creating it: a folder or series belongs to one process.
//
// `run echo` is the far end on its own (session.ServeEcho): it listens with
// one transport, or connects to a broker and serves a topic, prints the
// address as the first line of its standard output (so a parent process
// can read it), and echoes until SIGINT/SIGTERM, or until its standard
// input closes when started with --stdin-lifeline.
//
// Exit codes (formats §5): 0 when every payload of every sub-experiment was
// measured; 2 for a usage or environment error, including a link that
// broke during the run (an echoer or broker that died, a connection reset,
// too many consecutive losses); 130 when interrupted. Whatever the code,
// the samples measured so far and meta.json are written, and meta.json says
// whether the run completed.
package runapp
