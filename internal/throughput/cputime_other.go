//go:build !linux

package throughput

// threadCPU is not available here.
func threadCPU() int64 { return -1 }

// processCPU is not available here.
func processCPU() int64 { return -1 }
