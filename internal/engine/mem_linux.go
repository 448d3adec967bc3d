package engine

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// AvailableMemory returns the memory available to a new allocation,
// MemAvailable in /proc/meminfo, and where the figure comes from. When it
// cannot be read it returns the cap of other systems.
func AvailableMemory() (uint64, string) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return fallbackMemory, fallbackSource
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		rest, ok := strings.CutPrefix(s.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			break
		}
		return kb * 1024, "MemAvailable in /proc/meminfo"
	}
	return fallbackMemory, fallbackSource
}
