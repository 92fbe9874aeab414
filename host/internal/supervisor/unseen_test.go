//go:build linux

// Tests for lines gremlins' coverage step counted NOT COVERED in the
// supervisor (its 2026-12-02 dry run): lines no test reached, and the
// reaper's scan, which runs in a child process the test binary's coverage
// does not see.

package supervisor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/manifests"
	"github.com/toolhost/toolhost/registry"
	"github.com/toolhost/toolhost/sdk/wire"
)

// TestChangedAtFirstLaunchIsRefusedAndReported: an approved plugin whose
// binary the serving scan took on trust (the hash cache had not seen it)
// and which was replaced before its first call is refused at that launch:
// the call answers not_ready with what changed and the command that
// approves it, and OnChanged is told, so the host rescans and lists it
// not ready.
func TestChangedAtFirstLaunchIsRefusedAndReported(t *testing.T) {
	plugins, state := t.TempDir(), t.TempDir()
	dir := testplugin.Install(t, plugins, "1")
	testplugin.Approve(t, plugins, state)
	hc := registry.NewHashCache("", nil) // has seen nothing: the scan reads no file
	runDir := t.TempDir()
	reg := registry.New(registry.Options{PluginDirs: []string{plugins}, RequireApproval: true, VerifyAtLaunch: true,
		StateDir: filepath.Join(state, "toolhost"), RunDir: runDir, Hashes: hc})
	tool, _ := reg.Scan().Tool("testtool")
	if tool == nil || !tool.Ready || !tool.Unverified {
		t.Fatalf("approved testtool at the start: %+v, want ready and unverified", tool)
	}
	testplugin.CopyBinary(t, testplugin.Build(t, "2"), filepath.Join(dir, "testtool"))

	var mu sync.Mutex
	var told []string
	sup := New(Options{CacheDir: runDir, Hashes: hc, Reaper: "/proc/self/exe", OnChanged: func(name string) {
		mu.Lock()
		defer mu.Unlock()
		told = append(told, name)
	}})
	t.Cleanup(sup.Close)
	r := sup.Call(context.Background(), tool, &wire.CallRequest{Action: "version", ArgsJson: []byte("{}")}, nil)
	wantCode(t, r, wire.CodeNotReady)
	if e := r.GetError(); !strings.Contains(e.GetMessage(), "testtool is not ready: changed — needs approval") ||
		!strings.Contains(e.GetMessage(), "changed files: ~testtool") || !strings.Contains(e.GetNextStep(), "host approve testtool") {
		t.Fatalf("refusal does not say what changed and how to approve it: %q (next step %q)", e.GetMessage(), e.GetNextStep())
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(told, []string{"testtool"}) {
		t.Fatalf("OnChanged was told %v, want [testtool]", told)
	}
}

// TestAFailedCallsAnswerNamesWhoseLimitEndedIt: a call whose stream ended
// in an error is answered for the limit that ended it. Past the manifest's
// timeout it is the manifest's timeout, named, whether the host's timer
// fired first (the stream then ends in whatever error the transport gives)
// or the plugin enforced the deadline gRPC carries a moment before it (the
// host's own timer has not fired yet); the caller's cancellation or the
// caller's own deadline is the caller's, never the manifest's. The
// contexts are made ended or not as each case needs, so no test waits on a
// clock; the plugin is real and alive, so it did not crash.
func TestAFailedCallsAnswerNamesWhoseLimitEndedIt(t *testing.T) {
	f := newFixture(t, nil, Options{})
	decode(t, f.call(t, context.Background(), "echo", map[string]any{"text": "warm"}))
	st := f.state(t)
	st.mu.Lock()
	p := st.cur
	st.mu.Unlock()
	tool := f.tool(t)
	const timeout = 5 * time.Second
	ended := func(parent context.Context) context.Context { // a context whose deadline has passed
		ctx, cancel := context.WithDeadline(parent, time.Unix(0, 0))
		t.Cleanup(cancel)
		return ctx
	}
	live := func(parent context.Context) context.Context {
		ctx, cancel := context.WithTimeout(parent, timeout)
		t.Cleanup(cancel)
		return ctx
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name          string
		ctx, callCtx  context.Context
		err           error
		code          wire.Code
		message, next string
		cancelled     bool // the caller's: the answer does not count against the plugin
	}{
		{"the host's timer fired first", context.Background(), ended(context.Background()), status.Error(codes.Unknown, "stream terminated by RST_STREAM"),
			wire.CodeTimeout, "testtool slow did not finish within 5s (the manifest's timeout)", "raise timeout in " + tool.Manifest.Path, false},
		{"the plugin enforced the deadline first", context.Background(), live(context.Background()), status.Error(codes.DeadlineExceeded, "context deadline exceeded"),
			wire.CodeTimeout, "testtool slow did not finish within 5s (the manifest's timeout)", "raise timeout in " + tool.Manifest.Path, false},
		{"the caller cancelled", cancelled, live(cancelled), status.Error(codes.Canceled, "context canceled"),
			wire.CodeCancelled, "the call to testtool was cancelled", "", true},
		{"the caller's own deadline passed", ended(context.Background()), ended(context.Background()), status.Error(codes.DeadlineExceeded, "context deadline exceeded"),
			wire.CodeTimeout, "the call to testtool ran out of time", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := f.sup.failed(tt.ctx, tt.callCtx, st, p, tool, &wire.CallRequest{Action: "slow"}, timeout, tt.err)
			wantCode(t, out.res, tt.code)
			if e := out.res.GetError(); e.GetMessage() != tt.message || !strings.Contains(e.GetNextStep(), tt.next) {
				t.Fatalf("got message %q, next step %q; want %q and %q", e.GetMessage(), e.GetNextStep(), tt.message, tt.next)
			}
			if out.crashed || out.cancelled != tt.cancelled {
				t.Fatalf("counted a crash %v, the caller's %v; want false, %v", out.crashed, out.cancelled, tt.cancelled)
			}
		})
	}
	decode(t, f.call(t, context.Background(), "echo", map[string]any{"text": "still served"}))
}

// TestAPluginThatNeverStartsIsNotReady: a plugin that never completes the
// plugin handshake (here a script that only sleeps) is given up on after
// Options.StartTimeout: its call answers not_ready saying it could not
// start and what it did not do, the process is killed, and the host goes
// on serving.
func TestAPluginThatNeverStartsIsNotReady(t *testing.T) {
	f := newFixture(t, nil, Options{StartTimeout: 500 * time.Millisecond})
	pidFile := filepath.Join(t.TempDir(), "pid")
	testplugin.WriteFile(t, filepath.Join(f.plugins, "testtool", "testtool"), "#!/bin/sh\necho $$ >"+pidFile+"\nexec sleep 3600\n")
	if err := os.Chmod(filepath.Join(f.plugins, "testtool", "testtool"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.reg.Scan()
	r := f.call(t, context.Background(), "echo", map[string]any{"text": "x"})
	wantCode(t, r, wire.CodeNotReady)
	if e := r.GetError(); !strings.Contains(e.GetMessage(), "testtool could not start") ||
		!strings.Contains(e.GetMessage(), "timeout while waiting for plugin to start") || !strings.Contains(e.GetNextStep(), "host check") {
		t.Fatalf("got message %q, next step %q; want it to say the plugin could not start and what to run", e.GetMessage(), e.GetNextStep())
	}
	// The kill has been sent by the time the call answers: a script killed
	// before it wrote its pid never will.
	b, err := os.ReadFile(pidFile)
	if os.IsNotExist(err) {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %s: %v", pidFile, err)
	}
	if !waitGone(pid) {
		t.Fatalf("the plugin that never started (pid %d) is still running", pid)
	}
}

// TestOverCeilingNamesTheFigures: a plugin is over its manifest's memory or
// cpu_time only past the figure (at it is within), a zero one is no
// ceiling, and the reason the call's answer gives names what the plugin
// used and the manifest's figure. TestResourceCeilingsKillARunawayPluginAlone
// shows the kill on a real plugin; its usage is never exactly at a
// ceiling, so the boundaries are here.
func TestOverCeilingNamesTheFigures(t *testing.T) {
	const mib = int64(1) << 20
	tests := []struct {
		name   string
		m      manifests.Manifest
		u      usage
		reason string // "" when the plugin is within its ceilings
	}{
		{"no ceilings", manifests.Manifest{}, usage{rss: 900 * mib, cpu: time.Hour}, ""},
		{"memory at the ceiling", manifests.Manifest{Memory: 64 * mib}, usage{rss: 64 * mib, cpu: time.Hour}, ""},
		{"memory past the ceiling", manifests.Manifest{Memory: 64 * mib}, usage{rss: 64*mib + 1, cpu: time.Hour},
			"its processes held 64 MiB of memory, over the manifest's memory of 64 MiB"},
		{"memory far past", manifests.Manifest{Memory: 64 * mib, CPUTime: time.Hour}, usage{rss: 256 * mib},
			"its processes held 256 MiB of memory, over the manifest's memory of 64 MiB"},
		{"cpu time at the ceiling", manifests.Manifest{CPUTime: time.Second}, usage{rss: 900 * mib, cpu: time.Second}, ""},
		{"cpu time past the ceiling", manifests.Manifest{CPUTime: time.Second}, usage{rss: 900 * mib, cpu: time.Second + 10*time.Millisecond},
			"it used 1.01s of CPU time, over the manifest's cpu_time of 1s"},
		{"cpu time past, memory within", manifests.Manifest{Memory: 64 * mib, CPUTime: time.Second}, usage{rss: 10 * mib, cpu: 3 * time.Second},
			"it used 3s of CPU time, over the manifest's cpu_time of 1s"},
		{"both within", manifests.Manifest{Memory: 64 * mib, CPUTime: time.Second}, usage{rss: 10 * mib, cpu: 500 * time.Millisecond}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := overCeiling(&tt.m, tt.u); got != tt.reason {
				t.Fatalf("got reason %q, want %q", got, tt.reason)
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
