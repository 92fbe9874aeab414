//go:build linux || darwin

package registry

import (
	"io/fs"
	"syscall"
)

// ctimeOf returns fi's change time in nanoseconds, for restoreMtime.
func ctimeOf(fi fs.FileInfo) (int64, bool) {
	s, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	_, ctime := statTimes(s)
	return ctime, true
}
