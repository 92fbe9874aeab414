package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin/runner"
	"golang.org/x/sys/unix"
)

// procRunner starts a plugin process the way the host wants it, which
// go-plugin's own runner does not: stdin is /dev/null (go-plugin hands the
// child the host's stdin, which under `host serve` is the MCP stream), the
// working directory is the host's, the plugin leads a process group of its
// own that is killed whole when it stops, and nothing of it outlives the
// host: with a reaper (see Reap) the group's reaper kills the group when
// the host dies however it dies; without one, Pdeathsig kills the plugin
// itself.
type procRunner struct {
	cmd    *exec.Cmd
	stdout io.ReadCloser
	stderr io.ReadCloser
	pid    int
	reaper bool
	// reaped is set just before the plugin is reaped: from then on its pid
	// may be reused and its group must not be signalled.
	reaped atomic.Bool
	// started hears the process group once it exists (for the watchdog).
	started func(pgid int, reaper bool)
}

var _ runner.Runner = (*procRunner)(nil)

// newRunner returns a RunnerFunc for go-plugin that runs binary with args in
// dir. go-plugin passes a cmd whose Env it has filled (magic cookie, mTLS
// certificate, socket dir); we keep that Env plus env, and nothing else of
// the host's.
func newRunner(binary, reaper, dir string, env []string, started func(pgid int, reaper bool)) func(hclog.Logger, *exec.Cmd, string) (runner.Runner, error) {
	return func(_ hclog.Logger, spec *exec.Cmd, _ string) (runner.Runner, error) {
		cmd := exec.Command(binary)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
		if reaper != "" {
			cmd = exec.Command(reaper, ReaperArg, binary)
			// The reaper catches this, kills the group, then exits.
			cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
		}
		cmd.Env = append(append([]string{}, spec.Env...), env...)
		cmd.Dir = dir
		cmd.Stdin = nil // exec opens /dev/null
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, fmt.Errorf("supervisor: stdout pipe: %w", err)
		}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			return nil, fmt.Errorf("supervisor: stderr pipe: %w", err)
		}
		return &procRunner{cmd: cmd, stdout: stdout, stderr: stderr, reaper: reaper != "", started: started}, nil
	}
}

func (r *procRunner) Start(context.Context) error {
	if err := r.cmd.Start(); err != nil {
		return err
	}
	r.pid = r.cmd.Process.Pid
	if r.started != nil {
		r.started(r.pid, r.reaper)
	}
	return nil
}

func (r *procRunner) Diagnose(context.Context) string {
	return fmt.Sprintf("%s did not complete the plugin handshake: is it built with the toolhost SDK (sdk.Main) for this machine?", r.cmd.Path)
}

func (r *procRunner) Stdout() io.ReadCloser                            { return r.stdout }
func (r *procRunner) Stderr() io.ReadCloser                            { return r.stderr }
func (r *procRunner) Name() string                                     { return r.cmd.Path }
func (r *procRunner) ID() string                                       { return fmt.Sprint(r.pid) }
func (r *procRunner) PluginToHost(n, a string) (string, string, error) { return n, a, nil }
func (r *procRunner) HostToPlugin(n, a string) (string, string, error) { return n, a, nil }

// Wait waits for the plugin to exit, then kills what is left of its
// process group: a child it spawned does not outlive it. The group is
// killed while the plugin is still an unreaped zombie (waitid WNOWAIT), so
// its pid — the group's id — cannot have been reused by an unrelated
// process group yet; killing it after the reap could hit a stranger once
// the kernel's pids wrap (pid_max is 32768 on many machines).
func (r *procRunner) Wait(context.Context) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, r.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	killGroup(r.pid)
	r.reaped.Store(true)
	return r.cmd.Wait()
}

// Kill kills the plugin's whole process group: go-plugin calls it when a
// graceful shutdown did not end the plugin. Once the plugin is reaped its
// pid may belong to someone else, so the group is left alone then.
func (r *procRunner) Kill(context.Context) error {
	if r.cmd.Process == nil {
		return nil
	}
	if !r.reaped.Load() {
		killGroup(r.pid)
	}
	if err := r.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

// killGroup sends SIGKILL to process group pgid (gone already is fine).
func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}
