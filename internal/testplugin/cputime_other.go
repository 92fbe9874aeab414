//go:build !linux

package testplugin

import "time"

// SelfCPU is not measured off Linux: it is 0.
func SelfCPU() time.Duration { return 0 }

// TreeCPU is not measured off Linux: it is 0.
func TreeCPU(int) time.Duration { return 0 }

// ProcCPU is 0 where /proc is not there.
func ProcCPU(int) time.Duration { return 0 }
