// Package checkcmd is the command line of the check tool: its flags, help
// text and the action that fills a check.Config. The work is check.Run's.
package checkcmd
