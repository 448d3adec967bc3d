//go:build !linux

package engine

// AvailableMemory returns a fixed cap: other systems have no figure as
// simple as Linux's MemAvailable.
func AvailableMemory() (uint64, string) { return fallbackMemory, fallbackSource }
