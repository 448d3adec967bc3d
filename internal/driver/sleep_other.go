//go:build !linux

package driver

import "time"

// Sleep is time.Sleep where a timerfd is not at hand.
func Sleep(d time.Duration) { time.Sleep(d) }
