//go:build linux

package supervisor

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
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

// DescribeDiff names the actions only the manifest has and those only the
// binary has, each side alone or both.
func TestDescribeDiffNamesBothSides(t *testing.T) {
	tests := []struct {
		manifest, binary []string
		want             string
	}{
		{[]string{"a", "b"}, []string{"b", "a"}, ""},
		{[]string{"a", "b"}, []string{"a"}, "actions in tool.yaml but not in the binary: b"},
		{[]string{"a"}, []string{"a", "c", "d"}, "actions in the binary but not in tool.yaml: c, d"},
		{[]string{"a", "b"}, []string{"c"}, "actions in tool.yaml but not in the binary: a, b; actions in the binary but not in tool.yaml: c"},
	}
	for _, tt := range tests {
		if got := DescribeDiff(tt.manifest, tt.binary); got != tt.want {
			t.Errorf("DescribeDiff(%v, %v) = %q, want %q", tt.manifest, tt.binary, got, tt.want)
		}
	}
}
