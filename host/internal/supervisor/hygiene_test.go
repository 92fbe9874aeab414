//go:build linux

// The supervisor's tests drive the Linux process hygiene (/proc,
// Pdeathsig, the reaper as /proc/self/exe); for macOS and Windows `make
// test` cross-compiles and vets the package (make cross).

package supervisor

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/sdk/wire"
	"golang.org/x/sys/unix"
)

// TestOnlyXDGBaseDirsReachAPlugin: the four XDG base directories pass; no
// other XDG_* variable does (issue 9, defect 9: XDG_SECRET_TOKEN did).
func TestOnlyXDGBaseDirsReachAPlugin(t *testing.T) {
	env := []string{"PATH=" + os.Getenv("PATH"), "XDG_SECRET_TOKEN=leak", "XDG_RUNTIME_DIR=/run/user/1", "XDG_SESSION_COOKIE=leak",
		"XDG_CACHE_HOME=/c", "XDG_CONFIG_HOME=/g", "XDG_DATA_HOME=/d", "XDG_STATE_HOME=/s"}
	f := newFixture(t, nil, Options{Environ: env})
	names := fmt.Sprint(decode(t, f.call(t, context.Background(), "env", nil))["names"])
	for _, want := range []string{"XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"} {
		if !strings.Contains(names, want) {
			t.Errorf("plugin env lacks %s: %s", want, names)
		}
	}
	for _, leak := range []string{"XDG_SECRET_TOKEN", "XDG_RUNTIME_DIR", "XDG_SESSION_COOKIE"} {
		if strings.Contains(names, leak) {
			t.Errorf("plugin env has %s: %s", leak, names)
		}
	}
}

// TestSpawnedProcessesDieWithThePlugin: a child the plugin started is
// killed with the plugin's process group when the plugin crashes, when it
// is retired, and when the supervisor closes.
func TestSpawnedProcessesDieWithThePlugin(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(t *testing.T, f *fixture)
	}{
		{"plugin crashes", func(t *testing.T, f *fixture) {
			wantCode(t, f.call(t, context.Background(), "crash", nil), wire.CodePluginCrashed)
		}},
		{"plugin stops idle", func(t *testing.T, f *fixture) { f.sup.reapIdle(time.Now().Add(time.Hour)) }},
		{"host closes", func(t *testing.T, f *fixture) { f.sup.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil, Options{})
			m := decode(t, f.call(t, context.Background(), "spawn", nil))
			pid, child := int(m["pid"].(float64)), int(m["child"].(float64))
			if !alive(child) {
				t.Fatalf("child %d not running", child)
			}
			tc.stop(t, f)
			if !waitGone(pid) {
				t.Fatalf("plugin %d still running", pid)
			}
			if !waitGone(child) {
				t.Fatalf("the plugin's child %d outlived it", child)
			}
		})
	}
}

// TestReaperExitsAsThePluginDid: the reaper (this test binary re-executed,
// as the host's executable is) exits with its plugin's exit code, or 128
// plus the signal that killed it, as a shell reports it: that is what the
// host's log says of a plugin that stopped. The reaper leads a process
// group of its own, as the supervisor starts it.
func TestReaperExitsAsThePluginDid(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, script string
		want         int
	}{
		{"exit 0", "exit 0", 0},
		{"exit 3", "exit 3", 3},
		{"killed by SIGTERM", "kill -TERM $$", 128 + int(syscall.SIGTERM)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plugin := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			testplugin.WriteFile(t, plugin, "#!/bin/sh\n"+tt.script+"\n")
			if err := os.Chmod(plugin, 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("/proc/self/exe", ReaperArg, plugin)
			cmd.SysProcAttr = procAttr(true)
			out, _ := cmd.CombinedOutput()
			if got := cmd.ProcessState.ExitCode(); got != tt.want {
				t.Fatalf("the reaper exited with %d, want %d (output %q)", got, tt.want, out)
			}
		})
	}
}

// TestReaperKillsWhatForksWhileItKills: a plugin that leaves behind a
// process forking as fast as it can (here a shell loop starting sleeps)
// still leaves nothing when its reaper is done. The reaper's first round
// lists the group and kills what it listed; what the loop forked after the
// listing is only found by the next round, so the reaper goes on until a
// round finds nothing (a reaper that stopped after one round killing
// something left sleeps behind).
func TestReaperKillsWhatForksWhileItKills(t *testing.T) {
	plugin := filepath.Join(t.TempDir(), "forker")
	testplugin.WriteFile(t, plugin, "#!/bin/sh\n( while :; do sleep 3600 & done ) &\nsleep 0.3\nexit 0\n")
	if err := os.Chmod(plugin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/proc/self/exe", ReaperArg, plugin)
	cmd.SysProcAttr = procAttr(true)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	group := cmd.Process.Pid // the reaper leads its group
	// Whatever the outcome, nothing of the group outlives the test.
	t.Cleanup(func() { killPlugin(group, false) })
	_ = cmd.Wait()
	if left := GroupMembers(group); len(left) != 0 {
		t.Fatalf("the reaper has exited and %d processes of its group still run (the first: %d)", len(left), left[0])
	}
}

// TestGroupMembersListsTheLiveProcessesOfAGroup: the reaper's list of
// what it must kill holds the running processes of its group and no other,
// and leaves out one that has exited but is not yet reaped (a zombie
// cannot be killed, and waiting on it would never end). The reaper runs in
// a child process whose coverage the test binary does not count, so its
// scan is checked here.
func TestGroupMembersListsTheLiveProcessesOfAGroup(t *testing.T) {
	cmd := exec.Command("sleep", "3600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	reaped := false
	t.Cleanup(func() {
		if !reaped {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	if got := GroupMembers(pid); !slices.Equal(got, []int{pid}) {
		t.Fatalf("members of the group of %d: got %v, want [%d]", pid, got, pid)
	}
	if got := GroupMembers(syscall.Getpgrp()); slices.Contains(got, pid) || !slices.Contains(got, syscall.Getpid()) {
		t.Fatalf("members of the test's own group %d: got %v, want this process (%d) and not the other group's %d",
			syscall.Getpgrp(), got, syscall.Getpid(), pid)
	}
	_ = cmd.Process.Kill()
	// Wait until it has exited, leaving it unreaped (a zombie).
	var info unix.Siginfo
	for {
		if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != unix.EINTR {
			break
		}
	}
	if st, ok := readStat(pid); !ok || st.state != 'Z' {
		t.Fatalf("the killed process is not a zombie: %+v (read %v)", st, ok)
	}
	if got := GroupMembers(pid); len(got) != 0 {
		t.Fatalf("members of a group whose one process is a zombie: got %v, want none", got)
	}
	_ = cmd.Wait()
	reaped = true
	if got := GroupMembers(pid); len(got) != 0 {
		t.Fatalf("members of a group whose process is gone: got %v, want none", got)
	}
}
