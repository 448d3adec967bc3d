//go:build !linux

package permessage

// threadCPU is not available here.
func threadCPU() int64 { return -1 }

// processCPU is not available here.
func processCPU() int64 { return -1 }

// pidCPU is not available here: the broker's CPU comes from its process
// times, in ticks.
func pidCPU(int) func() int64 { return nil }

// threadID is not available here.
func threadID() int { return -1 }

// tidCPU is not available here.
func tidCPU(int) func() int64 { return nil }

// processTick is the step of a process-wide CPU clock: not read here.
func processTick() int64 { return 10_000_000 }
