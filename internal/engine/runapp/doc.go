// Package runapp is the `run` command: it resolves flags into an engine
// configuration, opens the selected sub-experiments' links — in-process
// echoers, echo processes of its own binary on this host, or a `run echo`
// on another host — pins the two ends to CPUs when asked, and lets the
// engine measure and write the experiment directory.
//
// `run echo` is the far end on its own: it listens with one transport,
// prints the bound address as the first line of its standard output (so a
// parent process can read it), and echoes until SIGINT/SIGTERM, or until
// its standard input closes when started with --stdin-lifeline.
//
// Exit codes (SPEC §5): 0 when every payload of every sub-experiment was
// measured; 2 for a usage or environment error, including a link that
// broke during the run (an echoer that died, a connection reset, too many
// consecutive losses); 130 when interrupted. Whatever the code, the samples
// measured so far and meta.json are written, and meta.json says whether
// the run completed.
package runapp
