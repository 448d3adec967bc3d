// Package runcmd is the command line of the run tool: its flags, help
// text and the actions that fill runapp's configurations (a round-trip
// run, run echo, run ab, and the one-way run load, run throughput and run
// permessage), with the roles' commands (run pub, sub, req, qry). The work
// is runapp's.
package runcmd
