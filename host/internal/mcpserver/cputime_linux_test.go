package mcpserver

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) the test process has used:
// under load a benchmark's CPU per call moves far less than its wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
