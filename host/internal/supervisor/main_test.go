//go:build linux

// The supervisor's tests drive the Linux process hygiene (/proc,
// Pdeathsig, the reaper as /proc/self/exe); for macOS and Windows `make
// test` cross-compiles and vets the package (make cross).

package supervisor

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
	"github.com/toolhost/toolhost/registry"
)

// TestMain lets this test binary serve as the plugins' reaper, as the
// host's executable does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ReaperArg {
		os.Exit(Reap(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// fakeClock is a Clock that moves only when the test says.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []fakeWaiter
}

type fakeWaiter struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
	} else {
		c.waiters = append(c.waiters, fakeWaiter{c.now.Add(d), ch})
	}
	return ch
}

// Advance moves the clock on and fires the timers it passes.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at.After(c.now) {
			kept = append(kept, w)
		} else {
			w.ch <- c.now
		}
	}
	c.waiters = kept
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	st, ok := readStat(pid)
	return ok && st.state != 'Z' && st.state != 'X'
}

// waitGone waits until pid is no longer running (a liveness bound, not a
// speed assertion) and reports whether it went.
func waitGone(pid int) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return true
		}
	}
	return false
}

func (f *fixture) state(t *testing.T) *toolState {
	t.Helper()
	f.sup.mu.Lock()
	defer f.sup.mu.Unlock()
	st := f.sup.tools["testtool"]
	if st == nil {
		t.Fatal("no state for testtool")
	}
	return st
}

func pidOf(t *testing.T, f *fixture) int {
	t.Helper()
	return int(decode(t, f.call(t, context.Background(), "env", nil))["pid"].(float64))
}

// installOther adds a second plugin (the test binary as the agent
// testagent) beside testtool and returns it.
func (f *fixture) installOther(t *testing.T) *registry.Tool {
	t.Helper()
	testplugin.InstallAgent(t, f.plugins)
	other, _ := f.reg.Scan().Tool("testagent")
	if other == nil {
		t.Fatal("testagent not loaded")
	}
	return other
}
