//go:build !linux

package mcpserver

import "time"

// processCPU is not measured off Linux: the CPU per call is reported as 0.
func processCPU() time.Duration { return 0 }
