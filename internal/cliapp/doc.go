// Package cliapp is the base of the command-line layer: the way a
// urfave/cli App is run (exit codes from package exit, one usage-error
// wording, required flags, nearest-flag hints), so that each
// cmd/<tool>/main.go stays a few lines and can be tested in-process.
package cliapp
