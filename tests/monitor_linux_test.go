//go:build linux

package tests

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHostLeavesTheMonitorThreadAsleep: `host serve` answering run_tool
// calls one after another waits on its plugin and on its client between
// every read and write, idle each time. A read or write through package
// os or net then wakes the Go runtime's monitor thread (sysmon), which
// cost a fifth of the host's CPU with calls in flight; the host reads and
// writes its protocol pipes and its plugin sockets through rawio, which
// does not. The monitor thread is the host's first thread after the main
// one; its voluntary context switches are read from /proc over 2,000 warm
// calls (before rawio 5,370, 2.7 a call; after it 147).
func TestHostLeavesTheMonitorThreadAsleep(t *testing.T) {
	const calls = 2000
	lean := startLeanClient(t)
	defer lean.close(t)
	lean.pipelined(t, 200, 1) // the plugin launched and warm
	pid := lean.cmd.Process.Pid
	tid := firstThread(t, pid)
	before := threadSwitches(t, pid, tid)
	lean.pipelined(t, calls, 1)
	woken := threadSwitches(t, pid, tid) - before
	t.Logf("the host's monitor thread switched %d times over %d calls", woken, calls)
	if woken > calls/2 {
		t.Errorf("the host's monitor thread switched %d times over %d calls; want at most %d: a read or write on the protocol's pipes or a plugin's socket enters the runtime's syscall state (use rawio)", woken, calls, calls/2)
	}
}

// firstThread is the id of the first thread process pid made after its
// main one: the Go runtime's monitor thread, started by runtime.main
// before anything else can make a thread.
func firstThread(t *testing.T, pid int) int {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	if err != nil {
		t.Fatalf("threads of %d: %v", pid, err)
	}
	lowest := 0
	for _, e := range entries {
		if id, _ := strconv.Atoi(e.Name()); id != pid && (lowest == 0 || id < lowest) {
			lowest = id
		}
	}
	if lowest == 0 {
		t.Fatalf("process %d has one thread", pid)
	}
	return lowest
}

// threadSwitches reads the voluntary context switches of thread tid of
// process pid.
func threadSwitches(t *testing.T, pid, tid int) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "task", strconv.Itoa(tid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("thread %d of %d: no voluntary_ctxt_switches", tid, pid)
	return 0
}
