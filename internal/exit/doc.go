// Package exit holds the exit-code contract of every mqgate tool
// (formats §5): the codes, and errors that carry the code they map to.
// Libraries return these errors; only the command-line layer
// (internal/cliapp) turns them into a process's exit status, so that no
// library needs the command-line packages to say "this is bad input".
package exit
