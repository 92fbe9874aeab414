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

// reaperNeeded: a plugin runs under a reaper when the host names one.
const reaperNeeded = true

// limitsEnforced: the watchdog enforces memory and cpu_time from /proc.
const limitsEnforced = true

// systemPath is the PATH a plugin runs with unless its manifest names
// folders (exec_path) or asks for the host's (env: [PATH]): the system's
// folders only, none a user can write to.
func systemPath([]string) string {
	return "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
}

// osProc is what Linux keeps per plugin process: nothing beyond its pid.
type osProc struct{}

// ReaperExe is the executable the host names as Options.Reaper: itself, by
// a path that keeps working when the binary is replaced on disk.
func ReaperExe() string { return "/proc/self/exe" }

// procAttr puts the process in a group of its own and gives it a
// parent-death signal: SIGTERM for a reaper (it catches it and kills the
// group), SIGKILL for a plugin run without one.
func procAttr(viaReaper bool) *syscall.SysProcAttr {
	if viaReaper {
		return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
	}
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

func (r *procRunner) afterStart() error { return nil }
func (r *procRunner) release()          {}

// waitExited waits until the plugin has exited, leaving it unreaped
// (waitid WNOWAIT), so its pid cannot be reused yet.
func (r *procRunner) waitExited() {
	var info unix.Siginfo
	for {
		if err := unix.Waitid(unix.P_PID, r.pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != unix.EINTR {
			return
		}
	}
}

// killTree kills the plugin's process tree.
func (r *procRunner) killTree() { killPlugin(r.pid, r.reaper) }

// killPlugin kills the plugin whose process group is pgid (gone already is
// fine). Under a reaper, which leads the group, the reaper gets SIGTERM: it
// kills every process under it, those that left the group with setsid as
// well (they are its descendants: it is their subreaper), and exits; the
// group's other members are SIGKILLed at once. SIGKILLing the whole group,
// reaper included, would leave those others running. Without a reaper the
// group is SIGKILLed.
func killPlugin(pgid int, reaper bool) {
	if pgid <= 0 {
		return
	}
	if !reaper {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		return
	}
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	for _, pid := range GroupMembers(pgid) {
		if g, err := syscall.Getpgid(pid); pid != pgid && err == nil && g == pgid {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// Reap runs the reaper (see ReaperArg); args are the arguments after
// ReaperArg, the return value is the exit code. On Linux its parent-death
// signal is SIGTERM, which, unlike the SIGKILL a plugin would get, it can
// act on, and it is a child subreaper: orphans of the group are re-parented
// to it, and it reaps them.
func Reap(args []string) int {
	if len(args) < 1 {
		return 2
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	cmd := exec.Command(args[0], args[1:]...)
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
	killTreeButMe()
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

// killTreeButMe SIGKILLs every other process of the reaper's group and
// every descendant of the reaper — a process that called setsid left the
// group, but as the reaper is a child subreaper it stays a descendant even
// once its parent has died — until a round finds none (a process may fork
// while the first round runs).
func killTreeButMe() {
	me := os.Getpid()
	for round := 0; round < 10; round++ {
		n := 0
		for _, pid := range Descendants(me) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			n++
		}
		for _, pid := range GroupMembers(me) {
			// GroupMembers read the group from /proc already; asking the
			// kernel again, apart from that parse, means one slip in
			// either (a mutation test flips one operator at a time)
			// cannot make the reaper, often run as root, SIGKILL the
			// processes of other groups.
			if pgid, err := syscall.Getpgid(pid); pid != me && err == nil && pgid == me {
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

// Descendants returns the live (not zombie) processes descended from pid,
// read from /proc: its children, theirs, and so on.
func Descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(p); ok && st.state != 'Z' && st.state != 'X' {
			children[st.ppid] = append(children[st.ppid], p)
		}
	}
	var out []int
	for queue := children[pid]; len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, children[queue[0]]...)
	}
	return out
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
	ppid  int
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
	st.ppid, _ = strconv.Atoi(f[4-3])
	st.pgrp, _ = strconv.Atoi(f[5-3])
	for _, n := range []int{14, 15, 16, 17} {
		v, _ := strconv.ParseInt(f[n-3], 10, 64)
		st.cpuTicks += v
	}
	return st, true
}
