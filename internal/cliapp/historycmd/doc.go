// Package historycmd is the command line of the history tool: its flags,
// help text and the action that fills a history.Config. The work is
// history.Run's.
package historycmd
