//go:build linux

package supervisor

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/sdk/wire"
)

// TestSetsidGrandchildDiesWithThePlugin: a process the plugin left behind
// in a session and group of its own (setsid), its parent gone, is killed
// with the plugin however the plugin stops: a crash, an idle stop, the
// watchdog's kill, and the host closing (what `host serve` does on EOF and
// SIGTERM). The SIGKILLed host is TestNoPluginOutlivesAKilledHost's.
func TestSetsidGrandchildDiesWithThePlugin(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(t *testing.T, f *fixture, pgid int)
	}{
		{"plugin crashes", func(t *testing.T, f *fixture, _ int) {
			wantCode(t, f.call(t, context.Background(), "crash", nil), wire.CodePluginCrashed)
		}},
		{"plugin stops idle", func(t *testing.T, f *fixture, _ int) { f.sup.reapIdle(time.Now().Add(time.Hour)) }},
		{"watchdog kills it", func(t *testing.T, f *fixture, pgid int) { killPlugin(pgid, true) }},
		{"host closes", func(t *testing.T, f *fixture, _ int) { f.sup.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, nil, Options{})
			m := decode(t, f.call(t, context.Background(), "escape", nil))
			pid, grandchild := int(m["pid"].(float64)), int(m["grandchild"].(float64))
			t.Cleanup(func() {
				if alive(grandchild) {
					_ = syscall.Kill(grandchild, syscall.SIGKILL)
				}
			})
			if !alive(grandchild) {
				t.Fatalf("grandchild %d not running", grandchild)
			}
			st, ok := readStat(pid)
			if !ok {
				t.Fatalf("plugin %d not running", pid)
			}
			if g, _ := readStat(grandchild); g.pgrp == st.pgrp {
				t.Fatalf("the grandchild %d is in the plugin's group %d: it did not leave it", grandchild, st.pgrp)
			}
			tc.stop(t, f, st.pgrp)
			if !waitGone(pid) {
				t.Fatalf("plugin %d still running", pid)
			}
			if !waitGone(grandchild) {
				t.Fatalf("the plugin's setsid grandchild %d outlived it", grandchild)
			}
		})
	}
}
