package load

import "runtime"

// waitYield gives the processor away for the last stretch of a wait.
func waitYield() { runtime.Gosched() }
