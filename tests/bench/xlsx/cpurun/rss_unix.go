//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSSKB is the finished child's peak resident set size in KiB (Linux
// reports KiB, macOS bytes).
func maxRSSKB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
