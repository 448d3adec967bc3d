//go:build !linux

package load

import "time"

// preciseSleep is time.Sleep where nanosleep is not at hand.
func preciseSleep(d time.Duration) { time.Sleep(d) }
