package registry

import "syscall"

// statTimes returns s's modification and change times in nanoseconds.
func statTimes(s *syscall.Stat_t) (mtime, ctime int64) { return s.Mtim.Nano(), s.Ctim.Nano() }
