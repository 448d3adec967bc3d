// Package comparecmd is the command line of the compare tool: its flags,
// help text and the action that fills a compare.Invocation. The work is
// compare.Run's.
package comparecmd
