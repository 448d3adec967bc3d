// Package program knows how the running tool was started, as its own
// executable (bin/run) or as a tool of the one installed program (mqgate
// run), and from that two things every tool needs: the command line that
// starts a tool again from this program (run's echo processes, the runs
// of requirements --runs), and the name that messages give a tool
// ('mqgate run --help', not 'run --help', where no run is on PATH).
//
// The command-line layer records the Invocation in the context it hands
// to the tools (NewContext); the layers below read it with FromContext.
package program
