// Package work is the example services' handling of one request: a
// SHA-256 of the request body, plus, for the slower build, a fixed amount
// of extra computation.
package work

import (
	"crypto/sha256"
	"time"
)

// Reply computes the reply to body: its SHA-256, after spinning for extra
// (0: none). The extra time is spent computing, not sleeping, as a slower
// build of a service spends it: a sleep would hand the CPU back and round
// up to the timer's granularity.
func Reply(body []byte, extra time.Duration) []byte {
	start := time.Now()
	sum := sha256.Sum256(body)
	for extra > 0 && time.Since(start) < extra {
		sum = sha256.Sum256(sum[:])
	}
	return sum[:]
}
