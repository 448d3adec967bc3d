// Package cliapp holds what every mqgate command shares: the exit-code
// contract of formats §5 and the way a urfave/cli App is run, so that each
// cmd/<tool>/main.go stays a few lines and can be tested in-process.
package cliapp
