// Package processcmd is the command line of the process tool: its flags,
// help text and the action that fills a process.Config. The work is
// process.Run's.
package processcmd
