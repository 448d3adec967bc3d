//go:build race

package mqtt

const raceEnabled = true
