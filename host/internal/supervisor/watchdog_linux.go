package supervisor

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of the CPU times in /proc/PID/stat: 100
// on every Linux architecture Go supports.
const clockTicks = 100

// groupUsage sums VmRSS and CPU time over the processes of each wanted
// process group, leaving out the pids in skip (the reapers), in one pass
// over /proc.
func groupUsage(want map[int]bool, skip map[int]bool) map[int]usage {
	out := map[int]usage{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	page := int64(os.Getpagesize())
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || skip[pid] {
			continue
		}
		st, ok := readStat(pid)
		if !ok || !want[st.pgrp] {
			continue
		}
		u := out[st.pgrp]
		u.cpu += time.Duration(st.cpuTicks) * time.Second / clockTicks
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "statm")); err == nil {
			if f := strings.Fields(string(b)); len(f) > 1 {
				pages, _ := strconv.ParseInt(f[1], 10, 64)
				u.rss += pages * page
			}
		}
		out[st.pgrp] = u
	}
	return out
}
