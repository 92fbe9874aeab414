//go:build linux

package tests

import (
	"testing"

	"github.com/toolhost/toolhost/internal/testplugin"
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
	tid, err := testplugin.MonitorThread(pid)
	must(t, err)
	before, err := testplugin.VoluntarySwitches(pid, tid)
	must(t, err)
	lean.pipelined(t, calls, 1)
	after, err := testplugin.VoluntarySwitches(pid, tid)
	must(t, err)
	woken := after - before
	t.Logf("the host's monitor thread switched %d times over %d calls", woken, calls)
	if woken > calls/2 {
		t.Errorf("the host's monitor thread switched %d times over %d calls; want at most %d: a read or write on the protocol's pipes or a plugin's socket enters the runtime's syscall state (use rawio)", woken, calls, calls/2)
	}
}
