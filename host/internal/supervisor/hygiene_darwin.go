package supervisor

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// reaperNeeded: macOS has no parent-death signal, so a plugin runs under a
// reaper that watches the host's exit.
const reaperNeeded = true

// limitsEnforced: macOS enforces neither a process group's memory nor its
// CPU time (RLIMIT_RSS is ignored by the kernel), and the watchdog reads
// /proc, which macOS lacks; the host logs so when a manifest sets them.
const limitsEnforced = false

// systemPath is the PATH a plugin runs with unless its manifest names
// folders (exec_path) or asks for the host's (env: [PATH]): the folders of
// /etc/paths on a stock macOS, none a user can write to.
func systemPath([]string) string { return "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" }

// osProc is what macOS keeps per plugin process: nothing beyond its pid.
type osProc struct{}

// ReaperExe is the executable the host names as Options.Reaper: itself.
func ReaperExe() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}

// procAttr puts the process in a group of its own.
func procAttr(bool) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func (r *procRunner) afterStart() error { return nil }
func (r *procRunner) release()          {}

// waitExited waits until the plugin has exited (kqueue NOTE_EXIT), leaving
// it unreaped, so its pid cannot be reused yet.
func (r *procRunner) waitExited() { <-exitOf(r.pid) }

// killTree kills the plugin's process group.
func (r *procRunner) killTree() { killPlugin(r.pid, r.reaper) }

// killPlugin sends SIGKILL to process group pgid (gone already is fine),
// reaper included: macOS has no child subreaper, so a process that left
// the group with setsid, once its parent is dead, is no one's to kill.
func killPlugin(pgid int, _ bool) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// exitOf returns a channel closed when process pid exits (at once when it
// is gone already, or cannot be watched).
func exitOf(pid int) <-chan struct{} {
	done := make(chan struct{})
	kq, err := unix.Kqueue()
	if err != nil {
		close(done)
		return done
	}
	var ev unix.Kevent_t
	unix.SetKevent(&ev, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev.Fflags = unix.NOTE_EXIT
	if _, err := unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil); err != nil {
		unix.Close(kq)
		close(done)
		return done
	}
	go func() {
		defer close(done)
		defer unix.Close(kq)
		out := make([]unix.Kevent_t, 1)
		for {
			if _, err := unix.Kevent(kq, nil, out, nil); !errors.Is(err, unix.EINTR) {
				return
			}
		}
	}()
	return done
}

// Reap runs the reaper (see ReaperArg); args are the arguments after
// ReaperArg, the return value is the exit code. macOS has neither a
// parent-death signal nor child subreapers: the reaper watches its parent's
// exit with kqueue, and finds the group's members (orphans re-parented to
// launchd keep their group) with sysctl kern.proc.pgrp.
func Reap(args []string) int {
	if len(args) < 1 {
		return 2
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	parent := os.Getppid()
	hostGone := exitOf(parent)
	if os.Getppid() != parent { // the host died before the watch was set
		return 1
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		os.Stderr.WriteString("toolhost reaper: start " + args[0] + ": " + err.Error() + "\n")
		return 1
	}
	exited := make(chan int, 1)
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
			exited <- 0
		case errors.As(err, &ee):
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				exited <- 128 + int(ws.Signal())
				return
			}
			exited <- ee.ExitCode()
		default:
			exited <- 1
		}
	}()
	code := 1
	select {
	case code = <-exited:
	case <-sigs:
	case <-hostGone:
	}
	killGroupButMe()
	return code
}

// killGroupButMe SIGKILLs every other process of the reaper's group, until
// none is left (a process may fork while the first round runs).
func killGroupButMe() {
	me := os.Getpid()
	for round := 0; round < 10; round++ {
		n := 0
		for _, pid := range GroupMembers(me) {
			if pid != me {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				n++
			}
		}
		if n == 0 {
			return
		}
	}
}

// szomb is a zombie's p_stat (sys/proc.h).
const szomb = 5

// GroupMembers returns the live (not zombie) processes of process group
// pgid, from sysctl kern.proc.pgrp.
func GroupMembers(pgid int) []int {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgid)
	if err != nil {
		return nil
	}
	var out []int
	for _, p := range procs {
		if p.Proc.P_stat != szomb && int(p.Eproc.Pgid) == pgid {
			out = append(out, int(p.Proc.P_pid))
		}
	}
	return out
}
