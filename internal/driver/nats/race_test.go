//go:build race

package nats

// raceEnabled: the race detector changes what allocates (sync.Pool drops
// items at random), so allocation counts are checked without it.
const raceEnabled = true
