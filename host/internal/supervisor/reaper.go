package supervisor

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ReaperArg is the first argument that runs a host executable as a plugin's
// reaper: `EXE ReaperArg PLUGIN`. The host's main calls Reap for it before
// anything else, and sets Options.Reaper to its own executable.
const ReaperArg = "--toolhost-plugin-reaper"

// Reap is the reaper: a small process that leads the plugin's process group,
// runs the plugin in it, and kills the whole group when the plugin exits or
// when the reaper is told to stop — by the host, or by the kernel when the
// host dies (the reaper's Pdeathsig is SIGTERM, which, unlike the SIGKILL a
// plugin would get, it can act on). Processes the plugin spawns stay in its
// group, and orphans are re-parented to the reaper (a child subreaper), so
// none of them outlives the host, however the host exits. args are the
// arguments after ReaperArg; the return value is the exit code.
func Reap(args []string) int {
	if len(args) != 1 {
		return 2
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	cmd := exec.Command(args[0])
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		os.Stderr.WriteString("toolhost reaper: start " + args[0] + ": " + err.Error() + "\n")
		return 1
	}
	exited := make(chan int, 1)
	go func() { exited <- reapUntil(cmd.Process.Pid) }()
	code := 1
	select {
	case code = <-exited:
	case <-sigs:
	}
	killGroupButMe()
	return code
}

// reapUntil waits for every child (orphans of the group come to the reaper)
// and returns the exit code of pid once it has exited.
func reapUntil(pid int) int {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return 1
		}
		if got == pid {
			if ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ws.ExitStatus()
		}
	}
}

// killGroupButMe SIGKILLs every other process of the reaper's group, until
// none is left (a process may fork while the first round runs).
func killGroupButMe() {
	me := os.Getpid()
	for round := 0; round < 10; round++ {
		members := GroupMembers(me)
		n := 0
		for _, pid := range members {
			if pid != me {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				n++
			}
		}
		if n == 0 {
			return
		}
		// Reap what we can so the scan stops seeing zombies.
		for {
			var ws syscall.WaitStatus
			if got, _ := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); got <= 0 {
				break
			}
		}
	}
}

// GroupMembers returns the live (not zombie) processes of process group
// pgid, read from /proc.
func GroupMembers(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, ok := readStat(pid)
		if ok && st.pgrp == pgid && st.state != 'Z' && st.state != 'X' {
			out = append(out, pid)
		}
	}
	return out
}

// procStat is what the supervisor reads from /proc/PID/stat.
type procStat struct {
	state byte
	pgrp  int
	// cpuTicks is utime+stime+cutime+cstime, in clock ticks.
	cpuTicks int64
}

// readStat parses /proc/PID/stat (see proc(5)); the command name may hold
// spaces and parentheses, so the fields are counted from its last ')'.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return procStat{}, false
	}
	f := strings.Fields(s[i+2:])
	// f[0] is field 3 (state); field N is f[N-3].
	if len(f) < 15 {
		return procStat{}, false
	}
	st := procStat{state: f[0][0]}
	st.pgrp, _ = strconv.Atoi(f[5-3])
	for _, n := range []int{14, 15, 16, 17} {
		v, _ := strconv.ParseInt(f[n-3], 10, 64)
		st.cpuTicks += v
	}
	return st, true
}
