package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync/atomic"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin/runner"
)

// procRunner starts a plugin process the way the host wants it, which
// go-plugin's own runner does not: stdin is /dev/null (go-plugin hands the
// child the host's stdin, which under `host serve` is the MCP stream), the
// working directory is the host's, and the plugin and everything it spawns
// are stopped together, and never outlive the host. How depends on the
// platform (hygiene_*.go): on Linux and macOS the plugin leads a process
// group of its own (under a reaper, see Reap) that is killed whole; on
// Windows it runs in a job object that kills its processes when the plugin
// stops or the host's handle closes.
type procRunner struct {
	cmd    *exec.Cmd
	binary string // the plugin's, where cmd may run the reaper
	stdout io.ReadCloser
	stderr io.ReadCloser
	pid    int
	reaper bool
	limits limits
	// reaped is set just before the plugin is reaped: from then on its pid
	// may be reused and its group must not be signalled.
	reaped atomic.Bool
	// started hears the process group once it exists (for the watchdog).
	started func(pgid int, reaper bool)
	// os holds what the platform keeps per process (a job object).
	os osProc
}

// limits are a manifest's resource ceilings, for the platforms that have
// the kernel enforce them (Windows job objects).
type limits struct {
	memory  int64
	cpuTime int64 // nanoseconds
}

var _ runner.Runner = (*procRunner)(nil)

// newRunner returns a RunnerFunc for go-plugin that runs binary with args in
// dir. go-plugin passes a cmd whose Env it has filled (magic cookie, mTLS
// certificate, socket dir); we keep that Env plus env, and nothing else of
// the host's. reaper is ignored where the platform needs none (Windows).
func newRunner(binary string, args []string, reaper, dir string, env []string, lim limits, started func(pgid int, reaper bool)) func(hclog.Logger, *exec.Cmd, string) (runner.Runner, error) {
	return func(_ hclog.Logger, spec *exec.Cmd, _ string) (runner.Runner, error) {
		viaReaper := reaper != "" && reaperNeeded
		cmd := exec.Command(binary, args...)
		if viaReaper {
			cmd = exec.Command(reaper, append([]string{ReaperArg, binary}, args...)...)
		}
		cmd.SysProcAttr = procAttr(viaReaper)
		cmd.Env = append(append([]string{}, spec.Env...), env...)
		cmd.Dir = dir
		cmd.Stdin = nil // exec opens /dev/null (NUL on Windows)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, fmt.Errorf("supervisor: stdout pipe: %w", err)
		}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			return nil, fmt.Errorf("supervisor: stderr pipe: %w", err)
		}
		return &procRunner{cmd: cmd, binary: binary, stdout: stdout, stderr: stderr, reaper: viaReaper, limits: lim, started: started}, nil
	}
}

func (r *procRunner) Start(context.Context) error {
	if err := r.cmd.Start(); err != nil {
		return err
	}
	r.pid = r.cmd.Process.Pid
	if err := r.afterStart(); err != nil {
		_ = r.cmd.Process.Kill()
		_ = r.cmd.Wait()
		return fmt.Errorf("supervisor: start %s: %w", r.cmd.Path, err)
	}
	if r.started != nil {
		r.started(r.pid, r.reaper)
	}
	return nil
}

func (r *procRunner) Diagnose(context.Context) string {
	return fmt.Sprintf("%s did not complete the plugin handshake: is it a toolhost plugin (the Go SDK's sdk.Main or the Python SDK's main()) for this machine?", r.binary)
}

func (r *procRunner) Stdout() io.ReadCloser                            { return r.stdout }
func (r *procRunner) Stderr() io.ReadCloser                            { return r.stderr }
func (r *procRunner) Name() string                                     { return r.cmd.Path }
func (r *procRunner) ID() string                                       { return fmt.Sprint(r.pid) }
func (r *procRunner) PluginToHost(n, a string) (string, string, error) { return n, a, nil }
func (r *procRunner) HostToPlugin(n, a string) (string, string, error) { return n, a, nil }

// Wait waits for the plugin to exit, then kills what is left of its
// process tree: a child it spawned does not outlive it. On Linux and macOS
// the group is killed while the plugin is still an unreaped zombie, so its
// pid — the group's id — cannot have been reused by an unrelated process
// group yet; killing it after the reap could hit a stranger once the
// kernel's pids wrap (pid_max is 32768 on many machines).
func (r *procRunner) Wait(context.Context) error {
	r.waitExited()
	r.killTree()
	r.reaped.Store(true)
	err := r.cmd.Wait()
	r.release()
	return err
}

// Kill kills the plugin's whole process tree: go-plugin calls it when a
// graceful shutdown did not end the plugin. Once the plugin is reaped its
// pid may belong to someone else, so the group is left alone then.
func (r *procRunner) Kill(context.Context) error {
	if r.cmd.Process == nil {
		return nil
	}
	if !r.reaped.Load() {
		r.killTree()
	}
	if err := r.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}
