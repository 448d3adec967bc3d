// Package testenv lets tests that need something outside the Go toolchain
// (a broker, a program such as cargo or iperf3) say so in one way: when it is
// missing the test is skipped with the reason, except under CI=true, where it
// fails, so that CI never passes by skipping.
package testenv
