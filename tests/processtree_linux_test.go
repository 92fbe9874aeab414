package tests

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSetsidGrandchildDiesWithTheHost: a process a plugin left in a session
// of its own (setsid), its parent gone, dies with `host serve` whether the
// host ends on EOF, on SIGTERM or by SIGKILL.
func TestSetsidGrandchildDiesWithTheHost(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(t *testing.T, w *wireProc)
	}{
		{"EOF", func(t *testing.T, w *wireProc) { _ = w.closeAndWait() }},
		{"SIGTERM", func(t *testing.T, w *wireProc) { must(t, w.cmd.Process.Signal(syscall.SIGTERM)) }},
		{"SIGKILL", func(t *testing.T, w *wireProc) { must(t, w.cmd.Process.Kill()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newEnv(t).startWire(t)
			w.initialize()
			sc, isErr := structured(t, w.Call(runToolLine(1, "testtool", "escape", `{}`)))
			if isErr {
				t.Fatalf("escape failed: %v", sc)
			}
			grandchild := int(sc["grandchild"].(float64))
			t.Cleanup(func() {
				if running(grandchild) {
					_ = syscall.Kill(grandchild, syscall.SIGKILL)
				}
			})
			if !running(grandchild) {
				t.Fatalf("the plugin's setsid grandchild %d is not running", grandchild)
			}
			tc.stop(t, w)
			select {
			case <-w.exited:
			case <-time.After(time.Minute):
				t.Fatal("the host did not exit")
			}
			for end := time.Now().Add(30 * time.Second); running(grandchild); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(end) {
					t.Fatalf("the plugin's setsid grandchild %d outlived the host (%s)", grandchild, tc.name)
				}
			}
		})
	}
}

// running reports whether pid is a live process (not a zombie), from
// /proc/PID/stat.
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}
