//go:build !linux

package testplugin

import (
	"errors"
	"time"
)

// SelfCPU is not measured off Linux: it is 0.
func SelfCPU() time.Duration { return 0 }

// TreeCPU is not measured off Linux: it is 0.
func TreeCPU(int) time.Duration { return 0 }

// ProcCPU is 0 where /proc is not there.
func ProcCPU(int) time.Duration { return 0 }

// RSS needs /proc: off Linux it is an error.
func RSS(int) (int64, error) { return 0, errors.New("no /proc on this platform") }
